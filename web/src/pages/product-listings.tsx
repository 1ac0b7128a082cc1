/**
 * The product page's "Listed on" section: for each site of the workspace, this product's listing there and its status,
 * linking to the site's listings page. Read as GET /sites, then each site's listings filtered here (the API has no
 * filter by product), a page of 100 at a time up to MAX_PAGES.
 */
import { api, inWorkspace, PAGE, unwrap } from '../api/client';
import { Link } from '../router';
import { ErrorMessage, Loading, platformName, useRequest } from '../ui';
import { type Listing, ListingStatusBadge, SyncBadge, siteListingsUrl } from './listing-parts';

const MAX_PAGES = 10;

async function listingOf(workspaceId: string, siteId: number, productId: number): Promise<Listing | null | 'unknown'> {
  let found: Listing | null = null;
  for (let page = 1; page <= MAX_PAGES; page++) {
    const result = unwrap(
      await api.GET('/api/v1/sites/{site_id}/listings', {
        params: { path: { site_id: siteId }, query: { page, per_page: PAGE.per_page }, header: inWorkspace(workspaceId) },
      }),
    );
    for (const listing of result.data) {
      // A listing not deleted is the one that counts; a deleted one is shown only when there is no other.
      if (listing.product_id === productId && (found === null || found.status === 'deleted')) found = listing;
    }
    if ((found && found.status !== 'deleted') || page * PAGE.per_page >= result.meta.total) return found;
  }
  return found ?? 'unknown';
}

export function ProductListings({ workspaceId, productId }: { workspaceId: string; productId: number }) {
  const loaded = useRequest(async () => {
    const sites = unwrap(await api.GET('/api/v1/sites', { params: { query: PAGE, header: inWorkspace(workspaceId) } })).data;
    const connected = sites.filter((site) => site.status !== 'disconnected');
    return Promise.all(connected.map(async (site) => ({ site, listing: await listingOf(workspaceId, site.id, productId) })));
  }, `product-listings-${workspaceId}-${productId}`);
  return (
    <section className="card" aria-labelledby="listed-heading">
      <h2 id="listed-heading">Listed on</h2>
      {loaded.state === 'loading' && <Loading what="where the product is listed" />}
      {loaded.state === 'error' && <ErrorMessage error={loaded.error} title="Could not load the listings" />}
      {loaded.state === 'ready' && loaded.data.length === 0 && (
        <p className="empty">No site is connected. Connect a shop from the dashboard to list this product there.</p>
      )}
      {loaded.state === 'ready' && loaded.data.length > 0 && (
        <ul className="listed-on">
          {loaded.data.map(({ site, listing }) => (
            <li key={site.id}>
              <Link href={siteListingsUrl(site.id)}>
                {site.name} ({platformName(site.platform)})
              </Link>
              :{' '}
              {listing === null ? (
                <span className="muted">not listed</span>
              ) : listing === 'unknown' ? (
                <span className="muted">not among its first {MAX_PAGES * PAGE.per_page} listings</span>
              ) : (
                <>
                  <ListingStatusBadge status={listing.status} /> <SyncBadge sync={listing.sync_status} />
                  {listing.external_url && (
                    <>
                      {' '}
                      <a href={listing.external_url} target="_blank" rel="noopener noreferrer">
                        View on {platformName(site.platform)} ↗
                      </a>
                    </>
                  )}
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
