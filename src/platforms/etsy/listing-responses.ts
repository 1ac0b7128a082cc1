/**
 * Etsy's answers to the listing API (listings.md §1.3–1.11), parsed without I/O: the reads a site's settings and
 * categories need, the listing writes' answers and refusals, and a listing's state in Storelink's words.
 */
import Type, { type Static, type TSchema } from 'typebox';
import type { Category, CategoryAttribute, ListingIssue, ListingStatus } from '../../domain/index.js';
import { isPassingFailure } from '../../lib/outbound-http.js';
import { ListingRefused, PlatformError } from '../contracts/errors.js';
import type { PlatformListing, RateLimits } from '../contracts/listings.js';
import { parseBody } from '../parse.js';

/** `{error}`, Etsy's refusal (listings.md §1.11). */
const Refusal = Type.Object({ error: Type.String() });

/** `{count, results}`, the envelope of Etsy's lists. */
const ListOf = <T extends Parameters<typeof Type.Array>[0]>(item: T) => Type.Object({ results: Type.Array(item) });

const ShippingProfile = Type.Object({ shipping_profile_id: Type.Integer(), title: Type.Union([Type.String(), Type.Null()]) });
const ReturnPolicy = Type.Object({
  return_policy_id: Type.Integer(),
  accepts_returns: Type.Boolean(),
  accepts_exchanges: Type.Boolean(),
  return_deadline: Type.Union([Type.Integer(), Type.Null()]),
});
const ReadinessState = Type.Object({
  readiness_state_id: Type.Integer(),
  readiness_state: Type.String(),
  min_processing_time: Type.Integer(),
  max_processing_time: Type.Integer(),
  processing_time_unit: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

/** A seller taxonomy node; its children are checked one level at a time as the tree is walked. */
const TaxonomyNode = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  children: Type.Array(Type.Unknown()),
});

const PossibleValue = Type.Object({ value_id: Type.Union([Type.Integer(), Type.Null()]), name: Type.String() });
const TaxonomyProperty = Type.Object({
  property_id: Type.Integer(),
  name: Type.String(),
  display_name: Type.String(),
  is_required: Type.Boolean(),
  is_multivalued: Type.Boolean(),
  possible_values: Type.Array(PossibleValue),
  supports_variations: Type.Optional(Type.Boolean()),
  scales: Type.Optional(Type.Array(Type.Object({ scale_id: Type.Integer() }))),
});

/**
 * A property of the category a listing's variations can use (`supports_variations`), with its values' ids by name
 * (lowercased) and its first scale: what an inventory names instead of a custom property (listings.md §1.6).
 */
export interface VariationProperty {
  readonly id: number;
  /** Its name and display name, lowercased. */
  readonly names: readonly string[];
  readonly scaleId: number | null;
  readonly valueIds: ReadonlyMap<string, number>;
}

/** What getPropertiesByTaxonomyId says of a category: the attributes a listing may give, and its variation properties. */
export interface TaxonomyRead {
  readonly attributes: CategoryAttribute[];
  readonly variations: VariationProperty[];
}

/**
 * A refused read: passing failures are `unavailable`; 401 is the seller's grant; 403 is Etsy refusing Storelink's key
 * (its text names the API key or the shared secret: the operator's) or the grant's scopes (the seller's, who connects
 * again to grant them); anything else is unexpected here and passes.
 */
export function readFailure(status: number, body: unknown, what: string): PlatformError {
  const said = parseBody(Refusal, body)?.error;
  if (isPassingFailure(status)) return new PlatformError('unavailable', `Etsy could not answer ${what}`);
  if (status === 401) return new PlatformError('rejected', said ?? 'Etsy refused the access token');
  if (status === 403 && /api key|shared secret/i.test(said ?? '')) {
    return new PlatformError('misconfigured', `Etsy refused Storelink's app (HTTP 403, ${said})`);
  }
  if (status === 403) return new PlatformError('rejected', `Etsy refused ${what}: ${said ?? 'HTTP 403'}. Connect the site again.`);
  return new PlatformError('unavailable', `Etsy answered ${what} with HTTP ${status}${said ? `: ${said}` : ''}`);
}

