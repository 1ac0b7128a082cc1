/**
 * A sandbox seller's own compliance entities and size charts, and the three searches that list them (TikTok's docs in
 * lazykern/ecommerce-api-docs `data/raw/tiktok/api-reference/products/`, snapshot eba059e):
 * `POST /product/202501/compliance/responsible_persons/search` and `…/manufacturers/search` ("Local sellers operating
 * in EU countries"; each entity's details in `regional_profiles` per locale) and `POST /product/202407/sizecharts/search`
 * (the seller's size chart templates). All three are the seller's, not a shop's: their docs take no `shop_cipher`.
 * `page_size` 1 to 100 is required; `page_token` pages on; the body filters by ids or a keyword.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TikTokError } from './errors.js';
import { PRODUCT_ERRORS as E } from './product-errors.js';
import type { AdmittedSeller, ProductGuard } from './product-guard.js';

const PAGE_SIZE_MAX = 100;
const SIZE_CHART_IDS_MAX = 50;
const KEYWORD_MAX = 200;
/** The EU locales the compliance searches show details in (their docs' possible values). */
const EU_LOCALES: ReadonlySet<string> = new Set(['de-DE', 'en-IE', 'es-ES', 'fr-FR', 'it-IT']);

const padded = (account: number) => String(account).padStart(6, '0');

/** A seller's responsible persons: two, in German and English, ids as TikTok's 24 hex digits. */
export function responsiblePersonsOf(account: number) {
  const person = (n: number, name: string, email: string, street: string) => ({
    id: `66d3cbe4d9c8b09d${padded(account)}0${n}`,
    regional_profiles: ['de-DE', 'en-IE'].map((locale) => ({
      locale,
      name,
      email,
      phone_number: { country_code: '+49', local_number: `3012345${n}0` },
      address: {
        street_address_line1: street,
        street_address_line2: '',
        district: '',
        city: '',
        postal_code: '10115',
        province: '',
        country: 'DE',
      },
    })),
  });
  return [
    person(1, 'Sandbox Compliance GmbH', `compliance-${account}@sandbox.example`, 'Invalidenstraße 1, 10115 Berlin'),
    person(2, 'EU Representative Services GmbH', `eu-rep-${account}@sandbox.example`, 'Chausseestraße 2, 10115 Berlin'),
  ];
}

/** A seller's manufacturers: two, in German and English. */
export function manufacturersOf(account: number) {
  const maker = (n: number, name: string, trade: string, address: string) => ({
    id: `67a1c0e2b4d5f60e${padded(account)}0${n}`,
    regional_profiles: ['de-DE', 'en-IE'].map((locale) => ({
      locale,
      name,
      registered_trade_name: trade,
      email: `maker-${n}-${account}@sandbox.example`,
      phone_number: { availability: 'AVAILABLE', country_code: '+49', local_number: `4012345${n}0` },
      address,
    })),
  });
  return [
    maker(1, 'Sandbox Ceramics Manufacturing GmbH', 'Sandbox Ceramics', 'Töpferweg 3, 20095 Hamburg, Germany'),
    maker(2, 'Sandbox Textiles Ltd', 'Sandbox Threads', '4 Mill Lane, Manchester M1 1AA, United Kingdom'),
  ];
}

/** A seller's size chart templates, made with Seller Center's size chart tool: two, ids as TikTok's 19 digits. */
export function sizeChartsOf(account: number) {
  const chart = (n: number, name: string) => ({
    template_id: `73620273858${padded(account)}0${n}`,
    template_name: name,
    images: [
      {
        uri: `tos-maliva-i-o3syd03w52-us/sandbox-size-chart-${account}-${n}`,
        url: `https://p16-oec-va.ibyteimg.com/tos-maliva-i-o3syd03w52-us/sandbox-size-chart-${account}-${n}~tplv-o3syd03w52-origin-jpeg.jpeg`,
        locale: 'en-US',
      },
    ],
  });
  return [chart(1, 'Unisex tops'), chart(2, "Women's tops")];
}

/** The page `query` asks for (`page_size`, `page_token`), or the error refusing it. */
function pageOf(query: Record<string, string>, errors: { size: TikTokError; token: TikTokError }) {
  const size = Number(query.page_size);
  if (!/^[0-9]{1,3}$/.test(query.page_size ?? '') || size < 1 || size > PAGE_SIZE_MAX) return errors.size;
  const offset = query.page_token ? Number(Buffer.from(query.page_token, 'base64url').toString()) : 0;
  if (!Number.isInteger(offset) || offset < 0) return errors.token;
  return { size, offset };
}

