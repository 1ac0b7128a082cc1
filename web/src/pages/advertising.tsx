/**
 * A listing's advertising on Amazon (DESIGN §13), on the listing's page: "Advertise…" for an active Amazon listing of a
 * site with advertising connected (else why not, and how to connect it), then the advertising as it stands: its state,
 * budget, bid, targeting, the campaign's ids, its issues (a lapsed Ads grant with the way to reconnect it), Pause,
 * Resume, a change of budget or bid, End (confirmed), and its figures. Amazon's side is set by background work: while
 * it runs (pending, or syncing) the advertising is read again every 2 s, as the listings are; while a running campaign
 * waits for its first figures, every 5 s.
 */
import { type RefObject, useCallback, useEffect, useState } from 'react';
import { ApiError, api, inWorkspace, unwrap } from '../api/client';
import { useFocusReturn } from '../confirm';
import { useLiveChanges } from '../live';
import { canManage, type Role } from '../roles';
import { Link } from '../router';
import { ErrorMessage, Loading, Notice } from '../ui';
import { AdvertiseForm } from './advertise-form';
import { AdvertisingPanel } from './advertising-panel';
import { AD_STATE_LABEL, type Advertising, adInFlight, type Site } from './advertising-parts';
import { ConnectButton } from './connect';
import { type Listing, SyncBadge, statusLabel } from './listing-parts';

const POLL_MS = 2_000;
/** A running campaign's first figures come from Amazon's report, minutes after it starts. */
const FIGURES_POLL_MS = 5_000;

/** The listing's advertising: undefined while first read, null when it was never advertised (the API's 404). */
function useAdvertising(listingId: number, workspaceId: string, listingVersion: string) {
  const [ad, setAd] = useState<Advertising | null | undefined>(undefined);
  const [error, setError] = useState<Error | null>(null);
  const load = useCallback(async () => {
    try {
      const params = { path: { listing_id: listingId }, header: inWorkspace(workspaceId) };
      setAd(unwrap(await api.GET('/api/v1/listings/{listing_id}/advertising', { params })).data);
      setError(null);
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 404) setAd(null);
      else setError(caught as Error);
    }
  }, [listingId, workspaceId]);
  // The listing's own changes (deactivated, activated, deleted) move its advertising: read it again with each.
  // biome-ignore lint/correctness/useExhaustiveDependencies: listingVersion is the trigger, not a value read
  useEffect(() => void load(), [load, listingVersion]);
  const every = ad && adInFlight(ad) ? POLL_MS : ad?.state === 'enabled' && ad.metrics_read_at === null ? FIGURES_POLL_MS : null;
  useEffect(() => {
    if (every === null) return;
    const timer = setInterval(() => void load(), every);
    return () => clearInterval(timer);
  }, [every, load]);
  useLiveChanges(workspaceId, ['advertising'], () => void load());
  return { ad, setAd, error, reload: load };
}

/** The currency of the listing's advertising: its marketplace's Ads profile's, else the listing's own. */
function currencyOf(site: Site, listing: Listing): string {
  const profile = site.advertising?.profiles.find((p) => p.marketplace_id === listing.marketplace_id);
  return profile?.currency ?? listing.currency;
}

export function AdvertisingSection({
  site,
  listing,
  title,
  workspaceId,
  role,
  listingVersion,
  openForm,
  marketplaces = {},
}: {
  site: Site;
  listing: Listing;
  title: string;
  workspaceId: string;
  role: Role;
  /** The marketplaces' names by id ("Amazon.com (US)"), to name the advertising's. */
  marketplaces?: Readonly<Record<string, string>>;
  /** Changes when the listing does, so its advertising is read again. */
  listingVersion: string;
  /** Opened by the listings' "Advertise" action: the form shows at once when the listing can be advertised. */
  openForm: boolean;
}) {
  const { ad, setAd, error, reload } = useAdvertising(listing.id, workspaceId, listingVersion);
  const [formOpen, setFormOpen] = useState(openForm);
  const [notice, setNotice] = useState<string | null>(null);
  // A notice of work sent to Amazon ("Pausing the ads…") says how it ended once the work is done.
  const [awaiting, setAwaiting] = useState(false);
  useEffect(() => {
    if (!awaiting || !ad || adInFlight(ad)) return;
    setAwaiting(false);
    setNotice(settledNotice(ad));
  }, [awaiting, ad]);
  const { opener, focusNext } = useFocusReturn();
  const ended = ad?.state === 'archived';
  const status =
    ad && adInFlight(ad)
      ? ad.state === 'pending'
        ? 'Updating while Amazon sets the campaign up…'
        : 'Updating while Amazon takes the change…'
      : ad?.state === 'enabled' && ad.metrics_read_at === null
        ? 'Waiting for the first figures from Amazon…'
        : '';

  return (
    <section className="card" aria-labelledby="advertising-heading">
      <div className="page-head">
        <h2 id="advertising-heading">Advertising</h2>
        {ad && (
          <span className="badges">
            <AdStateBadge state={ad.state} /> <SyncBadge sync={ad.sync_status} />
          </span>
        )}
      </div>
      <p className="muted small" role="status">
        {status}
      </p>
      {notice && <Notice id="advertising-notice">{notice}</Notice>}
      {error && <ErrorMessage error={error} title="Could not load the advertising" />}
      {ad === undefined && !error && <Loading what="the advertising" />}
      {(ad === null || ended) &&
        (formOpen ? (
          <AdvertiseForm
            listingId={listing.id}
            title={title}
            workspaceId={workspaceId}
            currency={currencyOf(site, listing)}
            onStarted={(started) => {
              setAd(started);
              setFormOpen(false);
              setNotice('Advertising is starting: Amazon sets the campaign up in a few seconds.');
              setAwaiting(true);
              focusNext(() => document.getElementById('advertising-notice'));
            }}
            onConflict={() => {
              setFormOpen(false);
              setNotice('This listing is advertised already; here is how it stands.');
              void reload();
            }}
            onCancel={() => {
              setFormOpen(false);
              focusNext();
            }}
          />
        ) : (
          <StartAdvertising
            site={site}
            listing={listing}
            workspaceId={workspaceId}
            role={role}
            again={ended}
            opener={opener}
            onOpen={() => {
              setNotice(null);
              setFormOpen(true);
            }}
          />
        ))}
      {ad && (
        <AdvertisingPanel
          ad={ad}
          site={site}
          listing={listing}
          title={title}
          workspaceId={workspaceId}
          manager={canManage(role)}
          marketplaces={marketplaces}
          onChanged={(changed, message) => {
            setAd(changed);
            setNotice(message);
            setAwaiting(true);
          }}
        />
      )}
    </section>
  );
}

