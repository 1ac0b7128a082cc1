/**
 * A shop's prerequisites for listing (listings.md §1.3): its shipping profiles, return policies and processing
 * profiles (readiness state definitions), read (`shops_r`) and created (`shops_w`) as Etsy's Shop ShippingProfile,
 * Shop ReturnPolicy and Shop ProcessingProfiles APIs do, with their validation. A shop starts with two of each, with
 * ids derived from the shop id so every run agrees; a shop the consent page made `empty` (or `empty-eu`, a shop in
 * Germany) starts with none, as a new shop on Etsy does, and gets only what is created. Creates are form-encoded,
 * as Etsy's are, and answer 201 with what was made.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SandboxContext } from '../context.js';
import { shopIdOf, userIdOf } from './api-access.js';
import type { EtsyGuard } from './guard.js';
import { type Problem, readParameters } from './listing-fields.js';

const ACCOUNT_OF_SHOP = (shopId: number) => shopId - 80_000_000;

/** Etsy's return deadlines, in days (createShopReturnPolicy: "must be one of the following"). */
export const RETURN_DEADLINES = [7, 14, 21, 30, 45, 60, 90] as const;
/** The countries of the European Union (ISO 3166-1), whose shops Etsy does not ask for a return policy. */
export const EU_COUNTRIES = new Set('AT BE BG CY CZ DE DK EE ES FI FR GR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK'.split(' '));
/**
 * Countries whose origin needs `origin_postal_code` (createShopShippingProfile: "Required if the origin_country_iso
 * supports postal codes"). ASSUMPTION: Etsy's full list is in its Fulfillment tutorial, not quoted here; these are
 * the ones the sandbox's shops and tests use, and a few more that certainly have postcodes.
 */
const POSTCODE_COUNTRIES = new Set('US CA GB DE FR IT ES NL AU JP'.split(' '));

export interface ShippingProfile {
  shipping_profile_id: number;
  title: string;
  user_id: number;
  min_processing_days: number | null;
  max_processing_days: number | null;
  processing_days_display_label: string | null;
  origin_country_iso: string;
  origin_postal_code: string | null;
  profile_type: 'manual';
  domestic_handling_fee: number;
  international_handling_fee: number;
  is_deleted: false;
  shipping_profile_destinations: Record<string, unknown>[];
  shipping_profile_upgrades: [];
}
export interface ReturnPolicy {
  return_policy_id: number;
  shop_id: number;
  accepts_returns: boolean;
  accepts_exchanges: boolean;
  return_deadline: number | null;
}
export interface ReadinessState {
  readiness_state_id: number;
  shop_id: number;
  readiness_state: 'ready_to_ship' | 'made_to_order';
  min_processing_time: number;
  max_processing_time: number;
  processing_time_unit: 'days' | 'weeks';
}

/** What one shop holds: where it is, and its prerequisites. */
export interface ShopSetup {
  country: string;
  shipping: ShippingProfile[];
  returns: ReturnPolicy[];
  readiness: ReadinessState[];
  /** The last id given to something created in the shop. */
  lastId: number;
}

function shippingProfile(shopId: number, id: number, title: string, min: number | null, max: number | null): ShippingProfile {
  return {
    shipping_profile_id: id,
    title,
    user_id: userIdOf(ACCOUNT_OF_SHOP(shopId)),
    min_processing_days: min,
    max_processing_days: max,
    processing_days_display_label: min === null ? null : `${min}-${max} business days`,
    origin_country_iso: 'US',
    origin_postal_code: '10001',
    profile_type: 'manual',
    domestic_handling_fee: 0,
    international_handling_fee: 0,
    is_deleted: false,
    shipping_profile_destinations: [],
    shipping_profile_upgrades: [],
  };
}

/** The fixed ids of a shop's own prerequisites (a shop the consent page did not make empty): two of each. */
export const shippingProfileIds = (shopId: number) => [shopId * 100 + 1, shopId * 100 + 2];
export const readinessStateIds = (shopId: number) => [shopId * 100 + 11, shopId * 100 + 12];
export const returnPolicyIds = (shopId: number) => [shopId * 100 + 21, shopId * 100 + 22];

