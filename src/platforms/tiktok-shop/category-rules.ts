/**
 * A category's rules for a shop (Get Category Rules, listings.md §2.3) and the choices they ask of the seller, as
 * attributes of the publish form: a size chart template where the category takes one (`size_chart`, a select of the
 * seller's templates from Search Size Charts), and in a local seller's EU shop, or wherever the rules require them, the
 * responsible persons and manufacturers (`responsible_person_ids`, `manufacturer_ids`, multiselects of the seller's own
 * from Search Responsible Persons and Search Manufacturers), and each certification a file (`certification:<id>`, a
 * PDF or an image uploaded with POST /files). The rules are read as the attributes are (an hour per shop
 * and category: TikTok gives them "based on your shop's location"); the seller's lists for ten minutes per shop, as
 * they are made in Seller Center while a seller publishes. The three searches are the seller's, not a shop's: TikTok's docs take no `shop_cipher` for them
 * (lazykern/ecommerce-api-docs `data/raw/tiktok/api-reference/products/search-*.spec.json`, `is_shop_chiper_exist: false`).
 */
import type { CategoryAttribute } from '../../domain/index.js';
import type { Clock } from '../../lib/clock.js';
import { readCache } from '../../lib/read-cache.js';
import { ListingRefused } from '../contracts/errors.js';
import type { ListingsCall } from '../contracts/listings.js';
import { CERTIFICATION_PREFIX, MANUFACTURERS_ATTRIBUTE, RESPONSIBLE_PERSONS_ATTRIBUTE, SIZE_CHART_ATTRIBUTE } from './listing-requests.js';
import { Manufacturers, ResponsiblePersons, Rules, reader, SizeCharts, type TikTokEntity, type TikTokRules } from './listing-responses.js';

/** The adapter's signed call, as the rules need it: `shopless` sends no `shop_cipher`. */
export type RulesSend = <T>(
  call: ListingsCall,
  method: 'GET' | 'POST',
  path: string,
  parse: (status: number, body: unknown) => T,
  options?: { query?: Record<string, string>; json?: unknown; shopless?: boolean },
) => Promise<T>;

type Choice = { value: string; label: string };

const RULES_TTL_MS = 3600_000;
const LISTS_TTL_MS = 10 * 60_000;
const PAGE_SIZE = '100';
/** Pages of a seller's list read at most (500 entries): a seller with more chooses among the first. */
const PAGES_MAX = 5;
/** The locale of each EU market, for the details of a responsible person or manufacturer in the shop's language. */
const LOCALES: Readonly<Record<string, string>> = { DE: 'de-DE', FR: 'fr-FR', ES: 'es-ES', IT: 'it-IT', IE: 'en-IE' };

/**
 * A local seller's shop in the EU: where TikTok asks for responsible persons and manufacturers (its GPSR changelog:
 * "applicable to local sellers in the EU market"; the searches are for "Local sellers operating in EU countries").
 */
const isEuLocal = (call: ListingsCall) =>
  call.data.seller_type === 'LOCAL' && typeof call.data.region === 'string' && call.data.region in LOCALES;

/** A responsible person or manufacturer as a choice: its name (and email) in the shop's locale where it has one. */
function entityChoice(entity: TikTokEntity, region: string | null): Choice {
  const profiles = entity.regional_profiles ?? [];
  const profile = profiles.find((each) => region !== null && each.locale === LOCALES[region]) ?? profiles[0] ?? entity;
  const name = profile.name || entity.id;
  return { value: entity.id, label: profile.email ? `${name} (${profile.email})` : name };
}

