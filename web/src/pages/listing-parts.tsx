/** Pieces the listings pages share: the listing's type, its statuses in words, its badges, and the fields' names. */
import type { paths } from '../api/schema';

export type Listing = paths['/api/v1/sites/{site_id}/listings']['get']['responses'][200]['content']['application/json']['data'][number];
export type ListingStatus = Listing['status'];
export type Issue = Listing['issues'][number];
export type Attribute =
  paths['/api/v1/sites/{site_id}/categories/{category_id}/attributes']['get']['responses'][200]['content']['application/json']['data'][number];
export type Category = paths['/api/v1/sites/{site_id}/categories']['get']['responses'][200]['content']['application/json']['data'][number];

/**
 * The platforms whose sites have listings (docs/listings.md: Etsy first; TikTok Shop and Amazon next). The API has no
 * capability flag to read this from, so the dashboard keeps it; the API's 422 on `site_id` stays the last word.
 */
export const LISTINGS_PLATFORMS: readonly string[] = ['etsy'];

export const siteListingsUrl = (siteId: number | string) => `/site/${siteId}/listings`;

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

export const statusLabel = (status: ListingStatus) => LISTING_STATUSES.find((s) => s.value === status)?.label ?? status;

export function ListingStatusBadge({ status }: { status: ListingStatus }) {
  return <span className={`badge listing-${status}`}>{statusLabel(status)}</span>;
}

export function SyncBadge({ sync }: { sync: Listing['sync_status'] }) {
  return <span className={`badge sync-${sync}`}>{SYNC_LABEL[sync]}</span>;
}

/** Whether the listing's work is still on its way (the page polls while any is). */
export const inFlight = (listing: Listing) => listing.status === 'pending' || listing.sync_status === 'syncing';

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
};

/** "attributes.200" → "Primary color", "settings.who_made" → "Who made it (site settings)", "product.images" → "Product images". */
export function describeField(field: string | null, attributes: readonly Attribute[] = []): string {
  if (!field) return 'Listing';
  const [head, name = '', ...rest] = field.split('.');
  if (head === 'attributes') return attributes.find((a) => a.name === name)?.label ?? `Attribute ${name}`;
  if (head === 'settings') return `${SETTING_LABEL[name] ?? name} (site settings)`;
  if (head === 'product') return `Product ${[name, ...rest].join(' ')}`.trim();
  if (field === 'category_id') return 'Category';
  if (field === 'product_id') return 'Product';
  if (field === 'site_id') return 'Site';
  return field;
}

/** What the seller can do about an issue, when Storelink knows. */
export function remedyOf(issue: Issue): string | null {
  const field = issue.field ?? '';
  if (field.startsWith('settings.')) return 'Set it in the listing settings above, then publish again.';
  if (field.startsWith('product.')) return 'Change the product in the catalogue; the listing follows it.';
  if (field.startsWith('attributes.') || field === 'category_id') return 'Change the category or its attributes.';
  if (issue.source === 'platform') return 'Change what the platform names, then refresh the listing.';
  return null;
}

export function IssueList({ issues, attributes }: { issues: readonly Issue[]; attributes?: readonly Attribute[] }) {
  if (issues.length === 0) return null;
  return (
    <ul className="issues">
      {issues.map((issue, i) => {
        const remedy = remedyOf(issue);
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: issues have no id and are shown as given
          <li key={i} className={`issue issue-${issue.severity}`}>
            <span className="issue-field">{describeField(issue.field, attributes)}:</span> {issue.message}
            {issue.source === 'platform' && <span className="muted small"> (the platform's words)</span>}
            {remedy && <span className="muted small"> {remedy}</span>}
          </li>
        );
      })}
    </ul>
  );
}
