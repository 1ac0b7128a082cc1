/**
 * /site/<site>/listings/<listing>: one listing: its status, what it lists (each SKU's price and quantity as listed), the
 * platform's words, its actions, and, on an Amazon site, its advertising (advertising.tsx). Read again every 2 s while
 * its work is on its way and every 5 s while the platform reviews it, as the listings table does; `?advertise` (the
 * listings' "Advertise" action) opens the advertising form at once.
 */
import { useEffect, useRef, useState } from 'react';
import { api, inWorkspace, unwrap } from '../api/client';
import { useLiveChanges } from '../live';
import { Link, navigate } from '../router';
import { Breadcrumb, Editable, ErrorMessage, Frame, Loading, lastWorkspace, platformName, ReadOnly, usePageTitle, useRequest } from '../ui';
import { AdvertisingSection } from './advertising';
import { ListingIssueList } from './listing-attributes';
import { ListingOverrides } from './listing-overrides';
import {
  inFlight,
  inReview,
  type Listing,
  ListingStatusBadge,
  listingPlatformName,
  platformStatusWords,
  SyncBadge,
  siteListingsUrl,
  statusNote,
} from './listing-parts';
import { ListingActions } from './listings-table';
import { formatPrice, productUrl } from './product-parts';
import { loadSite } from './site';

const POLL_MS = 2_000;
const REVIEW_POLL_MS = 5_000;

async function loadListingPage(siteId: string, listingId: string) {
  const { workspaceId, role, site } = await loadSite(siteId);
  const params = { path: { listing_id: Number(listingId) }, header: inWorkspace(workspaceId) };
  const listing = unwrap(await api.GET('/api/v1/listings/{listing_id}', { params })).data;
  if (listing.site_id !== site.id) throw new Error('This listing is not one of this site’s.');
  const product = await api
    .GET('/api/v1/products/{product_id}', { params: { path: { product_id: listing.product_id }, header: inWorkspace(workspaceId) } })
    .then((result) => unwrap(result).data)
    .catch(() => null);
  // Amazon's marketplaces by the names a seller knows ("Amazon.com (US)"), by id: the site's choices, read from what
  // connecting stored (no call to Amazon). The listing's and its advertising's are named from them.
  const marketplaces: Readonly<Record<string, string>> = listing.marketplace_id
    ? await api
        .GET('/api/v1/sites/{site_id}/listing-options', { params: { path: { site_id: site.id }, header: inWorkspace(workspaceId) } })
        .then((result) => {
          const choices = (unwrap(result).data as Record<string, { value: string; label: string }[] | undefined>).marketplace_id;
          return Object.fromEntries((choices ?? []).map((choice) => [choice.value, choice.label]));
        })
        .catch(() => ({}))
    : {};
  const marketplace = listing.marketplace_id ? (marketplaces[listing.marketplace_id] ?? null) : null;
  return { workspaceId, role, site, listing, product, marketplace, marketplaces, title: product?.title ?? `Product ${listing.product_id}` };
}

/** The listing as last read: first from the page's load, then from each poll or action. */
function useLiveListing(first: Listing | null, workspaceId: string | null) {
  const [listing, setListing] = useState<Listing | null>(first);
  useEffect(() => setListing(first), [first]);
  const every = listing && inFlight(listing) ? POLL_MS : listing && inReview(listing) ? REVIEW_POLL_MS : null;
  const id = listing?.id ?? null;
  useEffect(() => {
    if (every === null || id === null || !workspaceId) return;
    const params = { path: { listing_id: id }, header: inWorkspace(workspaceId) };
    const timer = setInterval(() => {
      api
        .GET('/api/v1/listings/{listing_id}', { params })
        .then((result) => setListing(unwrap(result).data))
        .catch(() => undefined);
    }, every);
    return () => clearInterval(timer);
  }, [every, id, workspaceId]);
  // A change the polling would not see (the listing was settled, then failed or was fixed elsewhere) comes live.
  useLiveChanges(workspaceId, ['listings'], () => {
    if (id === null || !workspaceId) return;
    api
      .GET('/api/v1/listings/{listing_id}', { params: { path: { listing_id: id }, header: inWorkspace(workspaceId) } })
      .then((result) => setListing(unwrap(result).data))
      .catch(() => undefined);
  });
  return [listing, setListing] as const;
}

