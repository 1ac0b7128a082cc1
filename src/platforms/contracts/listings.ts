/** The listings capability (DESIGN §10): what the engine asks of a platform to publish, sync, read and import listings. */
import type { TSchema } from 'typebox';
import type {
  Category,
  CategoryAttribute,
  ListingIssue,
  ListingStatus,
  ProductOption,
  ProductPackage,
  SitePlatform,
} from '../../domain/index.js';

/**
 * A platform's listing settings (DESIGN §10): the fields a site sets once for every listing on it, beside the
 * `price_adjustment_percent` and `stock_buffer` every platform has. PUT /listing-settings checks each value against its
 * schema; a field left out (or null) is not set.
 */
export interface ListingSettingsSpec {
  /** Each field's TypeBox schema, by its settings name (a nullable one may be cleared). */
  readonly fields: Readonly<Record<string, TSchema>>;
  /** The fields a listing needs before it is published: each unset one is a 422 on publishing. */
  readonly required: readonly string[];
  /** Of `required`, the ones the account does not need (Etsy: an EU shop's return policy), by what connecting stored. */
  optionalFor?(data: Readonly<Record<string, unknown>>): readonly string[];
  /**
   * Things the platform can make for the account from the settings page (Etsy's shipping profile, return policy and
   * processing profile): each a field PUT takes beside the settings, whose value is what to create, and the setting the
   * made thing's id fills. Never stored themselves.
   */
  readonly creates?: Readonly<Record<string, { readonly schema: TSchema; readonly fills: string; readonly scope: string }>>;
  /** What a field never set reads as, where it has a default (else null). */
  readonly defaults: Readonly<Record<string, unknown>>;
  /** The field naming the marketplace a listing is in, on a platform whose account sells in several (Amazon's `marketplace_id`). */
  readonly marketplaceField?: string;
  /** The currency of a listing in the marketplace the settings name (DESIGN §15), where the site has none of its own. */
  currencyOf?(settings: Readonly<Record<string, unknown>>): string | null;
}

/** What a listings call needs: the site's account on the platform, its listing settings, a valid access token. */
export interface ListingsCall {
  /** The platform's id of the account (Etsy shop id, TikTok Shop shop id, Amazon seller id). */
  readonly externalId: string;
  /** What connecting stored about the account that is not secret (TikTok's shop cipher, Amazon's marketplaces). */
  readonly data: Readonly<Record<string, unknown>>;
  /** The site's listing settings (DESIGN §10): platform fields by their settings names. */
  readonly settings: Readonly<Record<string, unknown>>;
  readonly accessToken: string;
  readonly signal?: AbortSignal;
  /**
   * Hears the rate limits of every answer (Etsy's headers), or the ones a platform documents (TikTok Shop's), so the
   * engine paces the next calls. `budget` names the platform's own budget the call spends where it has one per account
   * and API (TikTok Shop's per shop and API); none: one budget for every call of the app (Etsy's).
   */
  readonly onLimits?: (limits: RateLimits, budget?: string) => void;
  /** Awaited before every call: the engine's pacing of `budget` (it may wait, or throw `unavailable` to put the work off). */
  readonly beforeCall?: (budget?: string) => Promise<void>;
  /** Whether another listing of the site holds this platform id already (a lost create is never taken from another). */
  readonly isClaimed?: (externalId: string) => Promise<boolean>;
}

/** What a platform said of its limits on one answer; null where it did not say. */
export interface RateLimits {
  perSecond: number | null;
  remainingThisSecond: number | null;
  perDay: number | null;
  remainingToday: number | null;
}

export interface DraftVariant {
  readonly sku: string;
  readonly optionValues: Readonly<Record<string, string>>;
  /** As listed: the catalogue's price with the site's adjustment, to the cent, a decimal string. */
  readonly price: string;
  /** As listed: the catalogue's quantity less the site's stock buffer, never below 0. */
  readonly quantity: number;
  readonly barcode: string | null;
}

export interface DraftImage {
  /** What identifies the image across versions: its SHA-256 for an upload, its URL otherwise. */
  readonly key: string;
  readonly url: string;
  readonly alt: string | null;
  /** Whether Storelink holds the image's bytes (an upload), which platforms that take files (Etsy) need. */
  readonly stored: boolean;
  /** The bytes of a stored image. */
  bytes(): Promise<{ bytes: Buffer; contentType: string }>;
}

