/** Pieces the listings pages share: the listing's type, its statuses in words, its badges, and the fields' names. */
import type { paths } from '../api/schema';
import { Link } from '../router';
import { PLATFORMS } from '../ui';

export type Listing = paths['/api/v1/sites/{site_id}/listings']['get']['responses'][200]['content']['application/json']['data'][number];
export type ListingStatus = Listing['status'];
export type Issue = Listing['issues'][number];
export type Attribute =
  paths['/api/v1/sites/{site_id}/categories/{category_id}/attributes']['get']['responses'][200]['content']['application/json']['data'][number];
export type Category = paths['/api/v1/sites/{site_id}/categories']['get']['responses'][200]['content']['application/json']['data'][number];

/**
 * The platforms whose sites have listings (docs/listings.md: Etsy, TikTok Shop and Amazon). The API has no capability
 * flag to read this from, so the dashboard keeps it; the API's 422 on `site_id` stays the last word.
 */
export const LISTINGS_PLATFORMS: readonly string[] = ['etsy', 'tiktok-shop', 'amazon-seller'];

/** The name a seller knows the listing's platform by ("TikTok Shop"), from its `platform_id`. */
export const listingPlatformName = (listing: Pick<Listing, 'platform_id'>) =>
  PLATFORMS.find((p) => p.id === listing.platform_id)?.name ?? 'the platform';

/** Platform codes a seller meets, in words; one not here reads as its words in sentence case. */
const PLATFORM_WORDS: Readonly<Record<string, string>> = {
  ACTIVATE: 'Live',
  SELLER_DEACTIVATED: 'Deactivated by you',
  PLATFORM_DEACTIVATED: 'Deactivated by TikTok Shop',
  FREEZE: 'Frozen by TikTok Shop',
  ACCEPTED: 'Accepted, being processed',
  PENDING: 'Pending review',
  FAILED: 'Failed review',
};

/**
 * The platform's own word for a listing's state in a seller's words: `BUYABLE,DISCOVERABLE` reads "Buyable,
 * discoverable", `SELLER_DEACTIVATED` "Deactivated by you"; Etsy's `active`, a word already, as it is.
 */