function listOf<T extends Parameters<typeof Type.Array>[0]>(item: T, what: string) {
  return (status: number, body: unknown) => {
    if (status >= 400) throw readFailure(status, body, what);
    const list = parseBody(ListOf(item), body);
    if (!list) throw new PlatformError('unavailable', `Etsy answered ${what} in an unknown shape`);
    return list.results;
  };
}

export const parseShippingProfiles = listOf(ShippingProfile, 'the shipping profiles');
export const parseReturnPolicies = listOf(ReturnPolicy, 'the return policies');
export const parseReadinessStates = listOf(ReadinessState, 'the processing profiles');

/** A return policy as a seller reads it: "Returns and exchanges within 30 days", "No returns or exchanges". */
export function returnPolicyLabel(policy: { accepts_returns: boolean; accepts_exchanges: boolean; return_deadline: number | null }) {
  const what = [policy.accepts_returns && 'returns', policy.accepts_exchanges && 'exchanges'].filter(Boolean).join(' and ');
  if (!what) return 'No returns or exchanges';
  const label = what.charAt(0).toUpperCase() + what.slice(1);
  return policy.return_deadline ? `${label} within ${policy.return_deadline} days` : label;
}

/** A processing profile as a seller reads it: "Ready to ship in 1–3 days", "Made to order in 1–2 weeks". */
export function readinessLabel(state: {
  readiness_state: string;
  min_processing_time: number;
  max_processing_time: number;
  processing_time_unit?: string | null;
}) {
  const kind = state.readiness_state === 'made_to_order' ? 'Made to order in' : 'Ready to ship in';
  const range =
    state.min_processing_time === state.max_processing_time
      ? `${state.max_processing_time}`
      : `${state.min_processing_time}–${state.max_processing_time}`;
  return `${kind} ${range} ${state.processing_time_unit === 'weeks' ? 'weeks' : 'days'}`;
}

/** `GET /v3/application/seller-taxonomy/nodes`: the tree, flattened, each node with its path of names and whether it is a leaf. */
export function parseTaxonomy(status: number, body: unknown): (Category & { parentId: string | null })[] {
  if (status >= 400) throw readFailure(status, body, 'the seller taxonomy');
  const roots = parseBody(ListOf(Type.Unknown()), body);
  if (!roots) throw new PlatformError('unavailable', 'Etsy answered the seller taxonomy in an unknown shape');
  const flat: (Category & { parentId: string | null })[] = [];
  const walk = (nodes: readonly unknown[], path: string[], parentId: string | null) => {
    for (const value of nodes) {
      const node = parseBody(TaxonomyNode, value);
      if (!node) throw new PlatformError('unavailable', 'Etsy answered the seller taxonomy with a node in an unknown shape');
      const here = [...path, node.name];
      flat.push({ id: String(node.id), name: node.name, path: here, leaf: node.children.length === 0, parentId });
      walk(node.children, here, String(node.id));
    }
  };
  walk(roots.results, [], null);
  return flat;
}

/**
 * `GET /v3/application/seller-taxonomy/nodes/{id}/properties`: a property with possible values is a choice among them
 * (several where it is multivalued), otherwise text. Null for a node Etsy does not know (404).
 */
export function parseTaxonomyProperties(status: number, body: unknown): TaxonomyRead | null {
  if (status === 404) return null;
  if (status >= 400) throw readFailure(status, body, "the category's properties");
  const properties = parseBody(ListOf(TaxonomyProperty), body);
  if (!properties) throw new PlatformError('unavailable', "Etsy answered the category's properties in an unknown shape");
  const variations = properties.results
    .filter((property) => property.supports_variations === true)
    .map((property) => ({
      id: property.property_id,
      names: [...new Set([property.name, property.display_name].map((name) => name.trim().toLowerCase()))],
      scaleId: property.scales?.[0]?.scale_id ?? null,
      valueIds: new Map(
        property.possible_values.flatMap((value) =>
          value.value_id === null ? [] : [[value.name.trim().toLowerCase(), value.value_id] as const],
        ),
      ),
    }));
  const attributes = properties.results.map(
    (property): CategoryAttribute => ({
      name: String(property.property_id),
      label: property.display_name || property.name,
      required: property.is_required,
      type: property.possible_values.length === 0 ? 'text' : property.is_multivalued ? 'multiselect' : 'select',
      values: property.possible_values.flatMap((value) =>
        value.value_id === null ? [] : [{ value: String(value.value_id), label: value.name }],
      ),
    }),
  );
  return { attributes, variations };
}

