/** Listings (DESIGN §10): one product offered on one connected site, and the words its record and its settings use. */

/** Where a listing stands on its platform. */
export const LISTING_STATUSES = ['pending', 'in_review', 'active', 'inactive', 'rejected', 'error', 'deleted'] as const;
export type ListingStatus = (typeof LISTING_STATUSES)[number];

/** Whether the platform has the product's current version. */
export const SYNC_STATUSES = ['synced', 'syncing', 'failed'] as const;
export type SyncStatus = (typeof SYNC_STATUSES)[number];

export const ISSUE_SEVERITIES = ['error', 'warning'] as const;
export const ISSUE_SOURCES = ['storelink', 'platform'] as const;

/**
 * Something wrong or worth knowing about a listing: Storelink's own check, or the platform's word, kept verbatim in
 * `message` (`code` is the platform's code where it gives one). `field` is the listing or product field it is about.
 */
export interface ListingIssue {
  severity: (typeof ISSUE_SEVERITIES)[number];
  code: string;
  message: string;
  field: string | null;
  source: (typeof ISSUE_SOURCES)[number];
}

/** An error Storelink itself finds in a listing, on `field` (null: the listing as a whole). */
export const storelinkIssue = (field: string | null, code: string, message: string): ListingIssue => ({
  severity: 'error',
  code,
  message,
  field,
  source: 'storelink',
});

/**
 * What one listing shows instead of its product's (DESIGN §15): its own title, description, images (the product's
 * image ids, in order) and per-variant prices in the listing's currency (taking precedence over the rate and the
 * adjustment). A field left out is the product's; stored without the ones reverted.
 */
export interface ListingOverrides {
  title?: string;
  description?: string;
  images?: number[];
  variants?: { sku: string; price: string }[];
}

/** The fields of an override, as `PATCH /listings/{id}` names them. */
export const OVERRIDE_FIELDS = ['title', 'description', 'images', 'variants'] as const;

/** A variant as listed: its price and quantity after the site's rules, and the platform's id for it once known. */
export interface ListedVariant {
  sku: string;
  price: string;
  quantity: number;
  external_id: string | null;
}

/**
 * A value the platform shows for a listing that is not the catalogue's (changed on the platform outside Storelink, or a
 * listing imported as the shop had it): `field` is `title`, `description`, `tags`, `images` (their count),
 * `variants.<sku>.price`, `variants.<sku>.quantity`, or `variants.<sku>` (a variant on one side only). The catalogue's
 * value is as listed, after the site's price adjustment and stock buffer.
 */
export interface ListingDifference {
  field: string;
  platform: string | null;
  catalogue: string | null;
}

/** An import of a site's existing listings (DESIGN §10): running until its last page is read, or failed. */
export const IMPORT_STATUSES = ['running', 'done', 'failed'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

/** A listing an import could not take, and why (the import's `skipped` counts them; the first 100 are kept). */
export interface ImportSkip {
  external_id: string;
  title: string;
  message: string;
}
export const IMPORT_SKIPS_KEPT = 100;

/** Settings every site has: how the listed price and quantity follow the catalogue's. */
export const PRICE_ADJUSTMENT_MIN = -90;
export const PRICE_ADJUSTMENT_MAX = 500;

/** A category of a platform: Etsy's seller taxonomy node, TikTok Shop's category, Amazon's product type. */
export interface Category {
  id: string;
  name: string;
  /** Names from the root down to this one. */
  path: string[];
  /** Only a leaf can hold a listing. */
  leaf: boolean;
}

/** `file`: the name of a file uploaded with POST /files (`<sha256>.<extension>`), such as TikTok Shop's certificates. */
export const ATTRIBUTE_TYPES = ['text', 'number', 'boolean', 'select', 'multiselect', 'file'] as const;

/** What a listing in a category can or must say: `values` lists the choices of a select (empty otherwise). */
export interface CategoryAttribute {
  name: string;
  label: string;
  required: boolean;
  type: (typeof ATTRIBUTE_TYPES)[number];
  values: { value: string; label: string }[];
}

/**
 * The listing settings every site has, whatever its platform, and what they read as until set: how the listed price
 * and quantity follow the catalogue's. Each platform adds its own (src/platforms/<platform>/listing-settings.ts).
 */
export const COMMON_LISTING_SETTINGS = { price_adjustment_percent: 0, stock_buffer: 0, exchange_rates: {} } as const;

/** A rate of `exchange_rates` (DESIGN §15): a decimal string above 0, of at most six digits on each side of the point. */
export const EXCHANGE_RATE_PATTERN = '^(?!0*(\\.0*)?$)[0-9]{1,6}(\\.[0-9]{1,6})?$';
