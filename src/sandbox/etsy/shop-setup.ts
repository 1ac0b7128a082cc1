/**
 * A shop's prerequisites for listing (listings.md §1.3): two shipping profiles, two return policies and two
 * processing profiles (readiness state definitions) per shop, with ids derived from the shop id so every run agrees.
 * Read-only here: creating them (`shops_w`) is done on etsy.com by the seller.
 */
import type { FastifyInstance } from 'fastify';
import { userIdOf } from './api-access.js';
import type { EtsyGuard } from './guard.js';

export const shippingProfileIds = (shopId: number) => [shopId * 100 + 1, shopId * 100 + 2];
export const readinessStateIds = (shopId: number) => [shopId * 100 + 11, shopId * 100 + 12];
export const returnPolicyIds = (shopId: number) => [shopId * 100 + 21, shopId * 100 + 22];

const ACCOUNT_OF_SHOP = (shopId: number) => shopId - 80_000_000;

function shippingProfiles(shopId: number) {
  const [standard, express] = shippingProfileIds(shopId) as [number, number];
  const profile = (id: number, title: string, min: number, max: number) => ({
    shipping_profile_id: id,
    title,
    user_id: userIdOf(ACCOUNT_OF_SHOP(shopId)),
    min_processing_days: min,
    max_processing_days: max,
    processing_days_display_label: `${min}-${max} business days`,
    origin_country_iso: 'US',
    origin_postal_code: '10001',
    profile_type: 'manual',
    domestic_handling_fee: 0,
    international_handling_fee: 0,
    is_deleted: false,
    shipping_profile_destinations: [],
    shipping_profile_upgrades: [],
  });
  return [profile(standard, 'Standard shipping', 1, 3), profile(express, 'Express shipping', 1, 1)];
}

function returnPolicies(shopId: number) {
  const [returns, none] = returnPolicyIds(shopId) as [number, number];
  return [
    { return_policy_id: returns, shop_id: shopId, accepts_returns: true, accepts_exchanges: true, return_deadline: 30 },
    // Etsy's rule: a deadline only when returns or exchanges are accepted (listings.md §1.3).
    { return_policy_id: none, shop_id: shopId, accepts_returns: false, accepts_exchanges: false, return_deadline: null },
  ];
}

function readinessStates(shopId: number) {
  const [ready, made] = readinessStateIds(shopId) as [number, number];
  return [
    {
      readiness_state_id: ready,
      shop_id: shopId,
      readiness_state: 'ready_to_ship',
      min_processing_time: 1,
      max_processing_time: 3,
      processing_time_unit: 'days',
    },
    {
      readiness_state_id: made,
      shop_id: shopId,
      readiness_state: 'made_to_order',
      min_processing_time: 1,
      max_processing_time: 2,
      processing_time_unit: 'weeks',
    },
  ];
}

const page = <T>(results: T[]) => ({ count: results.length, results });

/** The three read routes, each needing `shops_r` and the token's own shop in the path. */
export function registerShopSetup(app: FastifyInstance, guard: EtsyGuard) {
  const routes = [
    ['shipping-profiles', 'getShopShippingProfiles', shippingProfiles],
    ['policies/return', 'getShopReturnPolicies', returnPolicies],
    ['readiness-state-definitions', 'getShopReadinessStateDefinitions', readinessStates],
  ] as const;
  for (const [path, operation, read] of routes) {
    app.get(`/v3/application/shops/:shopId/${path}`, async (request, reply) => {
      const { shopId } = request.params as { shopId: string };
      if (!(await guard.admitGrant(request, reply, { operation, scope: 'shops_r', shopId }))) return reply;
      return reply.send(page<unknown>(read(Number(shopId))));
    });
  }
}
