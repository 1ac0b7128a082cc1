/**
 * The product page's "Listed on" section: for each site of the workspace, this product's listing there, its status (a
 * review named by its platform: "In review on TikTok Shop"), the platform's issues and whether it differs from the
 * catalogue, linking to the site's listings page and to the listing's own (with "Advertise…" for an active Amazon listing
 * when the site's advertising is connected and the caller may advertise). Read as GET /sites, then each site's listings
 * of this product (`?product_id=`).
 */
import { api, inWorkspace, PAGE, unwrap } from '../api/client';
import { canManage, type Role } from '../roles';
import { Link } from '../router';
import { ErrorMessage, Loading, platformName, useRequest } from '../ui';
import { ListingIssueList } from './listing-attributes';
import { type Listing, ListingStatusBadge, listingUrl, type NamedVariant, SyncBadge, siteListingsUrl } from './listing-parts';

/** The product's listing on the site: the one not deleted, else the last deleted one, else null. */
async function listingOf(workspaceId: string, siteId: number, productId: number): Promise<Listing | null> {
  const { data } = unwrap(
    await api.GET('/api/v1/sites/{site_id}/listings', {
      params: { path: { site_id: siteId }, query: { ...PAGE, product_id: productId }, header: inWorkspace(workspaceId) },
    }),
  );
  return data.find((listing) => listing.status !== 'deleted') ?? data.at(-1) ?? null;
}

export function ProductListings({
  workspaceId,
  productId,
  variants,
  role,
}: {
  workspaceId: string;
  productId: number;
  /** The product's variants, so an issue on one names it by its sku and options, not its place. */
  variants: readonly NamedVariant[];
  role?: Role;
}) {
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
              ) : (
                <>
                  <ListingStatusBadge status={listing.status} platform={platformName(site.platform)} />{' '}
                  <SyncBadge sync={listing.sync_status} />
                  {listing.external_url && (
                    <>
                      {' '}
                      <a href={listing.external_url} target="_blank" rel="noopener noreferrer">
                        View on {platformName(site.platform)} ↗
                      </a>
                    </>
                  )}
                  {listing.status !== 'deleted' && listing.differences.length > 0 && (
                    <span className="muted small">
                      {' '}
                      {listing.sync_status === 'failed'
                        ? `${platformName(site.platform)} kept its earlier version: see the site's listings.`
                        : `Changed on ${platformName(site.platform)}: see the site's listings.`}
                    </span>
                  )}{' '}
                  <Link href={listingUrl(listing)} aria-label={`Details of the listing on ${site.name}`}>
                    Details
                  </Link>
                  {listing.status === 'active' && site.platform_id === 5 && site.advertising?.connected && role && canManage(role) && (
                    <>
                      {' · '}
                      <Link href={listingUrl(listing, { advertise: true })} aria-label={`Advertise the listing on ${site.name}`}>
                        Advertise…
                      </Link>
                    </>
                  )}
                  {listing.status !== 'deleted' && (
                    <ListingIssueList
                      listing={listing}
                      workspaceId={workspaceId}
                      platform={platformName(site.platform)}
                      variants={variants}
                    />
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