/** Etsy's limits on an answer (listings.md §1.10): `x-limit-per-second`, `x-remaining-this-second`, `x-limit-per-day`, `x-remaining-today`. */
export function readRateLimits(headers: Headers | undefined): RateLimits | null {
  if (!headers) return null;
  const number = (name: string) => {
    const value = headers.get(name);
    return value !== null && /^[0-9]+$/.test(value.trim()) ? Number(value) : null;
  };
  const limits = {
    perSecond: number('x-limit-per-second'),
    remainingThisSecond: number('x-remaining-this-second'),
    perDay: number('x-limit-per-day'),
    remainingToday: number('x-remaining-today'),
  };
  return Object.values(limits).some((value) => value !== null) ? limits : null;
}

// The listing writes' answers (listings.md §1.4–1.9).
const Money = Type.Object({ amount: Type.Integer(), divisor: Type.Integer(), currency_code: Type.String() });
const Nullable = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));
/** A listing's inventory (getListingInventory, or getListingsByShop's `includes=Inventory`), as far as an import reads it. */
const ListingInventory = Type.Object({
  products: Type.Array(
    Type.Object({
      product_id: Type.Optional(Type.Integer()),
      sku: Nullable(Type.String()),
      is_deleted: Type.Optional(Type.Boolean()),
      property_values: Type.Array(
        Type.Object({ property_id: Type.Integer(), property_name: Nullable(Type.String()), values: Type.Array(Type.String()) }),
      ),
      offerings: Type.Array(
        Type.Object({ price: Money, quantity: Type.Integer(), is_enabled: Type.Boolean(), is_deleted: Type.Optional(Type.Boolean()) }),
      ),
    }),
  ),
});
const Listing = Type.Object({
  listing_id: Type.Integer(),
  title: Type.String(),
  state: Type.String(),
  url: Nullable(Type.String()),
  created_timestamp: Type.Optional(Type.Integer()),
  // When the listing last changed, in seconds: what the reader of recent changes sorts on (listing-changes.ts).
  updated_timestamp: Type.Optional(Type.Integer()),
  price: Type.Optional(Type.Union([Money, Type.Number()])),
  // What an import reads besides (listings.md §1.4, §1.9).
  description: Type.Optional(Type.String()),
  tags: Type.Optional(Type.Array(Type.String())),
  taxonomy_id: Nullable(Type.Integer()),
  shipping_profile_id: Nullable(Type.Integer()),
  return_policy_id: Nullable(Type.Integer()),
  readiness_state_id: Nullable(Type.Integer()),
  images: Type.Optional(
    Type.Array(
      Type.Object({
        listing_image_id: Type.Integer(),
        rank: Type.Integer(),
        url_fullxfull: Type.String(),
        alt_text: Nullable(Type.String()),
      }),
    ),
  ),
  inventory: Type.Optional(ListingInventory),
});
const ListingList = Type.Object({ count: Type.Integer(), results: Type.Array(Listing) });
const Image = Type.Object({ listing_image_id: Type.Integer(), rank: Type.Optional(Type.Integer()) });
const ImageList = Type.Object({ count: Type.Integer(), results: Type.Array(Image) });
const InventoryAnswer = Type.Object({
  products: Type.Array(Type.Object({ product_id: Type.Integer(), sku: Type.Union([Type.String(), Type.Null()]) })),
});
/** Etsy's other refusal of a write (listings.md §1.11): an array of `{path, type, message}`, one a field. */
const PathRefusals = Type.Array(Type.Object({ path: Type.String(), message: Type.String(), type: Type.Optional(Type.String()) }));

export type EtsyListing = Static<typeof Listing>;

/**
 * A refused write: 400 and 409 refuse the listing itself (its issues, in Etsy's words); the rest is read as every call
 * is (the grant, the app, a passing failure). A 5xx is passing: Etsy has answered 500 to a create that did happen
 * (listings.md §1.11), which the engine finds again by the listing's title.
 */