/** The page of `found`, as the three searches answer it under `key`. */
function paged(found: readonly unknown[], key: string, page: { size: number; offset: number }) {
  const next = page.offset + page.size < found.length ? Buffer.from(String(page.offset + page.size)).toString('base64url') : '';
  return { [key]: found.slice(page.offset, page.offset + page.size), total_count: found.length, next_page_token: next };
}

const strings = (value: unknown) => (Array.isArray(value) ? value.filter((each): each is string => typeof each === 'string') : null);

/**
 * Search Responsible Persons and Search Manufacturers alike: refused for a cross-border ("global") seller; a local
 * seller outside the EU has none (ASSUMPTION: TikTok documents the searches for EU local sellers only); `locales`
 * picks the profiles shown (none given: the seller's own, de-DE here).
 */
function searchEntities(
  admitted: AdmittedSeller,
  idsField: string,
  all: (account: number) => { id: string; regional_profiles: { locale: string; name: string; email: string }[] }[],
): TikTokError | { page: { size: number; offset: number }; found: unknown[] } {
  const { grant, shops, query, body } = admitted;
  if (shops.some((shop) => shop.seller_type === 'CROSS_BORDER')) return E.complianceGlobalSeller;
  const page = pageOf(query, { size: E.compliancePageSize, token: E.compliancePageToken });
  if (!('offset' in page)) return page;
  const ids = strings(body[idsField]);
  if (ids && ids.length > page.size) return E.complianceIdsOverPageSize;
  const locales = strings(body.locales) ?? ['de-DE'];
  if (locales.some((locale) => !EU_LOCALES.has(locale))) return E.complianceLocale;
  const keyword = typeof body.keyword === 'string' ? body.keyword.slice(0, KEYWORD_MAX).toLowerCase() : '';
  const entities = grant.market ? all(grant.account) : [];
  const found = entities
    .filter((entity) => (ids && ids.length > 0 ? ids.includes(entity.id) : true))
    .filter((entity) => !keyword || entity.regional_profiles.some((p) => `${p.name} ${p.email}`.toLowerCase().includes(keyword)))
    .map((entity) => ({ ...entity, regional_profiles: entity.regional_profiles.filter((p) => locales.includes(p.locale)) }));
  return { page, found };
}

/** Registers the three searches, signed and paced as every call is (product-guard.ts), without a shop. */
export function registerComplianceSearches(app: FastifyInstance, guard: ProductGuard) {
  const answer = (reply: FastifyReply, key: string, result: TikTokError | { page: { size: number; offset: number }; found: unknown[] }) =>
    'page' in result ? guard.succeed(reply, paged(result.found, key, result.page)) : guard.fail(reply, result);

  app.post('/product/202501/compliance/responsible_persons/search', async (request, reply) => {
    const admitted = await guard.admitSeller(request, reply, { operation: 'search_responsible_persons' });
    if (!admitted) return reply;
    return answer(reply, 'responsible_persons', searchEntities(admitted, 'responsible_person_ids', responsiblePersonsOf));
  });

  app.post('/product/202501/compliance/manufacturers/search', async (request, reply) => {
    const admitted = await guard.admitSeller(request, reply, { operation: 'search_manufacturers' });
    if (!admitted) return reply;
    return answer(reply, 'manufacturers', searchEntities(admitted, 'manufacturer_ids', manufacturersOf));
  });

  app.post('/product/202407/sizecharts/search', async (request, reply) => {
    const admitted = await guard.admitSeller(request, reply, { operation: 'search_size_charts' });
    if (!admitted) return reply;
    const page = pageOf(admitted.query, { size: E.sizeChartPageSize, token: E.sizeChartPageToken });
    if (!('offset' in page)) return guard.fail(reply, page);
    const ids = strings(admitted.body.ids);
    if (ids && ids.length > SIZE_CHART_IDS_MAX)
      return guard.fail(reply, E.fieldInvalid('ids', `can hold at most ${SIZE_CHART_IDS_MAX} ids.`));
    const keyword = typeof admitted.body.keyword === 'string' ? admitted.body.keyword.toLowerCase() : '';
    const found = sizeChartsOf(admitted.grant.account)
      .filter((chart) => (ids && ids.length > 0 ? ids.includes(chart.template_id) : true))
      .filter((chart) => !keyword || chart.template_name.toLowerCase().includes(keyword));
    return guard.succeed(reply, paged(found, 'size_chart', page));
  });
}
