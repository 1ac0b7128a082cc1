/**
 * The Listings Items API's reads (listings.md §3.7): getListingsItem (one SKU in the marketplaces asked for, 404
 * `NOT_FOUND` when it is in none) and searchListingsItems (the seller's SKUs, filtered and sorted as the model's
 * parameters say, `pageSize` up to 20, `pageToken` bound to the search's parameters, and at most 1,000 SKUs paged
 * through: "The maximum number of items (SKUs) that can be returned and paged through is 1000").
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { type Caller, listOf, type SpApiGuard } from './listings-guard.js';
import { INCLUDED_DATA, type IncludedData, presentItem } from './listings-present.js';
import type { ListingsStore, StoredListing } from './listings-store.js';
import { parentSkuOf } from './listings-submissions.js';
import { ITEM_PATH } from './listings-writes.js';

const SEARCH_PATH = '/listings/2021-08-01/items/:sellerId';
export const PAGEABLE_MAX = 1000;
const PAGE_SIZE_MAX = 20;
const IDENTIFIERS_MAX = 20;
const IDENTIFIER_TYPES = ['ASIN', 'EAN', 'FNSKU', 'GTIN', 'ISBN', 'JAN', 'MINSAN', 'SKU', 'UPC'] as const;

function includedOf(reply: FastifyReply, guard: SpApiGuard, caller: Caller): IncludedData[] | null {
  const included = listOf(caller.query.includedData, INCLUDED_DATA, ['summaries']);
  if (!included) void guard.fail(reply, 400, 'InvalidInput', `includedData may only hold ${INCLUDED_DATA.join(', ')}.`);
  return included;
}

export function registerListingsReads(app: FastifyInstance, guard: SpApiGuard, store: ListingsStore) {
  app.get(ITEM_PATH, async (request, reply) => {
    const { sellerId, sku } = request.params as { sellerId: string; sku: string };
    const caller = await guard.admit(request, reply, { operation: 'getListingsItem', fault: 'listing', sellerId });
    const marketplaces = caller && guard.marketplacesOf(reply, caller);
    const included = caller && marketplaces && includedOf(reply, guard, caller);
    if (!caller || !marketplaces || !included) return reply;
    const listings = marketplaces.flatMap((marketplace) => store.get(caller.account, marketplace.id, sku) ?? []);
    if (listings.length === 0)
      return guard.fail(reply, 404, 'NOT_FOUND', `SKU '${sku}' not found in marketplace ${marketplaces.map((each) => each.id).join(',')}`);
    return reply.send(presentItem(store, listings, included));
  });

  app.get(SEARCH_PATH, async (request, reply) => {
    const { sellerId } = request.params as { sellerId: string };
    const caller = await guard.admit(request, reply, { operation: 'searchListingsItems', fault: 'listings', sellerId });
    const marketplaces = caller && guard.marketplacesOf(reply, caller);
    const included = caller && marketplaces && includedOf(reply, guard, caller);
    if (!caller || !marketplaces || !included) return reply;
    const search = readSearch(caller.query);
    if (typeof search === 'string') return guard.fail(reply, 400, 'InvalidInput', search);
    const ids = new Set(marketplaces.map((marketplace) => marketplace.id));
    const skus = groupBySku(store.ofAccount(caller.account).filter((listing) => ids.has(listing.marketplaceId)));
    const found = sortSkus(
      skus.filter((listings) => matches(store, listings, search)),
      search,
    );
    const binding = bindingOf(caller.query);
    const offset = search.pageToken === undefined ? 0 : offsetOf(search.pageToken, binding);
    if (typeof offset === 'string') return guard.fail(reply, 400, 'InvalidInput', offset);
    const reachable = Math.min(found.length, PAGEABLE_MAX);
    const page = found.slice(offset, Math.min(offset + search.pageSize, reachable));
    const next = offset + search.pageSize < reachable ? tokenOf(offset + search.pageSize, binding) : undefined;
    const previous = offset > 0 ? tokenOf(Math.max(0, offset - search.pageSize), binding) : undefined;
    return reply.send({
      numberOfResults: found.length,
      ...(next || previous
        ? { pagination: { ...(next ? { nextToken: next } : {}), ...(previous ? { previousToken: previous } : {}) } }
        : {}),
      items: page.map((listings) => presentItem(store, listings, included)),
    });
  });
}

interface Search {
  identifiers?: string[];
  identifiersType?: (typeof IDENTIFIER_TYPES)[number];
  /** The children of this parent SKU alone (the sandbox has no package hierarchies: a search by one finds nothing). */
  variationParentSku?: string;
  packages: boolean;
  dates: { field: 'createdAt' | 'updatedAt'; after: boolean; at: number }[];
  withIssueSeverity?: string[];
  withStatus?: string[];
  withoutStatus?: string[];
  sortBy: 'sku' | 'createdDate' | 'lastUpdatedDate';
  descending: boolean;
  pageSize: number;
  pageToken?: string;
}