/** A shop as it is unless the consent page said otherwise: in the US, with two of each prerequisite. */
function stockedSetup(shopId: number): ShopSetup {
  const base = shopId * 100;
  return {
    country: 'US',
    shipping: [shippingProfile(shopId, base + 1, 'Standard shipping', 1, 3), shippingProfile(shopId, base + 2, 'Express shipping', 1, 1)],
    returns: [
      { return_policy_id: base + 21, shop_id: shopId, accepts_returns: true, accepts_exchanges: true, return_deadline: 30 },
      // Etsy's rule: a deadline only when returns or exchanges are accepted (listings.md §1.3).
      { return_policy_id: base + 22, shop_id: shopId, accepts_returns: false, accepts_exchanges: false, return_deadline: null },
    ],
    readiness: [
      {
        readiness_state_id: base + 11,
        shop_id: shopId,
        readiness_state: 'ready_to_ship',
        min_processing_time: 1,
        max_processing_time: 3,
        processing_time_unit: 'days',
      },
      {
        readiness_state_id: base + 12,
        shop_id: shopId,
        readiness_state: 'made_to_order',
        min_processing_time: 1,
        max_processing_time: 2,
        processing_time_unit: 'weeks',
      },
    ],
    // Created ids are shopId × 1000 and up: never one of the fixed ones.
    lastId: shopId * 1000,
  };
}

export type ShopSetups = ReturnType<typeof shopSetups>;

// One state per running sandbox, found from its context (as the Amazon limits are).
const setupsOf = new WeakMap<SandboxContext, Map<number, ShopSetup>>();

/** The shops of a running sandbox: each made on first use, stocked, unless the consent page made it empty. */
export function shopSetups(context: SandboxContext) {
  let shops = setupsOf.get(context);
  if (!shops) setupsOf.set(context, (shops = new Map()));
  const all = shops;
  const of = (shopId: number): ShopSetup => all.get(shopId) ?? (all.set(shopId, stockedSetup(shopId)), all.get(shopId)!);
  return {
    of,
    /** A new shop of the account (the consent page's `empty` and `empty-eu`): no prerequisite yet, in `country`. */
    startEmpty(account: number, country: string) {
      const shopId = shopIdOf(account);
      all.set(shopId, { ...stockedSetup(shopId), country, shipping: [], returns: [], readiness: [] });
    },
    shippingIds: (shopId: number) => of(shopId).shipping.map((p) => p.shipping_profile_id),
    returnIds: (shopId: number) => of(shopId).returns.map((p) => p.return_policy_id),
    readinessIds: (shopId: number) => of(shopId).readiness.map((p) => p.readiness_state_id),
    /** Whether Etsy asks the shop's physical listings for a return policy (not of an EU shop, listings.md §1.4). */
    needsReturnPolicy: (shopId: number) => !EU_COUNTRIES.has(of(shopId).country),
  };
}

const isInteger = (text: string | undefined) => text !== undefined && /^[0-9]{1,9}$/.test(text);
const isMoney = (text: string | undefined) => text !== undefined && /^[0-9]{1,6}(\.[0-9]{1,2})?$/.test(text);
const isFlag = (text: string | undefined) => text === 'true' || text === 'false' || text === '1' || text === '0';
const flag = (text: string) => text === 'true' || text === '1';
const problem = (name: string, type: string, message: string): Problem => ({ path: `/${name}`, type, message });

/** Parameters a create does not take are refused, as createDraftListing's are (listing-fields.ts). */
function unknownParameters(parameters: Record<string, string>, known: readonly string[]): Problem[] {
  return Object.keys(parameters)
    .filter((name) => !known.includes(name))
    .map((name) => problem(name, 'unknown', 'is not a parameter of this operation'));
}

const SHIPPING_PARAMETERS = [
  'title',
  'origin_country_iso',
  'origin_postal_code',
  'primary_cost',
  'secondary_cost',
  'destination_country_iso',
  'destination_region',
  'shipping_carrier_id',
  'mail_class',
  'min_delivery_days',
  'max_delivery_days',
  // Taken and ignored: processing times belong to processing profiles since Etsy's migration (listings.md §1.3).
  'min_processing_time',
  'max_processing_time',
  'processing_time_unit',
] as const;

