/**
 * The advertising of a listing as it stands (advertising.tsx shows it once there is one): the warning of a lapsed Ads
 * grant with where to reconnect it, its details, its issues, Pause or Resume, a change of budget or bid, End behind the
 * confirmation, and its figures (advertising-metrics.tsx).
 */
import { type FormEvent, useEffect, useState } from 'react';
import { ApiError, api, inWorkspace, unwrap } from '../api/client';
import { Confirm, useFocusReturn } from '../confirm';
import { Link } from '../router';
import { ErrorMessage, formatDate } from '../ui';
import { MoneyField } from './advertise-form';
import { AdvertisingMetrics } from './advertising-metrics';
import { type Advertising, MATCH_TYPES, minimumOf, money, moneyProblem, RECONNECT_CODE, type Site } from './advertising-parts';
import { IssueList, type Listing, statusLabel } from './listing-parts';
import type { Errors } from './product-options';

type Action = 'pause' | 'resume' | 'edit' | 'end';

export function AdvertisingPanel({
  ad,
  site,
  listing,
  title,
  workspaceId,
  manager,
  marketplaces = {},
  onChanged,
}: {
  ad: Advertising;
  site: Site;
  listing: Listing;
  title: string;
  workspaceId: string;
  manager: boolean;
  /** The marketplaces' names by id ("Amazon.com (US)"): the Ads profile's is named, not given by its id. */
  marketplaces?: Readonly<Record<string, string>>;
  onChanged: (ad: Advertising, message: string) => void;
}) {
  const [open, setOpen] = useState<Action | null>(null);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Error | null>(null);
  const { opener, focusNext } = useFocusReturn();
  const params = { path: { listing_id: listing.id }, header: inWorkspace(workspaceId) };
  const ended = ad.state === 'archived';
  const reconnect = ad.issues.some((i) => i.code === RECONNECT_CODE);
  const otherIssues = ad.issues.filter((i) => i.code !== RECONNECT_CODE);

  async function send(request: () => Promise<Advertising>, message: string) {
    setBusy(true);
    setFailure(null);
    try {
      onChanged(await request(), message);
      setOpen(null);
      focusNext(() => document.getElementById('advertising-notice'));
    } catch (caught) {
      setFailure(
        caught instanceof ApiError && caught.status === 403
          ? new Error('Only owners and admins can change advertising.')
          : (caught as Error),
      );
    } finally {
      setBusy(false);
    }
  }
  const patch = (state: 'enabled' | 'paused') =>
    send(
      async () => unwrap(await api.PATCH('/api/v1/listings/{listing_id}/advertising', { params, body: { state } })).data,
      state === 'paused' ? 'Pausing the ads on Amazon…' : 'Resuming the ads on Amazon…',
    );
  const end = () =>
    send(
      async () => unwrap(await api.DELETE('/api/v1/listings/{listing_id}/advertising', { params })).data,
      'Ending the advertising: Amazon archives the campaign.',
    );

  return (
    <div className="ad-panel">
      {reconnect && (
        <div className="alert alert-warning" role="alert">
          <strong>Advertising needs to be reconnected.</strong> Amazon Ads no longer accepts Storelink’s access for {site.name}: the ads run
          on Amazon as they were, but Storelink cannot change them or read their figures.{' '}
          {manager ? (
            <>
              Reconnect advertising on <Link href={`/site/${site.id}/listings`}>{site.name}’s page</Link> (Advertising profiles).
            </>
          ) : (
            <>
              Ask an owner or admin to reconnect advertising on <Link href={`/site/${site.id}/listings`}>{site.name}’s page</Link>.
            </>
          )}
        </div>
      )}
      {ad.state === 'paused' && listing.status !== 'active' && !ended && (
        <p className="muted">
          Paused while the listing is {statusLabel(listing.status, 'Amazon').toLowerCase()}: activating the listing resumes the ads (unless
          you paused them yourself).
        </p>
      )}
      {ad.state === 'error' && (
        <p className="muted">Amazon did not start this advertising (its issues say why). End it, then advertise the listing again.</p>
      )}
      <dl className="details">
        <dt>Daily budget</dt>
        <dd>{money(ad.daily_budget, ad.currency)}</dd>
        <dt>Default bid</dt>
        <dd>{money(ad.default_bid, ad.currency)}</dd>
        <dt>Targeting</dt>
        <dd>
          <Targeting ad={ad} />
        </dd>
        <dt>Campaign</dt>
        <dd>{ad.campaign_id ? <code>{ad.campaign_id}</code> : <span className="muted">Not made yet</span>}</dd>
        <dt>Ad group</dt>
        <dd>{ad.ad_group_id ? <code>{ad.ad_group_id}</code> : <span className="muted">Not made yet</span>}</dd>
        <dt>Ads</dt>
        <dd>
          {Object.keys(ad.skus).length === 0 ? (
            <span className="muted">Not made yet</span>
          ) : (
            Object.entries(ad.skus).map(([sku, id], i) => (
              <span key={sku}>
                {i > 0 && ', '}
                {sku}: <code>{id}</code>
              </span>
            ))
          )}
        </dd>
        <dt>Ads profile</dt>
        <dd>
          <code>{ad.profile_id}</code> <span className="muted small">({marketplaces[ad.marketplace_id] ?? ad.marketplace_id})</span>
        </dd>
        <dt>Started</dt>
        <dd>{formatDate(ad.created_at)}</dd>
        <dt>Figures read</dt>
        <dd>{formatDate(ad.metrics_read_at, 'Not yet')}</dd>
      </dl>
      {otherIssues.length > 0 && (
        <div className="ad-issues">
          <h3>Issues</h3>
          <IssueList issues={otherIssues} platform="Amazon" />
        </div>
      )}
      {manager && !ended && open !== 'end' && open !== 'edit' && (
        <div className="button-row">
          {(ad.state === 'enabled' || ad.state === 'pending') && (
            <button type="button" onClick={() => void patch('paused')} disabled={busy}>
              Pause
            </button>
          )}
          {ad.state === 'paused' && (
            <button type="button" onClick={() => void patch('enabled')} disabled={busy}>
              Resume
            </button>
          )}
          {ad.state !== 'error' && (
            <button type="button" onClick={() => setOpen('edit')} disabled={busy}>
              Change budget or bid…
            </button>
          )}
          <button type="button" className="danger" ref={opener} onClick={() => setOpen('end')} disabled={busy}>
            End…
          </button>
        </div>
      )}
      {open === 'edit' && (
        <ChangeForm
          ad={ad}
          busy={busy}
          onSave={(body) =>
            send(
              async () => unwrap(await api.PATCH('/api/v1/listings/{listing_id}/advertising', { params, body })).data,
              'Sending the new budget and bid to Amazon…',
            )
          }
          failure={failure}
          onCancel={() => {
            setOpen(null);
            setFailure(null);
            focusNext();
          }}
        />
      )}
      {open === 'end' && (
        <Confirm
          id="confirm-end-advertising"
          confirmLabel="Yes, end it"
          busyLabel="Ending…"
          busy={busy}
          onConfirm={() => void end()}
          onCancel={() => {
            setOpen(null);
            focusNext();
          }}
        >
          End the advertising of “{title}”? Amazon archives the campaign: it stops for good and cannot be started again. Its figures stay
          here, and you can advertise the listing again with a new campaign.
        </Confirm>
      )}
      {failure && open !== 'edit' && <ErrorMessage error={failure} title="The advertising was not changed" />}
      {(ad.campaign_id !== null || ad.state === 'enabled' || ad.state === 'paused' || ended) && (
        <AdvertisingMetrics listingId={listing.id} workspaceId={workspaceId} currency={ad.currency} readAt={ad.metrics_read_at} />
      )}
    </div>
  );
}