/** The search's parameters, or why they are refused (ASSUMPTION: the wording; the rules are the model's). */
function readSearch(query: Record<string, string>): Search | string {
  const list = (name: string) => (query[name] === undefined ? undefined : query[name]!.split(',').filter(Boolean));
  const identifiers = list('identifiers');
  const type = query.identifiersType as Search['identifiersType'];
  if ((identifiers === undefined) !== (type === undefined)) return "'identifiers' and 'identifiersType' must be given together.";
  if (type !== undefined && !IDENTIFIER_TYPES.includes(type)) return `'identifiersType' must be one of ${IDENTIFIER_TYPES.join(', ')}.`;
  if (identifiers && identifiers.length > IDENTIFIERS_MAX) return `At most ${IDENTIFIERS_MAX} 'identifiers' can be given.`;
  const related = ['variationParentSku', 'packageHierarchySku'].filter((name) => query[name] !== undefined);
  if (related.length + (identifiers ? 1 : 0) > 1)
    return "Only one of 'identifiers', 'variationParentSku' and 'packageHierarchySku' can be given.";
  const dates: Search['dates'] = [];
  for (const [name, field, after] of [
    ['createdAfter', 'createdAt', true],
    ['createdBefore', 'createdAt', false],
    ['lastUpdatedAfter', 'updatedAt', true],
    ['lastUpdatedBefore', 'updatedAt', false],
  ] as const) {
    if (query[name] === undefined) continue;
    const at = Date.parse(query[name]!);
    if (Number.isNaN(at)) return `'${name}' must be an ISO 8601 date-time.`;
    dates.push({ field, after, at });
  }
  const enumList = (name: string, allowed: readonly string[]) => {
    const values = list(name);
    return values && !values.every((value) => allowed.includes(value)) ? `'${name}' may only hold ${allowed.join(', ')}.` : values;
  };
  const severity = enumList('withIssueSeverity', ['WARNING', 'ERROR']);
  const withStatus = enumList('withStatus', ['BUYABLE', 'DISCOVERABLE']);
  const withoutStatus = enumList('withoutStatus', ['BUYABLE', 'DISCOVERABLE']);
  for (const each of [severity, withStatus, withoutStatus]) if (typeof each === 'string') return each;
  const sortBy = (query.sortBy ?? 'lastUpdatedDate') as Search['sortBy'];
  if (!['sku', 'createdDate', 'lastUpdatedDate'].includes(sortBy)) return "'sortBy' must be sku, createdDate or lastUpdatedDate.";
  const order = query.sortOrder ?? 'DESC';
  if (order !== 'ASC' && order !== 'DESC') return "'sortOrder' must be ASC or DESC.";
  const pageSize = query.pageSize === undefined ? 10 : Number(query.pageSize);
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > PAGE_SIZE_MAX)
    return `'pageSize' must be a whole number from 1 to ${PAGE_SIZE_MAX}.`;
  return {
    ...(identifiers ? { identifiers, identifiersType: type } : {}),
    ...(query.variationParentSku !== undefined ? { variationParentSku: query.variationParentSku } : {}),
    packages: query.packageHierarchySku !== undefined,
    dates,
    ...(severity ? { withIssueSeverity: severity as string[] } : {}),
    ...(withStatus ? { withStatus: withStatus as string[] } : {}),
    ...(withoutStatus ? { withoutStatus: withoutStatus as string[] } : {}),
    sortBy,
    descending: order === 'DESC',
    pageSize,
    ...(query.pageToken !== undefined ? { pageToken: query.pageToken } : {}),
  };
}