/** A file a listing's `file` attribute names (a certificate), as Storelink stores it. */
export interface DraftFile {
  /** `<sha256>.<extension>`: what the attribute gives, and what identifies the file across versions. */
  readonly name: string;
  readonly sha256: string;
  readonly extension: string;
  readonly contentType: string;
  readonly bytes: Buffer;
}

/** The `file` of a draft that names no stored file: what a platform holds, read back (an import). */
export const noFile = async (): Promise<DraftFile | null> => null;

/** A listing as the platform should hold it: the catalogue's product after the site's price and stock rules. */
export interface ListingDraft {
  readonly title: string;
  readonly description: string;
  readonly tags: readonly string[];
  readonly brand: string | null;
  readonly currency: string;
  readonly categoryId: string;
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly options: readonly ProductOption[];
  readonly variants: readonly DraftVariant[];
  readonly images: readonly DraftImage[];
  readonly package: ProductPackage | null;
  /** The file a `file` attribute names (`<sha256>.<extension>`), with its bytes; null where Storelink holds none by that name. */
  file(name: string): Promise<DraftFile | null>;
}

/**
 * `progress.delivered[PLATFORM_FULFILLED + sku]`: the platform fulfils the SKU from its own warehouses (Amazon's FBA),
 * the value its channel. The platform counts such a SKU's stock: Storelink never writes it, and shows who fulfils it.
 */
export const PLATFORM_FULFILLED = 'fba.';

/** Whether the platform fulfils the SKU (PLATFORM_FULFILLED), as the listing's progress last recorded it. */
export const fulfilledByPlatform = (delivered: Readonly<Record<string, unknown>> | undefined, sku: string) =>
  typeof delivered?.[`${PLATFORM_FULFILLED}${sku}`] === 'string';

/**
 * What a listing's work has done on the platform, saved after every step, so a job run again after a crash resumes
 * instead of repeating: the platform's id as soon as it answers, each image uploaded, and a fingerprint of each part
 * delivered (so a price change sends the inventory alone, and an unchanged image is never uploaded twice).
 */
export interface ListingProgress {
  externalId: string | null;
  externalUrl: string | null;
  /** When the create call was first sent: a listing the platform made but never answered for is looked for from then. */
  createStartedAt: string | null;
  /** The idempotency key the create was sent with, where the platform takes one (TikTok Shop): sent again, it is the same create. */
  createKey?: string | null;
  /** Image key to the platform's image id. */
  images: Record<string, string>;
  /**
   * A file a `file` attribute names (`<sha256>.<extension>`) to the platform's id of it once uploaded (TikTok Shop's
   * certificates: a PDF's file id, an image's URI), so a retry or a later edit names it without uploading it again.
   */
  files?: Record<string, string>;
  /** The key of the image whose upload was sent and not yet answered: one the platform took is found, not sent again. */
  uploading?: string | null;
  /** Part name (the adapter's own: fields, inventory, images) to the fingerprint of what the platform last took. */
  delivered: Record<string, string>;
  /** Sku to the platform's id of the variant, where it has one. */
  variantIds: Record<string, string>;
  /**
   * Sku to the stock locations the platform keeps the variant's stock in, where it keeps several and wants each named on
   * a stock update (TikTok Shop's warehouses, listings.md §2.7: 12019028); learnt from the platform, absent until then.
   */
  locations?: Record<string, string[]>;
}

/** A listing as the platform shows it, in Storelink's words and its own. */
export interface PlatformListing {
  status: ListingStatus;
  /** The platform's own word for it (Etsy's `state`), verbatim. */
  platformStatus: string;
  externalUrl: string | null;
  issues: ListingIssue[];
}