/**
 * createShopShippingProfile's checks (listings.md §1.3): a title, the origin country (and its postcode where it has
 * them), both costs, one destination (a country or a region, not both), and either a carrier with its mail class or
 * the delivery days. ASSUMPTION: delivery days from 1 to 45, the minimum at most the maximum (Etsy's bounds are not
 * quoted here); a carrier id the sandbox does not check against Etsy's carriers.
 */
function shippingProblems(p: Record<string, string>): Problem[] {
  const problems = unknownParameters(p, SHIPPING_PARAMETERS);
  if (!p.title?.trim()) problems.push(problem('title', 'required', 'is required'));
  if (!p.origin_country_iso) problems.push(problem('origin_country_iso', 'required', 'is required'));
  else if (!/^[A-Z]{2}$/.test(p.origin_country_iso)) problems.push(problem('origin_country_iso', 'invalid', 'must be an ISO country code'));
  else if (POSTCODE_COUNTRIES.has(p.origin_country_iso) && !p.origin_postal_code?.trim())
    problems.push(problem('origin_postal_code', 'required', `is required for origin_country_iso ${p.origin_country_iso}`));
  for (const name of ['primary_cost', 'secondary_cost'] as const)
    if (p[name] === undefined) problems.push(problem(name, 'required', 'is required'));
    else if (!isMoney(p[name])) problems.push(problem(name, 'type', 'must be a non-negative amount'));
  const region = p.destination_region === 'none' ? undefined : p.destination_region;
  if (region !== undefined && region !== 'eu' && region !== 'non_eu')
    problems.push(problem('destination_region', 'enum', 'must be one of eu, non_eu, none'));
  if (p.destination_country_iso !== undefined && region !== undefined)
    problems.push(problem('destination_country_iso', 'invalid', 'cannot be given with destination_region: give one or the other'));
  if (p.destination_country_iso === undefined && region === undefined)
    problems.push(problem('destination_country_iso', 'required', 'is required if destination_region is not given'));
  if (p.destination_country_iso !== undefined && !/^[A-Z]{2}$/.test(p.destination_country_iso))
    problems.push(problem('destination_country_iso', 'invalid', 'must be an ISO country code'));
  const carrier = p.shipping_carrier_id !== undefined || p.mail_class !== undefined;
  const days = p.min_delivery_days !== undefined || p.max_delivery_days !== undefined;
  if (carrier) {
    if (!isInteger(p.shipping_carrier_id) || !p.mail_class)
      problems.push(problem('mail_class', 'required', 'shipping_carrier_id and mail_class are required together'));
  } else if (!days) {
    problems.push(
      problem(
        'min_delivery_days',
        'required',
        'give either shipping_carrier_id and mail_class, or min_delivery_days and max_delivery_days',
      ),
    );
  }
  if (days && !carrier) {
    const [min, max] = [Number(p.min_delivery_days), Number(p.max_delivery_days)];
    if (!isInteger(p.min_delivery_days) || !isInteger(p.max_delivery_days) || min < 1 || max > 45)
      problems.push(problem('min_delivery_days', 'range', 'min_delivery_days and max_delivery_days are whole days from 1 to 45'));
    else if (min > max) problems.push(problem('min_delivery_days', 'range', 'cannot be more than max_delivery_days'));
  }
  return problems;
}

/** createShopReturnPolicy's checks: both flags, and a deadline of Etsy's list when either is accepted. */
function returnProblems(p: Record<string, string>): Problem[] {
  const problems = unknownParameters(p, ['accepts_returns', 'accepts_exchanges', 'return_deadline']);
  for (const name of ['accepts_returns', 'accepts_exchanges'] as const)
    if (p[name] === undefined) problems.push(problem(name, 'required', 'is required'));
    else if (!isFlag(p[name])) problems.push(problem(name, 'type', 'must be a boolean'));
  const accepts = (isFlag(p.accepts_returns) && flag(p.accepts_returns!)) || (isFlag(p.accepts_exchanges) && flag(p.accepts_exchanges!));
  if (accepts && p.return_deadline === undefined)
    problems.push(problem('return_deadline', 'required', 'is required if either accepts_returns or accepts_exchanges is true'));
  if (p.return_deadline !== undefined && !RETURN_DEADLINES.includes(Number(p.return_deadline) as (typeof RETURN_DEADLINES)[number]))
    problems.push(problem('return_deadline', 'enum', `must be one of the following: [${RETURN_DEADLINES.join(', ')}]`));
  return problems;
}