/** How the advertising stands once Amazon has done what was asked. */
function settledNotice(ad: Advertising): string {
  if (ad.sync_status === 'failed') return 'Amazon did not take the change: the issues below say why.';
  if (ad.state === 'enabled') return 'Done: the ads run on Amazon.';
  if (ad.state === 'paused') return 'Done: the ads are paused on Amazon.';
  if (ad.state === 'archived') return 'Done: the advertising has ended, and Amazon archived the campaign.';
  return 'Amazon did not start the advertising: the issues below say why.';
}

export function AdStateBadge({ state }: { state: Advertising['state'] }) {
  return <span className={`badge ad-${state}`}>{AD_STATE_LABEL[state]}</span>;
}

/**
 * "Advertise…" (or "Advertise again…" after an end) for those who may, when the listing can be advertised; otherwise
 * the reason, and how to get past it: connecting advertising to the site (here, or on the site's page).
 */
function StartAdvertising({
  site,
  listing,
  workspaceId,
  role,
  again,
  opener,
  onOpen,
}: {
  site: Site;
  listing: Listing;
  workspaceId: string;
  role: Role;
  again: boolean;
  opener: RefObject<HTMLButtonElement | null>;
  onOpen: () => void;
}) {
  const manager = canManage(role);
  const connected = site.status === 'connected' && site.advertising?.connected === true;
  const profiles = site.advertising?.profiles ?? [];
  const noProfile =
    connected && profiles.some((p) => p.marketplace_id) && !profiles.some((p) => p.marketplace_id === listing.marketplace_id);
  const reason =
    listing.status !== 'active'
      ? `Only an active listing can be advertised; this one is ${statusLabel(listing.status, 'Amazon').toLowerCase()}.`
      : !connected
        ? manager
          ? `Amazon advertising is not connected for ${site.name}. Connect it with the account that advertises on Amazon (here, or with “Connect advertising” under Advertising profiles on the site’s page), then advertise.`
          : `Amazon advertising is not connected for ${site.name}. Ask an owner or admin of this workspace to connect it on the site’s page.`
        : noProfile
          ? `The Amazon Ads account connected to ${site.name} has no advertising profile in this listing’s marketplace (${listing.marketplace_id}). Connect advertising with an account that advertises there.`
          : !manager
            ? 'Only the owners and admins of this workspace can advertise a listing: advertising spends its money.'
            : null;
  return (
    <div className="start-advertising">
      <p>
        {again
          ? 'This advertising has ended: Amazon archived its campaign, whose figures stay below. A new campaign can advertise the listing again.'
          : 'Not advertised. Sponsored Products show this listing to Amazon shoppers as they search, for a daily budget you set.'}
      </p>
      {(manager || reason === null) && (
        <button
          type="button"
          className="primary"
          ref={opener}
          onClick={onOpen}
          disabled={reason !== null}
          aria-describedby={reason ? 'advertise-reason' : undefined}
        >
          {again ? 'Advertise again…' : 'Advertise…'}
        </button>
      )}
      {reason && (
        <p className="muted" id="advertise-reason">
          {reason}
        </p>
      )}
      {manager && !connected && site.status === 'connected' && listing.status === 'active' && (
        <ConnectButton workspaceId={workspaceId} platformId={5} siteId={site.id} label="Connect advertising" />
      )}
      {!manager || connected || site.status === 'connected' ? null : (
        <p className="muted small">
          The site itself must be connected first: see <Link href={`/site/${site.id}/listings`}>{site.name}</Link>.
        </p>
      )}
    </div>
  );
}