/** A listing the platform holds that Storelink did not make, as an import reads it (DESIGN §10). */
export interface ExistingListing {
  readonly externalId: string;
  readonly state: PlatformListing;
  readonly categoryId: string;
  /** The listing's attributes as the platform holds them, by the names the category's attributes have ({} where none are read). */
  readonly attributes: Readonly<Record<string, unknown>>;
  /** The product the listing shows, in the catalogue's words: prices as decimal text, a variant's sku null where it has none. */
  readonly product: {
    readonly title: string;
    readonly description: string;
    /**
     * The listing's tags; null on a platform that holds none of Storelink's (TikTok Shop and Amazon: the listing is sent
     * no tags), so that no read shows the catalogue's tags as changed there.
     */
    readonly tags: readonly string[] | null;
    readonly currency: string;
    readonly options: readonly ProductOption[];
    readonly variants: readonly {
      sku: string | null;
      optionValues: Record<string, string>;
      price: string;
      quantity: number;
      /** The variant's barcode, where the platform holds one per variant (an Amazon family's child). */
      barcode?: string | null;
    }[];
    readonly images: readonly { url: string; alt: string | null }[];
    /** The package the platform holds (TikTok Shop's weight and size); absent where the platform has none to read. */
    readonly package?: ProductPackage | null;
  };
  /**
   * What the platform holds, as the listing's work records what it delivered: a product made from `product` (images by
   * their URLs) sends nothing until it changes, and a product already in the catalogue sends only where it differs.
   */
  readonly progress: ListingProgress;
}

/** One page of a shop's listings; `next` is the cursor of the page after it, null after the last. */
export interface ExistingPage {
  readonly listings: readonly ExistingListing[];
  readonly next: string | null;
}

/** A listing the platform says changed: its id, and when (the platform's own time). */
export interface ChangedListing {
  /** The platform's id of what changed: Etsy's listing id, TikTok Shop's product id, an Amazon SKU. */
  readonly externalId: string;
  readonly updatedAt: Date;
}

/**
 * The shop's recently changed listings, read cheaply and often (listing-changes.ts): one call per site a turn, whatever
 * the number of listings, so that a change made on the platform shows within a minute (docs/listings.md).
 */
export interface ListingChanges {
  /** Seconds between two turns of a site: what the platform's budget allows for one call each (docs/listings.md). */
  readonly everySeconds: number;
  /** The lists read in turn, one a turn (Etsy lists one state at a time: active, then inactive); one for the others. */
  readonly feeds: readonly string[];
  /**
   * The listings of `feed` changed at or after `since`, as the platform answers them (newest first where it sorts):
   * one call, a few more only when every listing of a full page changed since.
   */
  changedSince(call: ListingsCall, feed: string, since: Date): Promise<ChangedListing[]>;
}

/**
 * A listing's change of offers alone (prices, stock), as one listing's part of a bulk feed: the platform's messages
 * (opaque to the engine), and what its progress records as delivered once the platform took them.
 */
export interface OfferChange {
  readonly marketplaceId: string;
  readonly messages: readonly Record<string, unknown>[];
  readonly delivered: Readonly<Record<string, string>>;
}

/** A bulk feed's outcome: still being processed (null), or each message's refusals by its index in the feed (none: taken). */
export type FeedOutcome =
  | null
  | { readonly failed: false; readonly refusals: ReadonlyMap<number, ListingIssue[]> }
  | { readonly failed: true; readonly reason: string };

/**
 * Bulk changes (Amazon's JSON_LISTINGS_FEED, listings.md §3.10): many listings' offer changes sent as one feed, where
 * the platform paces a listing's own calls (five a second) far under what a change of a whole catalogue needs.
 */
export interface BulkFeeds {
  /** The most messages one feed may carry: more changes at once go in several feeds. */
  readonly messagesMax: number;
  /** What delivering `draft` would send, when that is only offer patches of SKUs the platform holds; else null. */
  offerChange(call: ListingsCall, draft: ListingDraft, progress: ListingProgress): Promise<OfferChange | null>;
  /** Submits one feed of the messages (in one marketplace); the platform's id of the feed. */
  submit(call: ListingsCall, marketplaceId: string, messages: readonly Record<string, unknown>[]): Promise<string>;
  /** The feed's outcome, once the platform processed it. */
  outcome(call: ListingsCall, marketplaceId: string, feedId: string): Promise<FeedOutcome>;
}

/**
 * The listings capability (DESIGN §10): what the engine asks of a platform. Every method may throw PlatformError
 * (`rejected`: the grant is gone, the site must be reconnected; `unavailable`: try again, after `retryAfterMs`), or
 * ListingRefused for an answer that refuses the listing itself (its issues, in the platform's words).
 */
