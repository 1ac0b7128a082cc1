/**
 * Amazon's Listings Items, Product Type Definitions and Reports answers (listings.md §3.2–3.7), parsed without I/O:
 * what an SP-API error means for a listing, a submission (ACCEPTED, INVALID with Amazon's issues, VALID), a product
 * type's definition and what its JSON Schema says of each attribute, a listings item and the state of its SKU in
 * Storelink's words, and the All Listings report's steps.
 */
import Type, { type Static } from 'typebox';
import type { ListingIssue, ListingStatus } from '../../domain/index.js';
import { isPassingFailure } from '../../lib/outbound-http.js';
import { ListingRefused, PlatformError } from '../contracts/errors.js';
import { PLATFORM_FULFILLED } from '../contracts/listings.js';
import { parseBody } from '../parse.js';
import { type AttributeShape, HANDLING } from './listing-requests.js';
import { isGrantRefused, spApiErrorOf } from './responses.js';

export const platformIssue = (code: string, message: string, field: string | null, severity: ListingIssue['severity'] = 'error') =>
  ({ severity, code, message, field, source: 'platform' }) satisfies ListingIssue;

/**
 * An error answer: 429 and 5xx are passing (the engine retries after `Retry-After`); a refused grant (a 401, or a 403
 * whose message or details are about the access token: isGrantRefused) is the seller's; any other 403 ("Access to
 * requested resource is denied." without details) is Storelink's app lacking a role (the operator's, as connect.ts
 * reads the Sellers API); a 400 on a call about one listing refuses the listing in Amazon's words; any other answer is
 * the app's.
 */
export function failure(status: number, body: unknown, aboutListing: boolean): Error {
  const error = spApiErrorOf(status, body);
  const { code, message, said } = error;
  if (isPassingFailure(status)) return new PlatformError('unavailable', `Amazon could not complete the request (${said})`);
  if (isGrantRefused(status, error)) return new PlatformError('rejected', `Amazon refused the authorization (${said})`);
  if (status === 400 && aboutListing)
    return new ListingRefused([platformIssue(code, message || `Amazon refused the request (${code}).`, null)]);
  return new PlatformError('misconfigured', `Amazon refused Storelink's request (HTTP ${status}, ${said})`);
}

/** A reader of one call's answer, for readAnswer: the body of the shape, or the failure the status means. */
export const reader =
  <T extends ReturnType<typeof Type.Object>>(schema: T, aboutListing = false) =>
  (status: number, body: unknown): Static<T> => {
    if (status >= 400) throw failure(status, body, aboutListing);
    const parsed = parseBody(schema, body);
    if (!parsed) throw new PlatformError('unavailable', `Amazon answered with data of an unexpected shape (HTTP ${status})`);
    return parsed;
  };

/** A read that answers null when Amazon has no such thing (404, as getListingsItem and getDefinitionsProductType answer). */
export const readerOrGone =
  <T extends ReturnType<typeof Type.Object>>(schema: T, aboutListing = false) =>
  (status: number, body: unknown): Static<T> | null =>
    status === 404 ? null : reader(schema, aboutListing)(status, body);

const AmazonIssue = Type.Object({
  code: Type.String(),
  message: Type.String(),
  severity: Type.String(),
  attributeNames: Type.Optional(Type.Array(Type.String())),
  categories: Type.Optional(Type.Array(Type.String())),
});
export type AmazonIssueShape = Static<typeof AmazonIssue>;

export const Submission = Type.Object({
  sku: Type.String(),
  status: Type.Union([Type.Literal('ACCEPTED'), Type.Literal('INVALID'), Type.Literal('VALID')]),
  submissionId: Type.String(),
  issues: Type.Optional(Type.Array(AmazonIssue)),
  identifiers: Type.Optional(Type.Array(Type.Object({ marketplaceId: Type.String(), asin: Type.Optional(Type.String()) }))),
});
export type AmazonSubmission = Static<typeof Submission>;

/** Where an issue's attribute is: `attributes.<name>` (the first it names), or null. */
const fieldOf = (issue: AmazonIssueShape) => (issue.attributeNames?.[0] ? `attributes.${issue.attributeNames[0]}` : null);