/** createShopReadinessStateDefinition's checks: the state, and processing times from 1 to 10 in days or weeks. */
function readinessProblems(p: Record<string, string>): Problem[] {
  const problems = unknownParameters(p, ['readiness_state', 'min_processing_time', 'max_processing_time', 'processing_time_unit']);
  if (p.readiness_state === undefined) problems.push(problem('readiness_state', 'required', 'is required'));
  else if (p.readiness_state !== 'ready_to_ship' && p.readiness_state !== 'made_to_order')
    problems.push(problem('readiness_state', 'enum', 'must be one of ready_to_ship, made_to_order'));
  for (const name of ['min_processing_time', 'max_processing_time'] as const)
    if (p[name] === undefined) problems.push(problem(name, 'required', 'is required'));
    else if (!isInteger(p[name]) || Number(p[name]) < 1 || Number(p[name]) > 10)
      problems.push(problem(name, 'range', 'must be a whole number from 1 to 10'));
  if (isInteger(p.min_processing_time) && isInteger(p.max_processing_time) && Number(p.min_processing_time) > Number(p.max_processing_time))
    problems.push(problem('min_processing_time', 'range', 'cannot be more than max_processing_time'));
  if (p.processing_time_unit !== undefined && p.processing_time_unit !== 'days' && p.processing_time_unit !== 'weeks')
    problems.push(problem('processing_time_unit', 'enum', 'must be one of days, weeks'));
  return problems;
}

const page = <T>(results: T[]) => ({ count: results.length, results });

