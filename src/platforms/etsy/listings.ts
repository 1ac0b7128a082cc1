/** Etsy's listings capability (listings.md §1): the reads a site's listing settings and categories need. */
import { ETSY_WHEN_MADE, ETSY_WHO_MADE, LISTING_SETTINGS } from '../../domain/index.js';
import type { Clock } from '../../lib/clock.js';
import { type PlatformAnswer, type PlatformHttp, readAnswer } from '../http.js';
import type { ListingsCall, ListingsReads } from '../platform.js';
import type { EtsyConfig } from './connect.js';
import {
  parseReadinessStates,
  parseReturnPolicies,
  parseShippingProfiles,
  parseTaxonomy,
  parseTaxonomyProperties,
  readinessLabel,
  readRateLimits,
  returnPolicyLabel,
} from './listing-answers.js';
import { apiHeaders } from './requests.js';

/** Etsy's taxonomy changes a few times a year: read once an hour, not on every search of it. */
const TAXONOMY_TTL_MS = 3600_000;
/** Categories a search answers at most: enough to pick from, not the whole tree of several thousand. */
const SEARCH_RESULTS_MAX = 50;

const WHO_MADE_LABELS: Record<(typeof ETSY_WHO_MADE)[number], string> = {
  i_did: 'I did',
  collective: 'A member of my shop',
  someone_else: 'Another company or person',
};

/** `2010_2019` reads "2010–2019", `1990s` stays, `before_1700` reads "Before 1700". */
const whenMadeLabel = (value: string) =>
  value === 'made_to_order' ? 'Made to order' : value.replace(/^before_/, 'Before ').replace(/^([0-9]{4})_([0-9]{4})$/, '$1–$2');

export function createEtsyListingsAdapter(config: EtsyConfig, deps: { http: PlatformHttp; clock: Clock }) {
  const base = `${config.apiUrl}/v3/application`;
  let taxonomy: { readAt: number; nodes: ReturnType<typeof parseTaxonomy> } | null = null;

  async function get<T>(call: ListingsCall, path: string, parse: (status: number, body: unknown) => T): Promise<T> {
    const headers = apiHeaders({ clientId: config.clientId, sharedSecret: config.sharedSecret, accessToken: call.accessToken });
    const answer: PlatformAnswer = await deps.http.request(`${base}${path}`, { method: 'GET', headers, signal: call.signal });
    const limits = readRateLimits(answer.headers);
    if (limits) call.onLimits?.(limits);
    return readAnswer(answer, parse);
  }

  async function taxonomyOf(call: ListingsCall) {
    const now = deps.clock.now().getTime();
    if (!taxonomy || now - taxonomy.readAt > TAXONOMY_TTL_MS) {
      taxonomy = { readAt: now, nodes: await get(call, '/seller-taxonomy/nodes', parseTaxonomy) };
    }
    return taxonomy.nodes;
  }

  const shop = (call: ListingsCall) => `/shops/${encodeURIComponent(call.externalId)}`;

  return {
    platform: 'etsy',
    requiredSettings: LISTING_SETTINGS.etsy.required,

    async listingOptions(call) {
      const [profiles, policies, readiness] = await Promise.all([
        get(call, `${shop(call)}/shipping-profiles`, parseShippingProfiles),
        get(call, `${shop(call)}/policies/return`, parseReturnPolicies),
        get(call, `${shop(call)}/readiness-state-definitions`, parseReadinessStates),
      ]);
      return {
        shipping_profile_id: profiles.map((p) => ({
          value: String(p.shipping_profile_id),
          label: p.title || `Profile ${p.shipping_profile_id}`,
        })),
        return_policy_id: policies.map((p) => ({ value: String(p.return_policy_id), label: returnPolicyLabel(p) })),
        readiness_state_id: readiness.map((r) => ({ value: String(r.readiness_state_id), label: readinessLabel(r) })),
        who_made: ETSY_WHO_MADE.map((value) => ({ value, label: WHO_MADE_LABELS[value] })),
        when_made: ETSY_WHEN_MADE.map((value) => ({ value, label: whenMadeLabel(value) })),
      };
    },

    async categories(call, { q, parentId }) {
      const nodes = await taxonomyOf(call);
      const text = q?.trim().toLowerCase();
      const found = text
        ? nodes.filter((node) => node.name.toLowerCase().includes(text))
        : nodes.filter((node) => node.parentId === parentId);
      return found.slice(0, SEARCH_RESULTS_MAX).map(({ id, name, path, leaf }) => ({ id, name, path, leaf }));
    },

    async category(call, categoryId) {
      const found = (await taxonomyOf(call)).find((node) => node.id === categoryId);
      return found ? { id: found.id, name: found.name, path: found.path, leaf: found.leaf } : null;
    },

    async categoryAttributes(call, categoryId) {
      if (!/^[0-9]{1,18}$/.test(categoryId)) return null;
      return get(call, `/seller-taxonomy/nodes/${categoryId}/properties`, parseTaxonomyProperties);
    },
  } satisfies ListingsReads;
}
