/** What platform adapters implement, by capability, so core never needs to know which platform it talks to. */
import type {
  AdvertisingProfile,
  AmazonRegion,
  Category,
  CategoryAttribute,
  ListingIssue,
  ListingStatus,
  ProductOption,
  ProductPackage,
  SitePlatform,
  Track,
} from '../domain/index.js';

/** Tokens as the service keeps them, whatever shape the platform sent them in. */
export interface TokenSet {
  accessToken: string;
  refreshToken: string | null;
  accessExpiresAt: Date | null;
  refreshExpiresAt: Date | null;
}

/** What the platform's redirect back says, read from its own query parameters. */
export type CallbackResult =
  | { kind: 'code'; code: string; params: Readonly<Record<string, string>> }
  | { kind: 'denied'; message: string }
  | { kind: 'error'; message: string };

/**
 * A platform account a seller track connected, which becomes a site: its external id, display name, and what later
 * calls need to know of it that is not secret (TikTok Shop's shop cipher, Amazon's marketplaces and store name).
 */
export interface PlatformAccount {
  externalId: string;
  name: string;
  data: Readonly<Record<string, unknown>>;
  /** An id the same account was stored under before (TikTok Shop sites were keyed by their cipher until 2026-11). */
  formerExternalId?: string;
}

/** What a grant was made for beyond its tokens: Amazon's region (null on the other platforms). */
export interface GrantScope {
  region: AmazonRegion | null;
}

/**
 * Who a failed platform call is for:
 * - `rejected`: the seller's side. The platform says the code or the grant is gone (`invalid_grant`, TikTok's 36004xxx),
 *   or the account cannot be connected (an Etsy user without a shop); the site must be reconnected, and the message is
 *   shown to the user.
 * - `misconfigured`: the operator's side. The platform refused Storelink's own app: a wrong client id or secret (Amazon
 *   makes operators rotate the LWA secret every 180 days), a missing shared secret, an unauthorized client, TikTok's
 *   36009004, or a request the platform calls malformed. No seller can fix it by reconnecting; sites stay connected and
 *   recover when the configuration is fixed.
 * - `unavailable`: passing. The platform could not be reached, timed out, was throttled or failed on its side
 *   (`server_error`, `temporarily_unavailable`, TikTok's 36009003 and 36009007), or answered with something unreadable;
 *   the call is tried again later, no earlier than `retryAfterMs` when the platform said so.
 */
export type PlatformFailure = 'rejected' | 'misconfigured' | 'unavailable';

