/**
 * The site's listings: a status filter, a table (product, status, sync, price and quantity as listed, the platform's
 * word, a link to the listing there, its issues) and each listing's actions. While any listing is pending or syncing
 * the list is read again every 2 s, so its status changes live; while any is in the platform's review (TikTok Shop's
 * audit, which takes from seconds to days) every 5 s; the polling stops when none is. The platform is named as the
 * seller knows it ("In review on TikTok Shop", "Changed on Etsy").
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { api, inWorkspace, unwrap } from '../api/client';
import { useLiveChanges } from '../live';
import { Link } from '../router';
import { Editable, ErrorMessage, Loading } from '../ui';
import { ListingIssueList } from './listing-attributes';
import {
  type AdvertiseOffer,
  inFlight,
  inReview,
  LISTING_STATUSES,
  type Listing,
  type ListingStatus,
  ListingStatusBadge,
  listingPlatformName,
  listingUrl,
  type NamedVariant,
  platformStatusWords,
  priceRange,
  SyncBadge,
  statusNote,
  totalStock,
} from './listing-parts';
import { formatPrice, productUrl, Thumb } from './product-parts';

const PER_PAGE = 25;
const POLL_MS = 2_000;
/** A review is the platform's and may last days: read less often while only reviews are awaited. */
const REVIEW_POLL_MS = 5_000;

interface ProductName {
  title: string;
  image: string | undefined;
  /** To name an issue's variant by its SKU and options, not its place. */
  variants: readonly NamedVariant[];
}

/**
 * The products' names, one GET /products/{id} per product the table shows, each once for the life of the page. Chosen
 * over GET /products?per_page=100 because that holds only the first 100 products of the catalogue, while a site's
 * listings may be of any of them; a page of listings has at most 25 products, and polling asks for none again.
 */
function useProductNames(workspaceId: string, rows: readonly Listing[]) {
  const [names, setNames] = useState<Map<number, ProductName | null>>(() => new Map());
  const asked = useRef(new Set<number>());
  useEffect(() => {
    const wanted = [...new Set(rows.map((r) => r.product_id))].filter((id) => !asked.current.has(id));
    for (const id of wanted) {
      asked.current.add(id);
      api
        .GET('/api/v1/products/{product_id}', { params: { path: { product_id: id }, header: inWorkspace(workspaceId) } })
        .then((result) => {
          const product = unwrap(result).data;
          return { title: product.title, image: product.images[0]?.url, variants: product.variants };
        })
        .catch(() => null)
        .then((name) => setNames((m) => new Map(m).set(id, name)));
    }
  }, [rows, workspaceId]);
  return names;
}