/** The seller's listings grouped by SKU, in the order the SKUs were first listed. */
function groupBySku(listings: readonly StoredListing[]): StoredListing[][] {
  const groups = new Map<string, StoredListing[]>();
  for (const listing of listings) groups.set(listing.sku, [...(groups.get(listing.sku) ?? []), listing]);
  return [...groups.values()];
}

/** The values a SKU is found by for an identifier type. */
function identifiersOf(listing: StoredListing, type: NonNullable<Search['identifiersType']>): string[] {
  if (type === 'SKU') return [listing.sku];
  if (type === 'ASIN') return [listing.asin];
  const ids = Array.isArray(listing.attributes.externally_assigned_product_identifier)
    ? (listing.attributes.externally_assigned_product_identifier as { type?: string; value?: string }[])
    : [];
  return ids.filter((id) => id.type?.toUpperCase() === type && typeof id.value === 'string').map((id) => id.value!);
}

function matches(store: ListingsStore, listings: readonly StoredListing[], search: Search): boolean {
  if (search.packages) return false;
  if (search.variationParentSku !== undefined && !listings.some((listing) => parentSkuOf(listing.attributes) === search.variationParentSku))
    return false;
  const { identifiers, identifiersType } = search;
  if (
    identifiers &&
    identifiersType &&
    !listings.some((listing) => identifiersOf(listing, identifiersType).some((id) => identifiers.includes(id)))
  )
    return false;
  if (!search.dates.every(({ field, after, at }) => listings.some((listing) => (after ? listing[field] >= at : listing[field] <= at))))
    return false;
  const verdicts = listings.map((listing) => store.verdictOf(listing));
  const statuses = new Set(verdicts.flatMap((verdict) => verdict.status));
  if (search.withStatus && !search.withStatus.some((status) => statuses.has(status as 'BUYABLE'))) return false;
  if (search.withoutStatus?.some((status) => statuses.has(status as 'BUYABLE'))) return false;
  const severities = new Set(verdicts.flatMap((verdict) => verdict.issues.map((issue) => issue.severity)));
  return !search.withIssueSeverity || search.withIssueSeverity.some((severity) => severities.has(severity as 'ERROR'));
}

function sortSkus(groups: StoredListing[][], search: Search): StoredListing[][] {
  const keyOf = (listings: StoredListing[]): string | number =>
    search.sortBy === 'sku'
      ? listings[0]!.sku
      : search.sortBy === 'createdDate'
        ? Math.min(...listings.map((listing) => listing.createdAt))
        : Math.max(...listings.map((listing) => listing.updatedAt));
  const sign = search.descending ? -1 : 1;
  // Stable: SKUs with the same key keep the order they were listed in.
  return groups
    .map((listings, index) => ({ listings, index, key: keyOf(listings) }))
    .sort((a, b) => (a.key < b.key ? -sign : a.key > b.key ? sign : a.index - b.index))
    .map((each) => each.listings);
}

/** What a page token is bound to: the search's parameters, `pageToken` aside. */
function bindingOf(query: Record<string, string>): string {
  const entries = Object.entries(query)
    .filter(([name]) => name !== 'pageToken')
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return createHash('sha256').update(JSON.stringify(entries)).digest('base64url').slice(0, 16);
}

/** A page token: opaque to clients, the page's offset and the search's binding (base64url JSON, `{o, b}`). */
export const tokenOf = (offset: number, binding: string) => Buffer.from(JSON.stringify({ o: offset, b: binding })).toString('base64url');

/**
 * The offset of a page token, or why it is refused: the parameters must be the first page's, as Amazon answers
 * (amzn/selling-partner-api-models#4977); ASSUMPTION: a token past the 1,000th SKU is refused the same way.
 */
function offsetOf(token: string, binding: string): number | string {
  let decoded: { o?: unknown; b?: unknown } = {};
  try {
    decoded = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as typeof decoded;
  } catch {
    return "Invalid 'pageToken'.";
  }
  if (typeof decoded.o !== 'number' || !Number.isInteger(decoded.o) || decoded.o < 0) return "Invalid 'pageToken'.";
  if (decoded.b !== binding) return "Search parameters do not match the provided 'pageToken'.";
  if (decoded.o >= PAGEABLE_MAX) return `At most ${PAGEABLE_MAX} items can be paged through; use the All Listings report for more.`;
  return decoded.o;
}