export class PlatformError extends Error {
  constructor(
    readonly reason: PlatformFailure,
    message: string,
    /** The platform's `Retry-After`, in milliseconds, on a passing failure that carried one. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = 'PlatformError';
  }
}

/**
 * The connect capability, shared by both kinds of track: build the authorization URL, read the redirect back, and
 * exchange and refresh tokens.
 */
interface ConnectAdapterBase {
  readonly track: Track;
  readonly platformId: 1 | 4 | 5;
  /** True for platforms that take PKCE (S256) on the authorization request. */
  readonly usesPkce: boolean;
  /** Whether the track has regions (Amazon): its connections pick one, and every later call goes to that region's hosts. */
  readonly regional: boolean;
  /**
   * The OAuth scopes every connection asks for, and the subset Storelink's features need (a site granted fewer says
   * which are missing); null for platforms whose scopes are set on the app, not per request.
   */
  readonly scopes: { readonly requested: readonly string[]; readonly needed: readonly string[] } | null;
  buildAuthorizationUrl(input: {
    state: string;
    redirectUri: string;
    codeChallenge: string | null;
    authorizationUrl: string | null;
    grant: GrantScope;
  }): string;
  readCallback(query: Readonly<Record<string, string | undefined>>): CallbackResult;
  exchangeCode(input: {
    code: string;
    redirectUri: string;
    codeVerifier: string | null;
    params: Readonly<Record<string, string>>;
    grant: GrantScope;
  }): Promise<TokenSet>;
  refreshToken(refreshToken: string, grant: GrantScope): Promise<TokenSet>;
}

/**
 * Connects seller accounts, each of which becomes a site: the accounts are looked up once the tokens are in hand. One
 * authorization may cover several (a TikTok Shop seller authorizes every shop at once); there is always at least one.
 */
export interface SellerConnectAdapter extends ConnectAdapterBase {
  readonly kind: 'seller';
  readonly platform: SitePlatform;
  fetchAccounts(tokens: TokenSet, params: Readonly<Record<string, string>>, grant: GrantScope): Promise<PlatformAccount[]>;
}

/** Connects advertising to an existing seller site: the grant's profiles, in its region, are looked up once the tokens are in hand. */
export interface AdvertisingConnectAdapter extends ConnectAdapterBase {
  readonly kind: 'advertising';
  fetchProfiles(tokens: TokenSet, grant: GrantScope): Promise<AdvertisingProfile[]>;
}

/** The connect capability of one track: every track has it, and `kind` says which of the two it is. */
export type ConnectAdapter = SellerConnectAdapter | AdvertisingConnectAdapter;

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
}

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
  /** The key of the image whose upload was sent and not yet answered: one the platform took is found, not sent again. */
  uploading?: string | null;
  /** Part name (the adapter's own: fields, inventory, images) to the fingerprint of what the platform last took. */
  delivered: Record<string, string>;
  /** Sku to the platform's id of the variant, where it has one. */
  variantIds: Record<string, string>;
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
    readonly tags: readonly string[];
    readonly currency: string;
    readonly options: readonly ProductOption[];
    readonly variants: readonly { sku: string | null; optionValues: Record<string, string>; price: string; quantity: number }[];
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

/**
 * The listings capability (DESIGN §10): what the engine asks of a platform. Every method may throw PlatformError
 * (`rejected`: the grant is gone, the site must be reconnected; `unavailable`: try again, after `retryAfterMs`), or
 * ListingRefused for an answer that refuses the listing itself (its issues, in the platform's words).
 */
export interface ListingsAdapter {
  readonly platform: SitePlatform;
  /** The listing settings a site needs before anything is published on it. */
  readonly requiredSettings: readonly string[];
  /** The choices of the settings, read from the platform: `{<settings field>: [{value, label}]}`. */
  listingOptions(call: ListingsCall): Promise<Record<string, { value: string; label: string }[]>>;
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
}

/**
 * The reads of the listings capability (settings choices, categories, their attributes): what a platform implements
 * before its listings are published and kept in sync.
 */
export type ListingsReads = Pick<
  ListingsAdapter,
  'platform' | 'requiredSettings' | 'listingOptions' | 'categories' | 'category' | 'categoryAttributes'
>;

/** The platform refused the listing itself (not the grant, not a passing failure): its reasons, in its own words. */
export class ListingRefused extends Error {
  constructor(readonly issues: ListingIssue[]) {
    super(issues.map((issue) => issue.message).join(' '));
    this.name = 'ListingRefused';
  }
}

/** What an Amazon Ads call needs: a valid advertising token, the profile it acts in, and that profile's region. */
export interface AdsCall {
  readonly accessToken: string;
  readonly profileId: string;
  readonly region: AmazonRegion;
  readonly signal?: AbortSignal;
  /** Awaited before every call: the engine's pacing (it may wait, or throw `unavailable` to put the work off). */
  readonly beforeCall?: () => Promise<void>;
}

/** A Sponsored Products entity's state on Amazon; `other` for one Amazon reports that Storelink does not set. */
export type AdEntityState = 'enabled' | 'paused' | 'archived' | 'other';

export interface AdEntity {
  id: string;
  state: AdEntityState;
}

/** One row of the advertised-product report: a product ad's figures on one day (money as Amazon's numbers). */
export interface AdReportRow {
  date: string;
  adId: string;
  impressions: number;
  clicks: number;
  cost: number;
  orders: number;
  sales: number;
}

export type AdReportStatus = { status: 'pending' } | { status: 'failed'; reason: string } | { status: 'completed'; url: string };

/**
 * The advertising capability (Amazon Ads, Sponsored Products v3, listings.md §4): create the campaign, ad group, product
 * ads and keywords of one listing, find them again by what identifies them (a job run again after a lost answer creates
 * nothing twice), change their budget, bid and state, archive them, and read the advertised-product report.
 * Amazon's per-item refusals (its 207 answers) are thrown as `ListingRefused`; a refused grant as `rejected`.
 */
export interface AdvertisingAdapter {
  /** Amazon's bounds on a daily budget and a bid in `currency` (`[min, max]`); null where Storelink does not know them. */
  bounds(currency: string): { budget: readonly [number, number]; bid: readonly [number, number] } | null;
  campaignNamed(call: AdsCall, name: string): Promise<AdEntity | null>;
  createCampaign(
    call: AdsCall,
    campaign: { name: string; targeting: 'auto' | 'manual'; dailyBudget: number; state: 'enabled' | 'paused' },
  ): Promise<string>;
  adGroupsOf(call: AdsCall, campaignId: string): Promise<AdEntity[]>;
  createAdGroup(
    call: AdsCall,
    adGroup: { campaignId: string; name: string; defaultBid: number; state: 'enabled' | 'paused' },
  ): Promise<string>;
  productAdsOf(call: AdsCall, adGroupId: string): Promise<Array<AdEntity & { sku: string }>>;
  /** The ad id of each SKU Amazon took, and its refusals of the others (a SKU it cannot advertise, say). */
  createProductAds(
    call: AdsCall,
    ads: { campaignId: string; adGroupId: string; skus: readonly string[]; state: 'enabled' | 'paused' },
  ): Promise<{ adIds: Record<string, string>; refused: ListingIssue[] }>;
  keywordsOf(call: AdsCall, adGroupId: string): Promise<Array<AdEntity & { text: string; matchType: string }>>;
  createKeywords(
    call: AdsCall,
    keywords: {
      campaignId: string;
      adGroupId: string;
      keywords: ReadonlyArray<{ text: string; matchType: 'exact' | 'phrase' | 'broad'; bid: number }>;
    },
  ): Promise<string[]>;
  updateCampaign(call: AdsCall, campaignId: string, change: { dailyBudget?: number; state?: 'enabled' | 'paused' }): Promise<void>;
  updateAdGroup(call: AdsCall, adGroupId: string, change: { defaultBid?: number; state?: 'enabled' | 'paused' }): Promise<void>;
  updateProductAds(call: AdsCall, adIds: readonly string[], state: 'enabled' | 'paused'): Promise<void>;
  /** Archives the campaign (Amazon's delete: final, its ads stop with it). */
  archiveCampaign(call: AdsCall, campaignId: string): Promise<void>;
  /** Asks for the daily advertised-product report of the profile from `from` to `to` (at most 31 days); its id. */
  requestReport(call: AdsCall, range: { from: string; to: string }): Promise<string>;
  reportStatus(call: AdsCall, reportId: string): Promise<AdReportStatus>;
  /** Downloads and reads a completed report's file (a presigned URL: no Amazon headers go with it). */
  downloadReport(url: string, signal?: AbortSignal): Promise<AdReportRow[]>;
}