export function writeFailure(status: number, body: unknown, what: string): Error {
  if ((status === 400 || status === 409) && !isPassingFailure(status)) {
    const paths = parseBody(PathRefusals, body);
    const issues: ListingIssue[] = paths
      ? paths.map((p) => ({ severity: 'error', code: p.type ?? 'etsy_refused', message: p.message, field: p.path, source: 'platform' }))
      : [
          {
            severity: 'error',
            code: `etsy_${status}`,
            message: parseBody(Refusal, body)?.error ?? `Etsy refused ${what}`,
            field: null,
            source: 'platform',
          },
        ];
    return new ListingRefused(issues);
  }
  return readFailure(status, body, what);
}

/** A parser of a successful answer of `schema`'s shape; a refusal is read by writeFailure. */
const expect =
  <T>(schema: TSchema, what: string) =>
  (status: number, body: unknown): T => {
    if (status >= 300) throw writeFailure(status, body, what);
    const value = parseBody(schema, body) as T | null;
    if (value === null) throw new PlatformError('unavailable', `Etsy answered ${what} in an unknown shape`);
    return value;
  };

export const parseListing = expect<EtsyListing>(Listing, 'the listing');
/** What the shop-setup creates answer: the made thing (listings.md §1.3). */
export const parseCreatedShippingProfile = expect<Static<typeof ShippingProfile>>(ShippingProfile, 'the shipping profile');
export const parseCreatedReturnPolicy = expect<Static<typeof ReturnPolicy>>(ReturnPolicy, 'the return policy');
export const parseCreatedReadinessState = expect<Static<typeof ReadinessState>>(ReadinessState, 'the processing profile');
/**
 * A create Etsy refused as a duplicate of what the shop holds (409: a processing profile, listings.md §1.3; a return
 * policy, ASSUMPTION that it is a 409 too): null, so the caller takes the one held; any other answer as `parse` reads it.
 */
export const orDuplicate =
  <T>(parse: (status: number, body: unknown) => T) =>
  (status: number, body: unknown): T | null =>
    status === 409 ? null : parse(status, body);
export const parseListingList = expect<Static<typeof ListingList>>(ListingList, 'the shop’s listings');
export const parseImage = expect<Static<typeof Image>>(Image, 'the image upload');
export const parseImageList = expect<Static<typeof ImageList>>(ImageList, 'the listing’s images');
/** updateListingProperty's answer; a refusal is the issue of the attribute (`attributes.<property_id>`). */
export const parseProperty =
  (propertyId: string) =>
  (status: number, body: unknown): void => {
    if (status < 300) return;
    const failure = writeFailure(status, body, `the attribute ${propertyId}`);
    if (failure instanceof ListingRefused)
      throw new ListingRefused(failure.issues.map((issue) => ({ ...issue, field: `attributes.${propertyId}` })));
    throw failure;
  };
export const parseInventory = expect<Static<typeof InventoryAnswer>>(InventoryAnswer, 'the inventory');

/** `GET /v3/application/listings/{id}`: the listing, or null when Etsy has none by that id (404). */
export function parseListingOrGone(status: number, body: unknown): EtsyListing | null {
  return status === 404 ? null : parseListing(status, body);
}

/** `DELETE /v3/application/listings/{id}`: 204, or 404 for one already gone. */
export function parseDeleted(status: number, body: unknown): void {
  if (status !== 204 && status !== 200 && status !== 404) throw writeFailure(status, body, 'the deletion');
}

/** Etsy's states (listings.md §1.2) in Storelink's words. `edit` was seen after deactivating a listing with variations. */
const STATUS: Record<string, ListingStatus> = {
  active: 'active',
  sold_out: 'active',
  draft: 'inactive',
  inactive: 'inactive',
  expired: 'inactive',
  edit: 'inactive',
};

export function platformListing(listing: EtsyListing): PlatformListing {
  const issues: ListingIssue[] =
    listing.state === 'sold_out'
      ? [{ severity: 'warning', code: 'etsy_sold_out', message: 'Etsy shows the listing as sold out.', field: null, source: 'platform' }]
      : listing.state === 'expired'
        ? [
            {
              severity: 'warning',
              code: 'etsy_expired',
              message: 'The listing expired on Etsy; publishing it again renews it.',
              field: null,
              source: 'platform',
            },
          ]
        : [];
  return { status: STATUS[listing.state] ?? 'inactive', platformStatus: listing.state, externalUrl: listing.url ?? null, issues };
}