export function createCategoryRules(send: RulesSend, clock: Clock) {
  const rulesCache = readCache<TikTokRules | null>(clock, RULES_TTL_MS);
  const lists = readCache<Choice[]>(clock, LISTS_TTL_MS);
  const shopKey = (call: ListingsCall) => String(call.data.cipher);
  const regionOf = (call: ListingsCall) => (typeof call.data.region === 'string' ? call.data.region : null);

  /** The category's rules for the shop; null for a category TikTok refuses them for (unknown, not a leaf). */
  async function rulesOf(call: ListingsCall, categoryId: string): Promise<TikTokRules | null> {
    return rulesCache.get(`${shopKey(call)}:${categoryId}`, async () => {
      try {
        return await send(call, 'GET', `/product/202309/categories/${categoryId}/rules`, reader(Rules));
      } catch (error) {
        if (!(error instanceof ListingRefused)) throw error;
        return null;
      }
    });
  }

  /** Every page of one of the seller's lists (at most PAGES_MAX), as choices; cached per shop. */
  async function sellerList(
    call: ListingsCall,
    kind: string,
    read: (token: string | null) => Promise<{ choices: Choice[]; next: string | null }>,
  ) {
    return lists.get(`${shopKey(call)}:${kind}`, async () => {
      const choices: Choice[] = [];
      let token: string | null = null;
      for (let page = 0; page < PAGES_MAX; page++) {
        const answer = await read(token);
        choices.push(...answer.choices);
        token = answer.next;
        if (!token) break;
      }
      return choices;
    });
  }

  const query = (token: string | null) => ({ page_size: PAGE_SIZE, ...(token ? { page_token: token } : {}) });
  const sizeCharts = (call: ListingsCall) =>
    sellerList(call, 'size_charts', async (token) => {
      const page = await send(call, 'POST', '/product/202407/sizecharts/search', reader(SizeCharts), {
        query: query(token),
        json: {},
        shopless: true,
      });
      const choices = (page.size_chart ?? []).map((chart) => ({
        value: chart.template_id,
        label: chart.template_name || chart.template_id,
      }));
      return { choices, next: page.next_page_token || null };
    });
  const responsiblePersons = (call: ListingsCall) =>
    sellerList(call, 'responsible_persons', async (token) => {
      const path = '/product/202501/compliance/responsible_persons/search';
      const page = await send(call, 'POST', path, reader(ResponsiblePersons), { query: query(token), json: {}, shopless: true });
      return {
        choices: (page.responsible_persons ?? []).map((each) => entityChoice(each, regionOf(call))),
        next: page.next_page_token || null,
      };
    });
  const manufacturers = (call: ListingsCall) =>
    sellerList(call, 'manufacturers', async (token) => {
      const path = '/product/202501/compliance/manufacturers/search';
      const page = await send(call, 'POST', path, reader(Manufacturers), { query: query(token), json: {}, shopless: true });
      return { choices: (page.manufacturers ?? []).map((each) => entityChoice(each, regionOf(call))), next: page.next_page_token || null };
    });

  return {
    rulesOf,
    /** The rules last read for the shop and category, without a call (the engine reads the attributes before it checks). */
    knownRules: (call: ListingsCall, categoryId: string) => rulesCache.known(`${shopKey(call)}:${categoryId}`) ?? null,

    /**
     * The attributes the rules add: a size chart where the category takes one, the responsible persons and
     * manufacturers in a local seller's EU shop or where the rules require them, and a file per certification; each
     * required as the rules say.
     */
    async attributesOf(call: ListingsCall, rules: TikTokRules | null): Promise<CategoryAttribute[]> {
      const added: CategoryAttribute[] = [];
      if (!rules) return added;
      const eu = isEuLocal(call);
      if (rules.size_chart?.is_supported)
        added.push({
          name: SIZE_CHART_ATTRIBUTE,
          label: 'Size chart',
          required: rules.size_chart.is_required === true,
          type: 'select',
          values: await sizeCharts(call),
        });
      if (eu || rules.responsible_person?.is_required)
        added.push({
          name: RESPONSIBLE_PERSONS_ATTRIBUTE,
          label: 'EU responsible person',
          required: rules.responsible_person?.is_required === true,
          type: 'multiselect',
          values: await responsiblePersons(call),
        });
      if (eu || rules.manufacturer?.is_required)
        added.push({
          name: MANUFACTURERS_ATTRIBUTE,
          label: 'Manufacturer',
          required: rules.manufacturer?.is_required === true,
          type: 'multiselect',
          values: await manufacturers(call),
        });
      // Each certification, a file of the seller's (POST /files): required when always required; one required by a
      // condition the listing's attributes meet is checked with them (listing-rules.ts).
      for (const certification of rules.product_certifications ?? [])
        added.push({
          name: `${CERTIFICATION_PREFIX}${certification.id}`,
          label: certification.name || `Certificate ${certification.id}`,
          required: certification.is_required === true,
          type: 'file',
          values: [],
        });
      return added;
    },
  };
}

export type CategoryRules = ReturnType<typeof createCategoryRules>;