export function ListingsTable({
  siteId,
  workspaceId,
  platform,
  version,
  advertise = 'hidden',
  initialStatus = null,
}: {
  siteId: number;
  workspaceId: string;
  /** The site's platform's name, as the seller knows it ("TikTok Shop"). */
  platform: string;
  version: number;
  /** Amazon: whether active listings offer "Advertise" (listing-parts.tsx). */
  advertise?: AdvertiseOffer;
  /** The status filter to start with: the address's `?status=` (the overview's counts link to it). */
  initialStatus?: string | null;
}) {
  const [status, setStatus] = useState<ListingStatus | ''>(() => LISTING_STATUSES.find((s) => s.value === initialStatus)?.value ?? '');
  const [page, setPage] = useState(1);
  const [data, setData] = useState<{ rows: Listing[]; total: number } | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [loading, setLoading] = useState(true);
  const round = useRef(0);

  const load = useCallback(async () => {
    const mine = ++round.current;
    try {
      const query = { page, per_page: PER_PAGE, ...(status ? { status } : {}) };
      const result = unwrap(
        await api.GET('/api/v1/sites/{site_id}/listings', {
          params: { path: { site_id: siteId }, query, header: inWorkspace(workspaceId) },
        }),
      );
      // An answer to an older question (the filter changed meanwhile) is dropped.
      if (mine !== round.current) return;
      setData({ rows: result.data, total: result.meta.total });
      setError(null);
    } catch (caught) {
      if (mine === round.current) setError(caught as Error);
    } finally {
      if (mine === round.current) setLoading(false);
    }
  }, [siteId, workspaceId, page, status]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `version` is a trigger (a publish happened), not a value read
  useEffect(() => {
    setLoading(true);
    void load();
  }, [load, version]);

  const polling = data?.rows.some(inFlight) ?? false;
  const reviewing = data?.rows.some(inReview) ?? false;
  const every = polling ? POLL_MS : reviewing ? REVIEW_POLL_MS : null;
  useEffect(() => {
    if (every === null) return;
    const timer = setInterval(() => void load(), every);
    return () => clearInterval(timer);
  }, [every, load]);

  // Any change of the workspace's listings, by a job, the platform or another tab, is shown without a reload.
  useLiveChanges(workspaceId, ['listings'], () => void load());

  const names = useProductNames(workspaceId, data?.rows ?? []);
  const replace = (listing: Listing) => setData((d) => (d ? { ...d, rows: d.rows.map((r) => (r.id === listing.id ? listing : r)) } : d));
  const pages = data ? Math.max(1, Math.ceil(data.total / PER_PAGE)) : 1;

  return (
    <>
      <div className="listing-filter">
        <div className="field inline">
          <label htmlFor="listing-status">Status</label>
          <select
            id="listing-status"
            value={status}
            onChange={(e) => {
              setStatus(e.target.value as ListingStatus | '');
              setPage(1);
            }}
          >
            <option value="">All</option>
            {LISTING_STATUSES.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </div>
        <span className="muted small" role="status">
          {polling
            ? 'Updating while listings are on their way…'
            : reviewing
              ? `${data ? countLine(data.total, status) : ''} Updating while ${platform} reviews listings…`
              : data
                ? countLine(data.total, status)
                : ''}
        </span>
      </div>
      {advertise === 'not-connected' && data?.rows.some((r) => r.status === 'active') && (
        <p className="muted small" id="advertise-needs-connection">
          To advertise an active listing, connect Amazon advertising first: “Connect advertising” under Advertising profiles, below.
        </p>
      )}
      {error && <ErrorMessage error={error} title="Could not load the listings" />}
      {!data && loading && <Loading what="the listings" />}
      {data && data.rows.length === 0 && (
        <p className="empty">{status ? 'No listings have this status.' : 'No listings yet. Publish products to list them here.'}</p>
      )}
      {data && data.rows.length > 0 && (
        <div className="table-wrap" aria-busy={loading}>
          <table className="stack listings-table">
            <thead>
              <tr>
                <th scope="col">Product</th>
                <th scope="col">Status</th>
                <th scope="col">Sync</th>
                <th scope="col" className="num">
                  Price
                </th>
                <th scope="col" className="num">
                  Quantity
                </th>
                <th scope="col">On {platform}</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {data.rows.map((listing) => (
                <ListingRow
                  key={listing.id}
                  listing={listing}
                  name={names.get(listing.product_id)}
                  workspaceId={workspaceId}
                  onChanged={replace}
                  advertise={advertise}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {data && pages > 1 && (
        <nav className="pagination" aria-label="Pages of listings">
          <button type="button" onClick={() => setPage((p) => p - 1)} disabled={page <= 1}>
            ← Previous
          </button>
          <span>
            Page {page} of {pages}
          </span>
          <button type="button" onClick={() => setPage((p) => p + 1)} disabled={page >= pages}>
            Next →
          </button>
        </nav>
      )}
    </>
  );
}

function countLine(total: number, status: string): string {
  const what = total === 1 ? 'listing' : 'listings';
  return status ? `${total} ${what} with this status.` : `${total} ${what}.`;
}

function ListingRow({
  listing,
  name,
  workspaceId,
  onChanged,
  advertise,
}: {
  listing: Listing;
  name: ProductName | null | undefined;
  workspaceId: string;
  onChanged: (listing: Listing) => void;
  advertise: AdvertiseOffer;
}) {
  const title = name === undefined ? `Product ${listing.product_id}` : (name?.title ?? `Product ${listing.product_id} (not found)`);
  const platform = listingPlatformName(listing);
  const note = statusNote(listing.status, platform);
  return (
    <tr>
      <td data-label="Product">
        <span className="listing-product">
          <Thumb url={name?.image} />
          <Link href={productUrl(workspaceId, listing.product_id)}>{title}</Link>
        </span>
      </td>
      <td data-label="Status">
        <ListingStatusBadge status={listing.status} platform={platform} />
        {note && listing.status === 'in_review' && <p className="muted small status-note">{note}</p>}
      </td>
      <td data-label="Sync">
        <SyncBadge sync={listing.sync_status} />
      </td>
      <td data-label="Price" className="num">
        {priceRange(listing, (price) => formatPrice(price, listing.currency)) ?? '—'}
        {listing.variants.length > 1 && <span className="muted small"> ({listing.variants.length} variants)</span>}
      </td>
      <td data-label="Quantity" className="num">
        {totalStock(listing) ?? '—'}
        {listing.variants.length > 1 && <span className="muted small"> in all</span>}
      </td>
      <td data-label={`On ${platform}`}>
        <span>
          {listing.platform_status ? (
            <span title={listing.platform_status}>{platformStatusWords(listing.platform_status)}</span>
          ) : (
            <span className="muted">Not yet</span>
          )}
          {listing.external_url && (
            <>
              {' · '}
              <a href={listing.external_url} target="_blank" rel="noopener noreferrer">
                View<span className="visually-hidden">{` ${title} on ${platform}`}</span> ↗
              </a>
            </>
          )}
          <ListingIssueList
            listing={listing}
            workspaceId={workspaceId}
            platform={platform}
            variants={name?.variants}
            fixAt={{ settings: '#settings-heading', product: productUrl(workspaceId, listing.product_id) }}
          />
          {listing.differences.length > 0 && listing.status !== 'deleted' && (
            <PlatformChanges listing={listing} platform={platform} title={title} workspaceId={workspaceId} onChanged={onChanged} />
          )}
        </span>
      </td>
      <td data-label="Actions">
        <div className="row-links">
          <Link href={listingUrl(listing)} aria-label={`Details of ${title}`}>
            Details
          </Link>
          {advertise === 'ready' && listing.status === 'active' && (
            <Link className="button" href={listingUrl(listing, { advertise: true })} aria-label={`Advertise ${title}`}>
              Advertise…
            </Link>
          )}
          {advertise === 'not-connected' && listing.status === 'active' && (
            <button type="button" disabled aria-label={`Advertise ${title}`} aria-describedby="advertise-needs-connection">
              Advertise…
            </button>
          )}
        </div>
        <Editable>
          <ListingActions listing={listing} platform={platform} title={title} workspaceId={workspaceId} onChanged={onChanged} />
        </Editable>
      </td>
    </tr>
  );
}

/** A listing action: busy while it runs, its error kept, and the listing it answers passed on (then `done`). */
function useListingAction(onChanged: (listing: Listing) => void) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  async function run(send: () => Promise<Listing>, done?: () => void) {
    setBusy(true);
    setError(null);
    try {
      onChanged(await send());
      done?.();
    } catch (caught) {
      setError(caught as Error);
    } finally {
      setBusy(false);
    }
  }
  return { busy, error, setError, run };
}

/** A difference's field in a seller's words: `variants.MUG-W.price` is "MUG-W price". */
const fieldLabel = (field: string) => field.replace(/^variants\.(.+)\.(price|quantity)$/, '$1 $2').replace(/^variants\./, 'variant ');

/**
 * "Changed on Etsy" (or on TikTok Shop): each value the platform shows beside the catalogue's, and the seller's two ways
 * out: send the catalogue's values again (refresh), or take the platform's into the catalogue (adopt). A live listing
 * whose edit the platform refused in its review (`sync_status: failed`) differs because the platform kept its earlier
 * version, which the heading says instead.
 */
function PlatformChanges({
  listing,
  platform,
  title,
  workspaceId,
  onChanged,
}: {
  listing: Listing;
  platform: string;
  title: string;
  workspaceId: string;
  onChanged: (listing: Listing) => void;
}) {
  const { busy, error, run: send } = useListingAction(onChanged);
  const refused = listing.sync_status === 'failed' && listing.status === 'active';
  const params = { path: { listing_id: listing.id }, header: inWorkspace(workspaceId) };
  const run = (path: '/api/v1/listings/{listing_id}/refresh' | '/api/v1/listings/{listing_id}/adopt') =>
    send(async () => unwrap(await api.POST(path, { params })).data);
  return (
    <div className="platform-changes">
      <strong>{refused ? `${platform} kept its earlier version` : `Changed on ${platform}`}</strong>
      {refused && (
        <p className="muted small">
          The last change did not pass {platform}’s review (its words are above); buyers still see {platform}’s values below.
        </p>
      )}
      <ul>
        {listing.differences.map((d) => (
          <li key={d.field}>
            {fieldLabel(d.field)}: {platform} “{d.platform ?? 'none'}”, catalogue “{d.catalogue ?? 'none'}”
          </li>
        ))}
      </ul>
      <Editable>
        <div className="button-row">
          <button
            type="button"
            onClick={() => void run('/api/v1/listings/{listing_id}/refresh')}
            disabled={busy}
            aria-label={`Send the catalogue’s values for ${title}`}
          >
            Send the catalogue’s values
          </button>
          <button
            type="button"
            onClick={() => void run('/api/v1/listings/{listing_id}/adopt')}
            disabled={busy}
            aria-label={`Take ${platform}’s values for ${title}`}
          >
            Take {platform}’s values
          </button>
        </div>
      </Editable>
      {error && <ErrorMessage error={error} />}
    </div>
  );
}

type Action = 'activate' | 'deactivate' | 'refresh';

export function ListingActions({
  listing,
  platform,
  title,
  workspaceId,
  onChanged,
}: {
  listing: Listing;
  platform: string;
  title: string;
  workspaceId: string;
  onChanged: (listing: Listing) => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const params = { path: { listing_id: listing.id }, header: inWorkspace(workspaceId) };
  const { busy, error, setError, run: act } = useListingAction(onChanged);
  const run = (send: () => Promise<Listing>) => act(send, () => dialog.current?.close());
  const post = (action: Action) =>
    run(async () => {
      if (action === 'activate') return unwrap(await api.POST('/api/v1/listings/{listing_id}/activate', { params })).data;
      if (action === 'deactivate') return unwrap(await api.POST('/api/v1/listings/{listing_id}/deactivate', { params })).data;
      return unwrap(await api.POST('/api/v1/listings/{listing_id}/refresh', { params })).data;
    });
  const remove = () => run(async () => unwrap(await api.DELETE('/api/v1/listings/{listing_id}', { params })).data);

  if (listing.status === 'deleted') return <span className="muted small">Removed from {platform}</span>;
  const label = (verb: string) => `${verb} ${title}`;
  return (
    <div className="listing-actions">
      <div className="button-row">
        {listing.status === 'active' && (
          <button type="button" onClick={() => void post('deactivate')} disabled={busy} aria-label={label('Deactivate')}>
            Deactivate
          </button>
        )}
        {listing.status === 'inactive' && (
          <button type="button" onClick={() => void post('activate')} disabled={busy} aria-label={label('Activate')}>
            Activate
          </button>
        )}
        <button type="button" onClick={() => void post('refresh')} disabled={busy} aria-label={label('Refresh')}>
          Refresh
        </button>
        <button
          type="button"
          className="danger"
          disabled={busy}
          aria-label={label('Delete')}
          onClick={() => {
            setError(null);
            dialog.current?.showModal();
            cancel.current?.focus();
          }}
        >
          Delete…
        </button>
      </div>
      {error && <ErrorMessage error={error} />}
      <dialog ref={dialog} className="dialog" aria-labelledby={`delete-listing-${listing.id}`}>
        <h2 id={`delete-listing-${listing.id}`}>
          Remove “{title}” from {platform}?
        </h2>
        <p>The listing is deleted on {platform}; Storelink keeps its record as deleted. The product stays in the catalogue.</p>
        {error && <ErrorMessage error={error} title="Could not delete the listing" />}
        <div className="button-row">
          <button type="button" className="danger" onClick={() => void remove()} disabled={busy}>
            {busy ? 'Deleting…' : 'Yes, delete the listing'}
          </button>
          <button type="button" ref={cancel} onClick={() => dialog.current?.close()} disabled={busy}>
            Cancel
          </button>
        </div>
      </dialog>
    </div>
  );
}