function Targeting({ ad }: { ad: Advertising }) {
  if (ad.targeting === 'auto') return <>Automatic: Amazon chooses the searches</>;
  return (
    <>
      Keywords:
      <ul className="keyword-list">
        {ad.targeting.keywords.map((k) => (
          <li key={`${k.text}|${k.match_type}`}>
            “{k.text}”, {MATCH_TYPES.find((m) => m.value === k.match_type)?.label.toLowerCase() ?? k.match_type} match, bid{' '}
            {money(k.bid, ad.currency)}
          </li>
        ))}
      </ul>
    </>
  );
}

/** The budget and the default bid changed (PATCH with only what changed), checked as the API checks them. */
function ChangeForm({
  ad,
  busy,
  failure,
  onSave,
  onCancel,
}: {
  ad: Advertising;
  busy: boolean;
  failure: Error | null;
  onSave: (body: { daily_budget?: string; default_bid?: string }) => void;
  onCancel: () => void;
}) {
  const [budget, setBudget] = useState(ad.daily_budget);
  const [bid, setBid] = useState(ad.default_bid);
  const [checked, setChecked] = useState<Errors>({});
  const [refused, setRefused] = useState<{ first: string } | null>(null);
  useEffect(() => {
    if (refused) document.getElementById(refused.first)?.focus();
  }, [refused]);
  useEffect(() => document.getElementById('ad-change-budget')?.focus(), []);
  const answered = failure instanceof ApiError ? failure.fields : {};
  useEffect(() => {
    const first = answered.daily_budget ? 'ad-change-budget' : answered.default_bid ? 'ad-change-bid' : null;
    if (first) setRefused({ first });
  }, [answered.daily_budget, answered.default_bid]);
  const errors: Errors = { ...answered, ...checked };

  function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const problems: Errors = {};
    const budgetProblem = moneyProblem(budget, 'daily budget', ad.currency, 'budget');
    const bidProblem = moneyProblem(bid, 'default bid', ad.currency, 'bid');
    if (budgetProblem) problems.daily_budget = [budgetProblem];
    if (bidProblem) problems.default_bid = [bidProblem];
    setChecked(problems);
    if (budgetProblem || bidProblem) return setRefused({ first: budgetProblem ? 'ad-change-budget' : 'ad-change-bid' });
    const body = {
      ...(Number(budget) === Number(ad.daily_budget) ? {} : { daily_budget: budget.trim() }),
      ...(Number(bid) === Number(ad.default_bid) ? {} : { default_bid: bid.trim() }),
    };
    if (Object.keys(body).length === 0) return onCancel();
    onSave(body);
  }

  const bound = (kind: 'budget' | 'bid') => {
    const minimum = minimumOf(ad.currency, kind);
    return minimum ? `In ${ad.currency}, ${minimum}.` : `In ${ad.currency}.`;
  };
  const unfielded = failure && !(failure instanceof ApiError && (failure.fields.daily_budget || failure.fields.default_bid));
  return (
    <form className="ad-change" onSubmit={save} noValidate aria-labelledby="ad-change-heading">
      <h3 id="ad-change-heading">Change the budget or the bid</h3>
      <div className="form-grid">
        <MoneyField
          id="ad-change-budget"
          label={`Daily budget (${ad.currency})`}
          value={budget}
          onChange={setBudget}
          hint={bound('budget')}
          errors={errors.daily_budget}
        />
        <MoneyField
          id="ad-change-bid"
          label={`Default bid (${ad.currency})`}
          value={bid}
          onChange={setBid}
          hint={bound('bid')}
          errors={errors.default_bid}
        />
      </div>
      {unfielded && <ErrorMessage error={failure} title="The advertising was not changed" />}
      <div className="button-row">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save'}
        </button>
        <button type="button" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}
