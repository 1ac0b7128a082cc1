/**
 * The workspace overview on the dashboard (issue 37, item 3; docs/dashboard.md "Overview"): each site's listings by
 * status (GET /overview), what needs fixing (rejected listings, failed syncs, oversold orders; sites needing
 * reauthorization are the dashboard's banner above), and the latest orders (GET /orders). Every figure links to where it
 * is fixed or read, and the whole follows the workspace's live status (live.ts) without a reload.
 */
import { api, inWorkspace, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { useLiveChanges } from '../live';
import { Link } from '../router';
import { ErrorMessage, Loading, platformName, useRequest } from '../ui';
import { ListingStatusBadge, listingUrl, SyncBadge, siteListingsUrl } from './listing-parts';
import { ordersUrl } from './order-parts';
import { OrderTable } from './order-table';

type Overview = components['schemas']['Overview'];
type SiteCounts = Overview['sites'][number];
type Status = keyof SiteCounts['listings']['by_status'];

const RECENT_ORDERS = 5;
const listingsCount = (n: number) => `${n} ${n === 1 ? 'listing' : 'listings'}`;
/** The columns of the table, in a seller's order: what sells, what is on its way, what is stuck. */
const COLUMNS: { status: Status; label: string }[] = [
  { status: 'active', label: 'Active' },
  { status: 'in_review', label: 'In review' },
  { status: 'pending', label: 'Pending' },
  { status: 'inactive', label: 'Inactive' },
  { status: 'rejected', label: 'Rejected' },
  { status: 'error', label: 'Error' },
];

async function loadOverview(workspaceId: string) {
  return unwrap(await api.GET('/api/v1/overview', { params: { header: inWorkspace(workspaceId) } })).data;
}

async function loadRecentOrders(workspaceId: string) {
  const query = { page: 1, per_page: RECENT_ORDERS };
  return unwrap(await api.GET('/api/v1/orders', { params: { query, header: inWorkspace(workspaceId) } }));
}

/** A count linking to the site's listings filtered to it; a zero is plain. */
function Count({ site, status, value, label }: { site: SiteCounts; status: Status | null; value: number; label: string }) {
  if (value === 0) return <span className="muted">0</span>;
  const href = status ? `${siteListingsUrl(site.id)}?status=${status}` : siteListingsUrl(site.id);
  return (
    <Link href={href} aria-label={`${value} ${label.toLowerCase()} on ${site.name}`}>
      {value}
    </Link>
  );
}

function ChannelTable({ sites }: { sites: SiteCounts[] }) {
  if (sites.length === 0) return <p className="empty">No sites yet: connect one to list products on it.</p>;
  return (
    <div className="table-wrap">
      <table className="stack overview-table">
        <thead>
          <tr>
            <th scope="col">Site</th>
            {COLUMNS.map((c) => (
              <th scope="col" className="num" key={c.status}>
                {c.label}
              </th>
            ))}
            <th scope="col" className="num">
              Sync failed
            </th>
            <th scope="col" className="num">
              Total
            </th>
          </tr>
        </thead>
        <tbody>
          {sites.map((site) => (
            <tr key={site.id} data-site={site.id}>
              <th scope="row" data-label="Site">
                <Link href={siteListingsUrl(site.id)}>{site.name}</Link> <span className="muted small">{platformName(site.platform)}</span>
              </th>
              {COLUMNS.map((c) => (
                <td className="num" data-label={c.label} key={c.status}>
                  <Count site={site} status={c.status} value={site.listings.by_status[c.status]} label={c.label} />
                </td>
              ))}
              <td className="num" data-label="Sync failed">
                <Count site={site} status={null} value={site.listings.by_sync.failed} label="Sync failed" />
              </td>
              <td className="num" data-label="Total">
                {site.listings.total}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function NeedsFixing({ overview, workspaceId }: { overview: Overview; workspaceId: string }) {
  const { listings_to_fix: toFix, oversold_orders: oversold } = overview;
  const siteOf = (id: number) => overview.sites.find((s) => s.id === id);
  const reconnect = overview.sites.filter((s) => s.status === 'reauthorization_required');
  if (toFix.total === 0 && oversold === 0 && reconnect.length === 0) return <p className="empty">Nothing needs fixing.</p>;
  return (
    <ul className="fix-list">
      {reconnect.map((site) => (
        <li key={`site-${site.id}`}>
          <Link href={siteListingsUrl(site.id)}>{site.name}</Link> on {platformName(site.platform)}: reconnect it, the platform stopped
          accepting Storelink’s access.
        </li>
      ))}
      {oversold > 0 && (
        <li>
          <Link href={ordersUrl(workspaceId)}>{oversold === 1 ? '1 order was oversold' : `${oversold} orders were oversold`}</Link>: the
          stock pool could not cover every unit sold.
        </li>
      )}
      {toFix.shown.map((listing) => {
        const site = siteOf(listing.site_id);
        const platform = site ? platformName(site.platform) : undefined;
        return (
          <li key={listing.id} data-listing={listing.id}>
            <Link href={listingUrl(listing)}>{listing.title || `Listing ${listing.id}`}</Link>{' '}
            <span className="muted">on {site?.name ?? `site ${listing.site_id}`}</span>{' '}
            <ListingStatusBadge status={listing.status} platform={platform} />{' '}
            {listing.sync_status === 'failed' && <SyncBadge sync="failed" />}
            {listing.issues[0] && <p className="small status-reason">{listing.issues[0].message}</p>}
          </li>
        );
      })}
      {toFix.total > toFix.shown.length && (
        <li className="muted">and {toFix.total - toFix.shown.length} more listings: each site’s page lists them by status.</li>
      )}
    </ul>
  );
}

export function WorkspaceOverview({ workspaceId, siteName }: { workspaceId: string; siteName: (id: number) => string }) {
  const overview = useRequest(() => loadOverview(workspaceId), `overview-${workspaceId}`);
  const orders = useRequest(() => loadRecentOrders(workspaceId), `recent-orders-${workspaceId}`);
  useLiveChanges(workspaceId, ['listings', 'sites', 'orders'], overview.refresh);
  useLiveChanges(workspaceId, ['orders'], orders.refresh);
  return (
    <>
      <section aria-labelledby="channels-heading" className="card">
        <h2 id="channels-heading">Listings by channel</h2>
        {overview.state === 'loading' && <Loading what="the overview" />}
        {overview.state === 'error' && <ErrorMessage error={overview.error} title="Could not load the overview" />}
        {overview.state === 'ready' && <ChannelTable sites={overview.data.sites} />}
      </section>
      <section aria-labelledby="fixing-heading" className="card">
        <h2 id="fixing-heading">
          Needs fixing
          {overview.state === 'ready' && overview.data.listings_to_fix.total > 0 && (
            <span className="muted small"> ({listingsCount(overview.data.listings_to_fix.total)})</span>
          )}
        </h2>
        {overview.state === 'ready' && <NeedsFixing overview={overview.data} workspaceId={workspaceId} />}
        {overview.state === 'loading' && <Loading what="what needs fixing" />}
      </section>
      <section aria-labelledby="recent-orders-heading" className="card">
        <h2 id="recent-orders-heading">Recent orders</h2>
        {orders.state === 'loading' && <Loading what="the orders" />}
        {orders.state === 'error' && <ErrorMessage error={orders.error} title="Could not load the orders" />}
        {orders.state === 'ready' && orders.data.data.length === 0 && <p className="empty">No orders yet.</p>}
        {orders.state === 'ready' && orders.data.data.length > 0 && (
          <>
            <OrderTable workspaceId={workspaceId} rows={orders.data.data} siteName={siteName} />
            <p>
              <Link href={ordersUrl(workspaceId)}>All {orders.data.meta.total} orders</Link>
            </p>
          </>
        )}
      </section>
    </>
  );
}