export function platformStatusWords(code: string): string {
  // A platform that says its state in words (Etsy's `active`) is shown as it says it.
  if (!/[A-Z]/.test(code)) return code;
  const words = code
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => PLATFORM_WORDS[part] ?? part.toLowerCase().replaceAll('_', ' '))
    .join(', ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The listing's prices in words: one price, or the range its variants span ("$18.00–$19.50"). */
export function priceRange(listing: Pick<Listing, 'variants' | 'price'>, format: (price: string) => string): string | null {
  const prices = listing.variants.map((v) => Number(v.price)).filter((n) => Number.isFinite(n));
  if (prices.length === 0) return listing.price === null ? null : format(listing.price);
  const low = listing.variants.find((v) => Number(v.price) === Math.min(...prices))!.price;
  const high = listing.variants.find((v) => Number(v.price) === Math.max(...prices))!.price;
  return low === high || Number(low) === Number(high) ? format(low) : `${format(low)}–${format(high)}`;
}

/** The listing's stock across its variants; null before it has any. */
export const totalStock = (listing: Pick<Listing, 'variants' | 'quantity'>): number | null =>
  listing.variants.length === 0 ? listing.quantity : listing.variants.reduce((sum, v) => sum + v.quantity, 0);

export const siteListingsUrl = (siteId: number | string) => `/site/${siteId}/listings`;

/** The listing's own page (its details, and on Amazon its advertising); `advertise` opens the advertising form there. */
export const listingUrl = (listing: Pick<Listing, 'id' | 'site_id'>, options: { advertise?: boolean } = {}) =>
  `/site/${listing.site_id}/listings/${listing.id}${options.advertise ? '?advertise' : ''}`;

/**
 * Whether the listings offer "Advertise" (Amazon only, owners and admins): `ready` when the site's advertising is
 * connected, `not-connected` (the action shown disabled, with how to connect it), `hidden` for other sites and roles.
 */
export type AdvertiseOffer = 'ready' | 'not-connected' | 'hidden';

export const LISTING_STATUSES: { value: ListingStatus; label: string }[] = [
  { value: 'pending', label: 'Pending' },
  { value: 'in_review', label: 'In review' },
  { value: 'active', label: 'Active' },
  { value: 'inactive', label: 'Inactive' },
  { value: 'rejected', label: 'Rejected' },
  { value: 'error', label: 'Error' },
  { value: 'deleted', label: 'Deleted' },
];

const SYNC_LABEL: Record<Listing['sync_status'], string> = { synced: 'Synced', syncing: 'Syncing…', failed: 'Failed' };

/**
 * A status in words; given the platform's name, a review says whose ("In review on TikTok Shop"): the platform decides
 * when it ends, not Storelink.
 */
export function statusLabel(status: ListingStatus, platform?: string): string {
  if (status === 'in_review' && platform) return `In review on ${platform}`;
  return LISTING_STATUSES.find((s) => s.value === status)?.label ?? status;
}

/** What a status means for the seller, where the word alone does not say it (the badge's tooltip and the table's note). */
export function statusNote(status: ListingStatus, platform: string): string | null {
  if (status === 'in_review' && platform === 'Amazon')
    return 'Amazon processes the listing before buyers can buy it; this page follows it until it is buyable.';
  if (status === 'in_review') return `${platform} reviews the listing before buyers see it; this page follows it until the review ends.`;
  if (status === 'rejected') return `${platform} refused the listing: its issues say why.`;
  return null;
}

export function ListingStatusBadge({ status, platform }: { status: ListingStatus; platform?: string }) {
  const note = platform ? statusNote(status, platform) : null;
  return (
    <span className={`badge listing-${status}`} title={note ?? undefined}>
      {statusLabel(status, platform)}
    </span>
  );
}

export function SyncBadge({ sync }: { sync: Listing['sync_status'] }) {
  return <span className={`badge sync-${sync}`}>{SYNC_LABEL[sync]}</span>;
}

/** Whether the listing's work is still on its way (the page polls while any is). */
export const inFlight = (listing: Listing) => listing.status === 'pending' || listing.sync_status === 'syncing';

/** Whether the platform is reviewing the listing (TikTok Shop's audit): the page polls, more slowly, while any is. */
export const inReview = (listing: Listing) => listing.status === 'in_review';

/** The names a seller reads for the settings' fields. */
export const SETTING_LABEL: Record<string, string> = {
  shipping_profile_id: 'Shipping profile',
  return_policy_id: 'Return policy',
  readiness_state_id: 'Processing profile',
  who_made: 'Who made it',
  when_made: 'When it was made',
  is_supply: 'It is a supply or tool for making things',
  warehouse_id: 'Warehouse',
  marketplace_id: 'Marketplace',
  condition_type: 'Condition',
  price_adjustment_percent: 'Price adjustment (%)',
  stock_buffer: 'Stock buffer',
  exchange_rates: 'Exchange rates',
};

/** A product's variant as an issue names it: its sku and option values. */
export interface NamedVariant {
  sku: string;
  option_values?: Record<string, string> | null;
}

const words = (key: string) => key.replace(/_/g, ' ');

/** "product.variants.0.barcode" → "Variant MUG-W (White): barcode"; "product.images.1" → "Image 2 of the product". */
function describeProductField(path: readonly string[], variants: readonly NamedVariant[] | undefined): string {
  const [part = '', index, ...rest] = path;
  const n = Number(index);
  const tail = rest.length > 0 ? ` ${rest.map(words).join(' ')}` : '';
  if (part === 'variants' && Number.isInteger(n)) {
    const variant = variants?.[n];
    const values = variant?.option_values ? Object.values(variant.option_values).join(', ') : '';
    const name = variant ? `Variant ${variant.sku}${values ? ` (${values})` : ''}` : `Variant ${n + 1}`;
    return `${name}${tail}`;
  }
  if (part === 'images' && Number.isInteger(n)) return `Image ${n + 1} of the product${tail}`;
  if (part === 'options' && Number.isInteger(n)) return `Option ${n + 1} of the product${tail}`;
  return `Product ${[part, index, ...rest]
    .filter((each) => each !== undefined)
    .map(words)
    .join(' ')}`.trim();
}

/** "attributes.200" → "Primary color", "settings.who_made" → "Who made it (site settings)", "product.images" → "Product images". */
export function describeField(field: string | null, attributes: readonly Attribute[] = [], variants?: readonly NamedVariant[]): string {
  if (!field) return 'Listing';
  const [head, name = '', ...rest] = field.split('.');
  if (head === 'attributes') return attributes.find((a) => a.name === name)?.label ?? `Attribute ${words(name)}`;
  if (head === 'settings') return `${SETTING_LABEL[name] ?? words(name)} (site settings)`;
  if (head === 'product') return describeProductField([name, ...rest], variants);
  if (field === 'category_id') return 'Category';
  if (field === 'product_id') return 'Product';
  if (field === 'site_id') return 'Site';
  // A field the platform names in its own words ("main_images"), said as words: "Main images".
  if (/^[a-z][a-z_]*$/.test(field)) return `${field[0]!.toUpperCase()}${field.slice(1).replace(/_/g, ' ')}`;
  return field;
}

/** What the seller can do about an issue, when Storelink knows. */
export function remedyOf(issue: Issue, platform = 'the platform'): string | null {
  const field = issue.field ?? '';
  if (field.startsWith('settings.')) return 'Set it in the site’s listing settings, then publish again.';
  if (field.startsWith('product.')) return 'Change the product in the catalogue; the listing follows it.';
  if (field.startsWith('attributes.') || field === 'category_id') return 'Change the category or its attributes.';
  // A platform's warning is its advice already (TikTok Shop's listing check: "Use a title of at least 25 characters.").
  if (issue.source === 'platform' && issue.severity === 'warning') return null;
  if (issue.source === 'platform') return `Change what ${platform} names, then refresh the listing.`;
  return null;
}

/** Where an issue is fixed, when the page knows: the site's listing settings, the product in the catalogue. */
export interface FixLinks {
  settings?: string;
  product?: string;
}

/** The page an issue is fixed on, and its link's words; null where the page gave none. */
function fixLinkOf(issue: Issue, fixAt: FixLinks | undefined): { href: string; label: string } | null {
  const field = issue.field ?? '';
  if (field.startsWith('settings.') && fixAt?.settings) return { href: fixAt.settings, label: 'Open the listing settings' };
  if (field.startsWith('product.') && fixAt?.product) return { href: fixAt.product, label: 'Open the product' };
  return null;
}

/**
 * The issues, each on its field in words (a variant by its sku and options when `variants` are given); `platform` names
 * whose words a platform's issue is ("TikTok Shop's words"); `fixAt` links each to where it is fixed.
 */
export function IssueList({
  issues,
  attributes,
  platform,
  variants,
  fixAt,
}: {
  issues: readonly Issue[];
  attributes?: readonly Attribute[];
  platform?: string;
  variants?: readonly NamedVariant[];
  fixAt?: FixLinks;
}) {
  if (issues.length === 0) return null;
  return (
    <ul className="issues">
      {issues.map((issue, i) => {
        const remedy = remedyOf(issue, platform);
        const fix = fixLinkOf(issue, fixAt);
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: issues have no id and are shown as given
          <li key={i} className={`issue issue-${issue.severity}`}>
            {issue.severity === 'warning' && <span className="issue-severity">Warning: </span>}
            <span className="issue-field">{describeField(issue.field, attributes, variants)}:</span> {issue.message}
            {issue.source === 'platform' && <span className="muted small"> ({platform ? `${platform}’s` : "the platform's"} words)</span>}
            {remedy && <span className="muted small"> {remedy}</span>}
            {fix && <> {fix.href.startsWith('#') ? <a href={fix.href}>{fix.label}</a> : <Link href={fix.href}>{fix.label}</Link>}</>}
          </li>
        );
      })}
    </ul>
  );
}