/** Amazon's issues in Storelink's words: ERROR an error, WARNING and INFO warnings; `prefix` names the SKU of a product of several. */
export function issuesOf(issues: readonly AmazonIssueShape[] | undefined, prefix = ''): ListingIssue[] {
  return (issues ?? []).map((issue) =>
    platformIssue(issue.code, `${prefix}${issue.message}`, fieldOf(issue), issue.severity === 'ERROR' ? 'error' : 'warning'),
  );
}

/** A submission Amazon refused (INVALID): its issues refuse the listing (nothing changed on Amazon). */
export function refusedSubmission(submission: AmazonSubmission, prefix = ''): ListingRefused | null {
  if (submission.status !== 'INVALID') return null;
  const issues = issuesOf(submission.issues, prefix).filter((issue) => issue.severity === 'error');
  return new ListingRefused(
    issues.length > 0 ? issues : [platformIssue('INVALID', `${prefix}Amazon refused the listing without saying why.`, null)],
  );
}

/** A submission for a SKU that is not there (patch or delete): the sandbox's and Amazon's NOT_FOUND issue. */
export const isNotFound = (submission: AmazonSubmission) =>
  submission.status === 'INVALID' && (submission.issues ?? []).some((issue) => issue.code === 'NOT_FOUND');

export const ProductTypes = Type.Object({
  productTypes: Type.Array(Type.Object({ name: Type.String(), displayName: Type.Optional(Type.String()) })),
});

export const Definition = Type.Object({
  productType: Type.String(),
  displayName: Type.Optional(Type.String()),
  schema: Type.Object({ link: Type.Object({ resource: Type.String({ minLength: 1 }) }), checksum: Type.String() }),
});
export type AmazonDefinition = Static<typeof Definition>;

/** A product type's JSON Schema, as far as Storelink reads it: its attributes and which it requires. */
export const ProductTypeSchema = Type.Object({
  properties: Type.Record(Type.String(), Type.Unknown()),
  required: Type.Optional(Type.Array(Type.String())),
});

interface PropertySchema {
  title?: string;
  type?: string;
  items?: { properties?: Record<string, ValueSchema>; required?: string[] };
}
interface ValueSchema {
  type?: string;
  enum?: unknown[];
  enumNames?: unknown[];
  default?: unknown;
}

/**
 * What the schema says of each attribute: its title, and for those a listing gives with one `value` (text, a number, a
 * choice, yes or no), the value's type, its choices, and the language tag its values carry (the schema's default).
 */
export function shapesOf(schema: Static<typeof ProductTypeSchema>) {
  const required = new Set(schema.required ?? []);
  const titles: Record<string, string> = {};
  const shapes: Record<string, AttributeShape> = {};
  for (const [name, raw] of Object.entries(schema.properties)) {
    const property = (raw ?? {}) as PropertySchema;
    titles[name] = property.title ?? name;
    const value = property.items?.properties?.value;
    const type = value?.type;
    if (!value || (type !== 'string' && type !== 'number' && type !== 'integer' && type !== 'boolean')) continue;
    const tag = property.items?.properties?.language_tag;
    const languageTag = tag ? String(tag.default ?? tag.enum?.[0] ?? '') || null : null;
    const strings = (list: unknown[] | undefined) => (Array.isArray(list) ? list.map(String) : null);
    shapes[name] = {
      title: titles[name],
      valueType: type,
      languageTag,
      enum: strings(value.enum),
      enumNames: strings(value.enumNames),
      required: required.has(name),
    };
  }
  return { shapes, titles, properties: new Set(Object.keys(schema.properties)), required, themes: themesOf(schema.properties) };
}

/**
 * The variation themes a product type offers: its schema's `variation_theme` `name` enum (the shape Amazon's schemas
 * give it, amzn/selling-partner-api-models issue 5166's `variation_theme: [{name}]`); none when it has no variations.
 */
function themesOf(properties: Record<string, unknown>): string[] {
  const theme = properties.variation_theme as { items?: { properties?: { name?: { enum?: unknown[] } } } } | undefined;
  const names = theme?.items?.properties?.name?.enum;
  return Array.isArray(names) ? names.filter((name): name is string => typeof name === 'string') : [];
}