export interface ListingsAdapter {
  readonly platform: SitePlatform;
  /**
   * The platform refuses a live listing with no unit in stock (Etsy: "one offering must have quantity greater than 0").
   * The engine then switches a listing whose every variant is at 0 off, with an issue saying why, and on again when
   * stock returns; `deliver` of such a draft switches it off before it sends the inventory, which keeps a unit the
   * platform asks for on a listing nobody can buy from.
   */
  readonly liveNeedsStock?: boolean;
  /**
   * Makes one of the things the settings spec `creates` (`name`, from `input` as its schema took it) on the platform;
   * the made thing's id. One the platform holds already with the same values is taken, not made twice. A refusal of
   * the input is a ListingRefused in the platform's words.
   */
  createForSettings?(call: ListingsCall, name: string, input: Readonly<Record<string, unknown>>): Promise<string>;
  /**
   * The choices of the settings, read from the platform: `{<settings field>: [{value, label}]}`; a marketplace's
   * choice also says the currency its listings are in (DESIGN §15).
   */
  listingOptions(call: ListingsCall): Promise<Record<string, { value: string; label: string; currency?: string }[]>>;
  categories(call: ListingsCall, query: { q: string | null; parentId: string | null }): Promise<Category[]>;
  /** One category by its id; null for one the platform does not know. */
  category(call: ListingsCall, categoryId: string): Promise<Category | null>;
  /** What a listing in the category can or must say; null for a category the platform does not know. */
  categoryAttributes(call: ListingsCall, categoryId: string): Promise<CategoryAttribute[] | null>;
  /**
   * The platform's rules Storelink checks itself, before anything is stored or sent (fields of the listing). `call`
   * says which account the listing is for (its market decides TikTok Shop's currency); nothing is called with it.
   */
  check(draft: ListingDraft, attributes: readonly CategoryAttribute[], call: ListingsCall): ListingIssue[];
  /**
   * Whether the account may list at all, where the platform says (TikTok Shop's prerequisites: a return warehouse, a
   * shipping template): its reasons as issues of the site (no field), [] when ready. Asked before every publish.
   */
  readiness?(call: ListingsCall): Promise<ListingIssue[]>;
  /** The platform's dry run, where it has one (TikTok Shop's listing_check, Amazon's VALIDATION_PREVIEW); else []. */
  validate(call: ListingsCall, draft: ListingDraft): Promise<ListingIssue[]>;
  /**
   * Makes the platform hold `draft`, creating the listing the first time, and sending only the parts whose fingerprint
   * differs from `progress.delivered`. `progress` is updated after every step; `save` checkpoints it at once after a
   * step that must never be repeated (a create, an upload), while the rest (a put that is the same when sent twice) is
   * saved with the job's outcome. Leaves whether it is live alone. Answers the listing as the platform answered its
   * creation when this call created it (nothing since can have put it live), else null: the engine reads it.
   */
  deliver(
    call: ListingsCall,
    draft: ListingDraft,
    progress: ListingProgress,
    save: (progress: ListingProgress) => Promise<void>,
  ): Promise<PlatformListing | null>;
  /** Puts the listing live or takes it off. Going live may cost the seller (Etsy's publish fee): the engine reads first. */
  setActive(call: ListingsCall, progress: ListingProgress, active: boolean): Promise<PlatformListing>;
  /** Removes the listing from the platform; one already gone is removed. */
  remove(call: ListingsCall, progress: ListingProgress): Promise<void>;
  /** The listing as the platform holds it now; null when the platform has no such listing. */
  read(call: ListingsCall, progress: ListingProgress): Promise<PlatformListing | null>;
  /** The shop's listings, a page at a time from `cursor` (null: the first page), in every state the platform lists. */
  existing(call: ListingsCall, cursor: string | null): Promise<ExistingPage>;
  /** The listing as the platform shows it now, read as an import reads it; null when the platform has no such listing. */
  readExisting(call: ListingsCall, progress: ListingProgress): Promise<ExistingListing | null>;
  /**
   * The progress, told what the platform holds now (`existing`, as readExisting read it): a part changed on the platform
   * outside Storelink is recorded as the platform has it, so the next delivery sends the catalogue's again, and only there.
   */
  reconcile(progress: ListingProgress, existing: ExistingListing): ListingProgress;
  /** Bulk changes as one feed, where the platform has them. */
  readonly feeds?: BulkFeeds;
  /** The shop's recently changed listings, where the platform can list them by their time of change. */
  readonly changes?: ListingChanges;
}
