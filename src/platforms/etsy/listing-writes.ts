/** Etsy's listing writes and listing reads (listings.md §1.4–1.9): requests built and answers parsed, without I/O. */
import Type, { type Static, type TSchema } from 'typebox';
import type { ListingIssue, ListingStatus } from '../../domain/index.js';
import { isPassingFailure } from '../../lib/outbound-http.js';
import { ListingRefused, PlatformError } from '../contracts/errors.js';
import type { ListingDraft, PlatformListing } from '../contracts/listings.js';
import { parseBody } from '../parse.js';
import { readFailure } from './listing-responses.js';

/**
 * Etsy's "custom" variation properties, for options a seller names: 513 and 514 (listings.md §1.6: a variation is a
 * property with `property_name` and `values`; the custom ids are the two Etsy's own listing form uses).
 */
export const CUSTOM_PROPERTY_IDS = [513, 514] as const;

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
/** Etsy's refusals: `{error}`, or an array of `{path, type, message}` (listings.md §1.11). */
const Refusal = Type.Object({ error: Type.String() });
const PathRefusals = Type.Array(Type.Object({ path: Type.String(), message: Type.String(), type: Type.Optional(Type.String()) }));

export type EtsyListing = Static<typeof Listing>;

export { fingerprint } from '../fingerprint.js';

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

/** The listing's fields createDraftListing takes (form-encoded, listings.md §1.4), from the draft and the site's settings. */
export function createListingForm(draft: ListingDraft, settings: Readonly<Record<string, unknown>>): Record<string, string> {
  return {
    quantity: String(
      Math.max(
        1,
        draft.variants.reduce((sum, v) => sum + v.quantity, 0),
      ),
    ),
    price: draft.variants[0]?.price ?? '0.20',
    who_made: String(settings.who_made),
    when_made: String(settings.when_made),
    is_supply: String(settings.is_supply === true),
    ...fieldsForm(draft, settings),
  };
}

/** What updateListing and createDraftListing share: the text, the tags and the shop's profiles (listings.md §1.7). */
export function fieldsForm(draft: ListingDraft, settings: Readonly<Record<string, unknown>>): Record<string, string> {
  const form: Record<string, string> = {
    title: draft.title,
    description: draft.description || draft.title,
    taxonomy_id: draft.categoryId,
    shipping_profile_id: String(settings.shipping_profile_id),
    return_policy_id: String(settings.return_policy_id),
    readiness_state_id: String(settings.readiness_state_id),
  };
  if (draft.tags.length > 0) form.tags = draft.tags.join(',');
  return form;
}

/**
 * The inventory body (listings.md §1.6): one product per variant, its options as custom variation properties, and each
 * of price, quantity and sku varying on every property there is, so each combination carries its own.
 */
export function inventoryBody(draft: ListingDraft, readinessStateId: string) {
  const properties = draft.options.map((option, i) => ({ id: CUSTOM_PROPERTY_IDS[i]!, name: option.name }));
  const ids = properties.map((p) => p.id);
  return {
    products: draft.variants.map((variant) => ({
      sku: variant.sku,
      property_values: properties.map((property) => ({
        property_id: property.id,
        property_name: property.name,
        values: [variant.optionValues[property.name] ?? ''],
      })),
      offerings: [
        { price: Number(variant.price), quantity: variant.quantity, is_enabled: true, readiness_state_id: Number(readinessStateId) },
      ],
    })),
    price_on_property: ids,
    quantity_on_property: ids,
    sku_on_property: ids,
    readiness_state_on_property: [],
  };
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