const Summary = Type.Object({
  marketplaceId: Type.String(),
  asin: Type.Optional(Type.String()),
  productType: Type.Optional(Type.String()),
  conditionType: Type.Optional(Type.String()),
  status: Type.Array(Type.String()),
  itemName: Type.Optional(Type.String()),
  lastUpdatedDate: Type.Optional(Type.String()),
  mainImage: Type.Optional(Type.Object({ link: Type.String() })),
});

export const Item = Type.Object({
  sku: Type.String(),
  summaries: Type.Optional(Type.Array(Summary)),
  attributes: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  issues: Type.Optional(Type.Array(AmazonIssue)),
  offers: Type.Optional(
    Type.Array(
      Type.Object({
        marketplaceId: Type.String(),
        price: Type.Object({ currencyCode: Type.String(), amount: Type.String() }),
        audience: Type.Optional(Type.Object({ value: Type.Optional(Type.String()) })),
      }),
    ),
  ),
  fulfillmentAvailability: Type.Optional(
    Type.Array(Type.Object({ fulfillmentChannelCode: Type.String(), quantity: Type.Optional(Type.Integer()) })),
  ),
  // The Listings Items model's ItemRelationshipsByMarketplace: a family's parent names its children here.
  relationships: Type.Optional(
    Type.Array(
      Type.Object({
        marketplaceId: Type.String(),
        relationships: Type.Array(
          Type.Object({
            type: Type.String(),
            childSkus: Type.Optional(Type.Array(Type.String())),
            parentSkus: Type.Optional(Type.Array(Type.String())),
          }),
        ),
      }),
    ),
  ),
});
export type AmazonItem = Static<typeof Item>;
/** searchListingsItems' answer (listings.md §3.7): a page of items, and the token of the next page. */
export const SearchResults = Type.Object({
  numberOfResults: Type.Optional(Type.Integer()),
  pagination: Type.Optional(Type.Object({ nextToken: Type.Optional(Type.String()) })),
  items: Type.Array(Item),
});

/** The data getListingsItem is asked for: enough to tell the SKU's state and, for an import, its product and family. */
export const ITEM_DATA = 'summaries,attributes,issues,offers,fulfillmentAvailability,relationships';

/** A family's parent SKU as getListingsItem answers it (its `parentage_level` is parent). */
export const isParentItem = (item: AmazonItem) => levelOf(item) === 'parent';

/** The parent SKU a family's child names (`child_parent_sku_relationship`), or null. */
export function parentOfItem(item: AmazonItem): string | null {
  if (levelOf(item) !== 'child') return null;
  const relationship = (item.attributes?.child_parent_sku_relationship as { parent_sku?: unknown }[] | undefined)?.[0];
  return typeof relationship?.parent_sku === 'string' ? relationship.parent_sku : null;
}

/** The children a parent's relationships name in the marketplace, in Amazon's order. */
export const childrenOfItem = (item: AmazonItem, marketplaceId: string) =>
  (item.relationships ?? [])
    .filter((each) => each.marketplaceId === marketplaceId)
    .flatMap((each) =>
      each.relationships.filter((relation) => relation.type === 'VARIATION').flatMap((relation) => relation.childSkus ?? []),
    );

const levelOf = (item: AmazonItem) => (item.attributes?.parentage_level as { value?: unknown }[] | undefined)?.[0]?.value;

/**
 * Amazon's channel for a SKU Amazon fulfils (FBA: `AMAZON_NA`, `AMAZON_EU`, …; selling-partner-api-models#4406 per the
 * fidelity review), or null for one the seller fulfils (`DEFAULT`, or no availability read).
 */
export function fbaChannelOf(item: AmazonItem): string | null {
  const entries = item.fulfillmentAvailability ?? [];
  if (entries.length === 0 || entries.some((entry) => entry.fulfillmentChannelCode === 'DEFAULT')) return null;
  return entries[0]!.fulfillmentChannelCode;
}

/** The SKU's stock: the seller's own channel's, or for an FBA SKU Amazon's count (0 when Amazon says none). */
export function stockOf(item: AmazonItem): number {
  const channel = fbaChannelOf(item) ?? 'DEFAULT';
  return item.fulfillmentAvailability?.find((entry) => entry.fulfillmentChannelCode === channel)?.quantity ?? 0;
}