export function ListingPage({ siteId, listingId, search }: { siteId: string; listingId: string; search: URLSearchParams }) {
  const loaded = useRequest(() => loadListingPage(siteId, listingId), `listing-${siteId}-${listingId}`);
  const ready = loaded.state === 'ready' ? loaded.data : null;
  const [listing, setListing] = useLiveListing(ready?.listing ?? null, ready?.workspaceId ?? null);
  // `?advertise` is read once: the address keeps no state a reload would act on again.
  const advertise = useRef(search.has('advertise'));
  useEffect(() => {
    if (!search.has('advertise')) return;
    const url = new URL(window.location.href);
    url.searchParams.delete('advertise');
    navigate(`${url.pathname}${url.search}${url.hash}`, { replace: true });
  }, [search]);
  usePageTitle(ready?.title ?? `Listing ${listingId}`, ready?.site.name ?? `Site ${siteId}`);

  if (!ready || !listing) {
    return (
      <Frame workspaceId={lastWorkspace.get()}>
        <h1>Listing {listingId}</h1>
        {loaded.state === 'error' ? (
          <ErrorMessage error={loaded.error} title="Could not load the listing" />
        ) : (
          <Loading what="the listing" />
        )}
      </Frame>
    );
  }
  const { workspaceId, role, site, title, product, marketplace, marketplaces } = ready;
  const platform = listingPlatformName(listing);
  // A variant the platform ships from its own warehouses (Amazon's FBA) says so: its stock is the platform's count.
  const fulfilledByPlatform = listing.variants.some((v) => v.fulfilled_by === 'platform');
  /** The stock the platform counts for a variant it fulfils, as the last read found it (a difference from the catalogue). */
  const platformCount = (sku: string, listed: number) =>
    listing.differences.find((d) => d.field === `variants.${sku}.quantity`)?.platform ?? listed;
  const note = statusNote(listing.status, platform);
  return (
    <Frame workspaceId={workspaceId} role={role}>
      <Breadcrumb
        items={[
          { label: 'Dashboard', href: `/workspace/${workspaceId}/dashboard` },
          { label: site.name, href: siteListingsUrl(site.id) },
          { label: title },
        ]}
      />
      <h1>
        {title} <span className="muted small">on {site.name}</span>
      </h1>
      <section className="card listing-card" aria-labelledby="listing-heading">
        <h2 id="listing-heading">Listing</h2>
        <dl className="details">
          <dt>Status</dt>
          <dd>
            <ListingStatusBadge status={listing.status} platform={platform} /> <SyncBadge sync={listing.sync_status} />
            {note && <span className="muted small"> {note}</span>}
          </dd>
          <dt>Listed as</dt>
          <dd>{listing.title || title}</dd>
          <dt>Product</dt>
          <dd>
            <Link href={productUrl(workspaceId, listing.product_id)}>{title}</Link> <span className="muted small">(in the catalogue)</span>
          </dd>
          <dt>On {platform}</dt>
          <dd>
            {listing.platform_status ? (
              <span title={listing.platform_status}>{platformStatusWords(listing.platform_status)}</span>
            ) : (
              <span className="muted">Not yet</span>
            )}
            {listing.external_url && (
              <>
                {' · '}
                <a href={listing.external_url} target="_blank" rel="noopener noreferrer">
                  View on {platform} ↗
                </a>
              </>
            )}
          </dd>
          {listing.marketplace_id && (
            <>
              <dt>Marketplace</dt>
              <dd>{marketplace ?? <code>{listing.marketplace_id}</code>}</dd>
            </>
          )}
          <dt>Listing id</dt>
          <dd>{listing.id}</dd>
        </dl>
        {listing.variants.length > 0 && (
          <div className="table-wrap">
            <table>
              <caption className="visually-hidden">What the listing offers on {platform}</caption>
              <thead>
                <tr>
                  <th scope="col">SKU</th>
                  <th scope="col" className="num">
                    Price
                  </th>
                  <th scope="col" className="num">
                    Quantity
                  </th>
                  {fulfilledByPlatform && <th scope="col">Fulfilled by</th>}
                </tr>
              </thead>
              <tbody>
                {listing.variants.map((v) => (
                  <tr key={v.sku}>
                    <th scope="row">
                      <code>{v.sku}</code>
                    </th>
                    <td className="num">{formatPrice(v.price, listing.currency)}</td>
                    <td className="num">{v.fulfilled_by === 'platform' ? platformCount(v.sku, v.quantity) : v.quantity}</td>
                    {fulfilledByPlatform && (
                      <td>
                        {v.fulfilled_by === 'platform' ? (
                          <>
                            {platform}{' '}
                            <span className="muted small">
                              ({platform === 'Amazon' ? 'FBA' : 'its warehouses'}: {platform} counts this stock; Storelink never changes it)
                            </span>
                          </>
                        ) : (
                          'You'
                        )}
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <ListingIssueList
          listing={listing}
          workspaceId={workspaceId}
          platform={platform}
          variants={product?.variants}
          fixAt={{ settings: `${siteListingsUrl(site.id)}#settings-heading`, product: productUrl(workspaceId, listing.product_id) }}
        />
        <Editable>
          <ListingActions listing={listing} platform={platform} title={title} workspaceId={workspaceId} onChanged={setListing} />
        </Editable>
      </section>
      {product && listing.status !== 'deleted' && (
        <ReadOnly>
          <ListingOverrides listing={listing} product={product} platform={platform} workspaceId={workspaceId} onChanged={setListing} />
        </ReadOnly>
      )}
      {site.platform === 'amazon-seller' && (
        <AdvertisingSection
          site={site}
          listing={listing}
          title={title}
          workspaceId={workspaceId}
          role={role}
          listingVersion={`${listing.status}:${listing.sync_status}:${listing.updated_at}`}
          openForm={advertise.current}
          marketplaces={marketplaces}
        />
      )}
      <p>
        <Link href={siteListingsUrl(site.id)}>All listings of {site.name}</Link> ·{' '}
        <span className="muted">{platformName(site.platform)}</span>
      </p>
    </Frame>
  );
}