/** The read and create routes, each needing its scope and the token's own shop in the path. */
export function registerShopSetup(app: FastifyInstance, guard: EtsyGuard, shops: ShopSetups) {
  const reads = [
    ['shipping-profiles', 'getShopShippingProfiles', (s: ShopSetup) => s.shipping],
    ['policies/return', 'getShopReturnPolicies', (s: ShopSetup) => s.returns],
    ['readiness-state-definitions', 'getShopReadinessStateDefinitions', (s: ShopSetup) => s.readiness],
  ] as const;
  for (const [path, operation, read] of reads) {
    app.get(`/v3/application/shops/:shopId/${path}`, async (request, reply) => {
      const { shopId } = request.params as { shopId: string };
      if (!(await guard.admitGrant(request, reply, { operation, scope: 'shops_r', shopId }))) return reply;
      return reply.send(page<unknown>(read(shops.of(Number(shopId)))));
    });
  }

  app.get('/v3/application/shops/:shopId/readiness-state-definitions/:id', async (request, reply) => {
    const { shopId, id } = request.params as { shopId: string; id: string };
    const operation = 'getShopReadinessStateDefinition';
    if (!(await guard.admitGrant(request, reply, { operation, scope: 'shops_r', shopId }))) return reply;
    const found = shops.of(Number(shopId)).readiness.find((state) => String(state.readiness_state_id) === id);
    return found ? reply.send(found) : reply.code(404).send({ error: `Could not find a processing profile with id ${id}` });
  });

  /** Admits a create (`shops_w`, the token's shop); its shop and form parameters, or null once an answer was sent. */
  const admitCreate = async (request: FastifyRequest, reply: FastifyReply, operation: string) => {
    const { shopId } = request.params as { shopId: string };
    if (!(await guard.admitGrant(request, reply, { operation, scope: 'shops_w', shopId }))) return null;
    if (!String(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      void reply.code(400).send({ error: 'The request body must be application/x-www-form-urlencoded.' });
      return null;
    }
    const parameters = readParameters(request.body);
    return { setup: shops.of(Number(shopId)), shopId: Number(shopId), parameters };
  };
  // Etsy's refusal of a write's fields: an array of `{path, type, message}` (listings.md §1.11), as createDraftListing's.
  const refuse = (reply: FastifyReply, problems: Problem[]) => reply.code(400).send(problems);

  app.post('/v3/application/shops/:shopId/shipping-profiles', async (request, reply) => {
    const admitted = await admitCreate(request, reply, 'createShopShippingProfile');
    if (!admitted) return reply;
    const { setup, shopId, parameters: p } = admitted;
    const problems = shippingProblems(p);
    if (problems.length > 0) return refuse(reply, problems);
    const id = ++setup.lastId;
    const destinationId = ++setup.lastId;
    const profile: ShippingProfile = {
      ...shippingProfile(shopId, id, p.title!.trim(), null, null),
      origin_country_iso: p.origin_country_iso!,
      origin_postal_code: p.origin_postal_code?.trim() || null,
      shipping_profile_destinations: [
        {
          shipping_profile_destination_id: destinationId,
          shipping_profile_id: id,
          origin_country_iso: p.origin_country_iso!,
          destination_country_iso: p.destination_country_iso ?? '',
          destination_region: p.destination_region ?? 'none',
          primary_cost: { amount: Math.round(Number(p.primary_cost) * 100), divisor: 100, currency_code: 'USD' },
          secondary_cost: { amount: Math.round(Number(p.secondary_cost) * 100), divisor: 100, currency_code: 'USD' },
          shipping_carrier_id: p.shipping_carrier_id ? Number(p.shipping_carrier_id) : 0,
          mail_class: p.mail_class ?? null,
          min_delivery_days: p.min_delivery_days ? Number(p.min_delivery_days) : null,
          max_delivery_days: p.max_delivery_days ? Number(p.max_delivery_days) : null,
        },
      ],
    };
    setup.shipping.push(profile);
    return reply.code(201).send(profile);
  });

  app.post('/v3/application/shops/:shopId/policies/return', async (request, reply) => {
    const admitted = await admitCreate(request, reply, 'createShopReturnPolicy');
    if (!admitted) return reply;
    const { setup, shopId, parameters: p } = admitted;
    const problems = returnProblems(p);
    if (problems.length > 0) return refuse(reply, problems);
    const accepts = { accepts_returns: flag(p.accepts_returns!), accepts_exchanges: flag(p.accepts_exchanges!) };
    // ASSUMPTION: a deadline given with neither accepted is dropped (Etsy keeps a deadline only for an accepting policy).
    const deadline = accepts.accepts_returns || accepts.accepts_exchanges ? Number(p.return_deadline) : null;
    const same = setup.returns.find(
      (policy) =>
        policy.accepts_returns === accepts.accepts_returns &&
        policy.accepts_exchanges === accepts.accepts_exchanges &&
        policy.return_deadline === deadline,
    );
    // Etsy refuses a duplicate (listings.md §1.3: duplicates are consolidated). ASSUMPTION: as a 409 with this text.
    if (same)
      return reply.code(409).send({
        error: `The shop already has a return policy with these values (return_policy_id ${same.return_policy_id}).`,
      });
    const policy: ReturnPolicy = { return_policy_id: ++setup.lastId, shop_id: shopId, ...accepts, return_deadline: deadline };
    setup.returns.push(policy);
    return reply.code(201).send(policy);
  });

  app.post('/v3/application/shops/:shopId/readiness-state-definitions', async (request, reply) => {
    const admitted = await admitCreate(request, reply, 'createShopReadinessStateDefinition');
    if (!admitted) return reply;
    const { setup, shopId, parameters: p } = admitted;
    const problems = readinessProblems(p);
    if (problems.length > 0) return refuse(reply, problems);
    const values = {
      readiness_state: p.readiness_state as ReadinessState['readiness_state'],
      min_processing_time: Number(p.min_processing_time),
      max_processing_time: Number(p.max_processing_time),
      processing_time_unit: (p.processing_time_unit ?? 'days') as ReadinessState['processing_time_unit'],
    };
    const same = setup.readiness.find((state) =>
      (Object.keys(values) as (keyof typeof values)[]).every((key) => state[key] === values[key]),
    );
    // Etsy: "If an existing definition matches the input values, this endpoint will throw a Conflict error, please
    // refer to the Content-Location header" (listings.md §1.3).
    if (same)
      return reply
        .code(409)
        .header('content-location', `/v3/application/shops/${shopId}/readiness-state-definitions/${same.readiness_state_id}`)
        .send({ error: 'A processing profile with these values already exists.' });
    const state: ReadinessState = { readiness_state_id: ++setup.lastId, shop_id: shopId, ...values };
    setup.readiness.push(state);
    return reply.code(201).send(state);
  });
}