/**
 * The handling time the seller set on their own channel: `lead_time_to_ship_max_days` of the `DEFAULT` entry of the
 * item's `fulfillment_availability` attribute (the model's `fulfillmentAvailability` carries no handling time); null
 * where none is set or the attributes were not read.
 */
export function handlingTimeOf(item: AmazonItem): number | null {
  const entries = item.attributes?.fulfillment_availability;
  if (!Array.isArray(entries)) return null;
  const own = entries.find((entry) => (entry as { fulfillment_channel_code?: unknown })?.fulfillment_channel_code === 'DEFAULT');
  const days = (own as { lead_time_to_ship_max_days?: unknown } | undefined)?.lead_time_to_ship_max_days;
  return Number.isInteger(days) && (days as number) >= 0 ? (days as number) : null;
}

/**
 * Records in a listing's progress which of its SKUs Amazon fulfils (`fba.<sku>`: the channel) and the handling time
 * the seller set on their own channel (`handling.<sku>`: days), as a read found them; a read without the SKU's
 * availability or attributes changes neither record.
 */
export function recordChannels(delivered: Record<string, string>, items: readonly AmazonItem[]) {
  for (const item of items) {
    const channel = fbaChannelOf(item);
    if (channel) delivered[`${PLATFORM_FULFILLED}${item.sku}`] = channel;
    else if (item.fulfillmentAvailability?.length) delete delivered[`${PLATFORM_FULFILLED}${item.sku}`];
    if (!item.attributes) continue;
    const days = handlingTimeOf(item);
    if (days !== null) delivered[`${HANDLING}${item.sku}`] = String(days);
    else delete delivered[`${HANDLING}${item.sku}`];
  }
}

/**
 * How long after Amazon last took a change of the SKU a listing with stock that is not yet buyable reads as Amazon
 * still processing it (listings.md §3.4: "ACCEPTED ≠ live"; ASSUMPTION: Amazon's processing takes up to 15 minutes).
 */
const PROCESSING_MS = 15 * 60_000;

/** One SKU's state, in Storelink's words and Amazon's (its statuses joined, PROCESSING or SUPPRESSED when it has none). */
export function skuState(item: AmazonItem, marketplaceId: string, now: Date): { status: ListingStatus; platformStatus: string } {
  const summary = item.summaries?.find((each) => each.marketplaceId === marketplaceId) ?? item.summaries?.[0];
  const statuses = summary?.status ?? [];
  const suppressed = (item.issues ?? []).some((issue) => issue.severity === 'ERROR');
  const stock = stockOf(item);
  if (statuses.length === 0)
    return suppressed ? { status: 'rejected', platformStatus: 'SUPPRESSED' } : { status: 'in_review', platformStatus: 'PROCESSING' };
  const platformStatus = statuses.join(',');
  // Buyable with no stock: Amazon is processing the stock of 0 it took (a listing switched off); it sells none.
  if (statuses.includes('BUYABLE')) return { status: stock > 0 ? 'active' : 'inactive', platformStatus };
  const updated = summary?.lastUpdatedDate ? Date.parse(summary.lastUpdatedDate) : Number.NaN;
  const processing = stock > 0 && !suppressed && now.getTime() - updated < PROCESSING_MS;
  return { status: processing ? 'in_review' : 'inactive', platformStatus };
}

/** The listing's state from its SKUs': active if one is, else in review, else rejected, else inactive. */
export function listingStatus(statuses: readonly ListingStatus[]): ListingStatus {
  for (const status of ['active', 'in_review', 'rejected'] as const) if (statuses.includes(status)) return status;
  return 'inactive';
}

export const CreatedReport = Type.Object({ reportId: Type.String({ minLength: 1 }) });
export const Report = Type.Object({
  processingStatus: Type.String(),
  reportDocumentId: Type.Optional(Type.String()),
});
export const ReportDocument = Type.Object({
  reportDocumentId: Type.String(),
  url: Type.String({ minLength: 1 }),
  compressionAlgorithm: Type.Optional(Type.String()),
});
