/** Starting a connection, and what the address says about how the last one ended (seed §4, callback redirects). */
import { useEffect, useState, useSyncExternalStore } from 'react';
import { api, inWorkspace, unwrap } from '../api/client';
import { refusalOf } from '../roles';
import { navigate } from '../router';
import { ErrorMessage, Notice, PLATFORMS } from '../ui';

/** Amazon's regions, each authorized apart (a seller selling in two regions connects two sites). */
const AMAZON_REGIONS = [
  ['NA', 'North America'],
  ['EU', 'Europe'],
  ['FE', 'Far East'],
] as const;
type Region = (typeof AMAZON_REGIONS)[number][0];

/** What a Connect button asked for: kept for the tab while the platform has the browser, to name it and try again. */
interface Attempt {
  workspaceId: string;
  platformId: 1 | 4 | 5;
  siteId?: number;
  region?: Region;
  /** The advertising track (platform 5 with a site). */
  advertising: boolean;
  at: number;
}

const ATTEMPT_KEY = 'storelink.connecting';
// A consent left open longer than its state token lives (an hour at most) cannot come back as this attempt.
const ATTEMPT_TTL_MS = 60 * 60 * 1000;
const attempts = {
  save: (attempt: Attempt) => sessionStorage.setItem(ATTEMPT_KEY, JSON.stringify(attempt)),
  read: (): Attempt | null => {
    try {
      const attempt = JSON.parse(sessionStorage.getItem(ATTEMPT_KEY) ?? 'null') as Attempt | null;
      return attempt && Date.now() - attempt.at < ATTEMPT_TTL_MS ? attempt : null;
    } catch {
      return null;
    }
  },
  clear: () => sessionStorage.removeItem(ATTEMPT_KEY),
};

/** Which Connect button is opening its platform: the others wait (one authorization at a time). */
let opening: string | null = null;
const openingListeners = new Set<() => void>();
function setOpening(label: string | null) {
  opening = label;
  openingListeners.forEach((listener) => listener());
}
const subscribeOpening = (listener: () => void) => {
  openingListeners.add(listener);
  return () => void openingListeners.delete(listener);
};
// Back from the platform through the browser's cache, the page is as it was left: "Opening…" would stay forever, and
// the attempt was given up.
window.addEventListener('pageshow', (event) => {
  if (!event.persisted) return;
  setOpening(null);
  attempts.clear();
});

const platformLabel = (attempt: Pick<Attempt, 'platformId' | 'advertising'>) =>
  attempt.advertising ? 'Amazon advertising' : (PLATFORMS.find((p) => p.id === attempt.platformId)?.name ?? 'The platform');

/** Asks authenticate-site for the platform's authorization URL (no custom redirect) and sends the browser there. */
async function startConnect(attempt: Omit<Attempt, 'at'>): Promise<void> {
  const body = {
    platform_id: attempt.platformId,
    ...(attempt.siteId === undefined ? {} : { site_id: attempt.siteId }),
    ...(attempt.region === undefined ? {} : { region: attempt.region }),
  };
  const params = { header: inWorkspace(attempt.workspaceId) };
  const { url } = unwrap(await api.POST('/api/v1/authenticate-site', { params, body })).data;
  attempts.save({ ...attempt, at: Date.now() });
  window.location.assign(url);
}

/**
 * A Connect button. With `chooseRegion` (a new Amazon seller connection), a select picks the Amazon region first;
 * `region` connects in a region already known (an Amazon site connected again). `name` is the button's accessible name
 * when its visible label is shared by several (each site's "Reconnect").
 */
export function ConnectButton({
  workspaceId,
  platformId,
  siteId,
  label,
  name,
  chooseRegion = false,
  region: fixedRegion,
}: {
  workspaceId: string;
  platformId: 1 | 4 | 5;
  siteId?: number;
  label: string;
  name?: string;
  chooseRegion?: boolean;
  region?: string | null;
}) {
  const busyWith = useSyncExternalStore(subscribeOpening, () => opening);
  const [error, setError] = useState<Error | null>(null);
  const [region, setRegion] = useState<Region>('NA');
  const key = `${name ?? label}:${siteId ?? ''}`;
  async function connect() {
    setOpening(key);
    setError(null);
    try {
      const chosen = chooseRegion ? region : (fixedRegion as Region | null | undefined);
      await startConnect({
        workspaceId,
        platformId,
        advertising: platformId === 5 && siteId !== undefined,
        ...(siteId === undefined ? {} : { siteId }),
        ...(chosen ? { region: chosen } : {}),
      });
    } catch (caught) {
      setError(caught as Error);
      setOpening(null);
    }
  }
  return (
    <span className="connect">
      {chooseRegion && (
        <select aria-label={`${label}: region`} value={region} onChange={(event) => setRegion(event.target.value as Region)}>
          {AMAZON_REGIONS.map(([value, name]) => (
            <option key={value} value={value}>
              {name}
            </option>
          ))}
        </select>
      )}
      <button type="button" onClick={() => void connect()} disabled={busyWith !== null} aria-label={busyWith === key ? undefined : name}>
        {busyWith === key ? 'Opening…' : label}
      </button>
      {error && <ErrorMessage error={refusalOf(error)} title={`${name ?? label} failed`} />}
    </span>
  );
}

/** The query parameters a connect flow's redirect back may carry (seed §4), removed once read. */
const OUTCOME_PARAMS = ['authorization_error', 'platform', 'code', 'message', 'site_id', 'segment'];

type Outcome = { kind: 'failed'; title: string; message: string; attempt: Attempt | null } | { kind: 'connected'; message: string };

/** The seed's fixed failure messages, and Amazon's error codes, said to a seller. */
function failureMessage(name: string, reason: string): string {
  if (reason === 'Access denied' || reason === '403') return `Access was declined on ${name}, so nothing was connected.`;
  if (reason === 'Invalid credentials' || reason === '400')
    return `${name} did not accept the authorization it had just given. Try again; if it keeps failing, ${name} may be having trouble.`;
  if (reason === 'Authorization state has expired') return 'The connection took too long to finish, so it was stopped. Try again.';
  if (reason === 'Invalid authorization state') return 'This connection link was already used or is not valid. Start again.';
  if (reason === '502') return `${name} could not be reached or gave an answer Storelink could not read. Try again in a moment.`;
  if (reason === '500') return 'Something went wrong in Storelink while connecting. Try again.';
  return reason ? `${name} said: ${reason}` : `${name} gave no reason.`;
}

type SiteShown = { id?: number; platform_id: number; updated_at: string; advertising?: { connected: boolean } | null };
// The server's clock and the browser's may differ by this much before a just-made site stops counting as just made.
const CLOCK_SKEW_MS = 5 * 60 * 1000;

/** What the address (and the attempt this tab started) says about the last connection; null when nothing. */
function readOutcome(search: URLSearchParams, site: SiteShown | undefined): Outcome | null {
  const attempt = attempts.read();
  const name = attempt ? platformLabel(attempt) : null;
  const error = search.get('authorization_error');
  if (error !== null) {
    const title = name ? `${name} was not connected` : 'The connection was not made';
    return { kind: 'failed', title, message: failureMessage(name ?? 'The platform', error), attempt };
  }
  if (search.get('platform') === 'marketplace') {
    const code = search.get('code');
    if (code !== null || search.has('message')) {
      const reason = code && /^(400|403|500|502)$/.test(code) ? code : (search.get('message') ?? '');
      return { kind: 'failed', title: 'Amazon was not connected', message: failureMessage('Amazon', reason), attempt };
    }
    if (search.get('segment') === 'advertising') return { kind: 'connected', message: 'Amazon advertising is connected.' };
    if (search.has('site_id')) return { kind: 'connected', message: 'Your Amazon seller account is connected.' };
  }
  // Etsy and TikTok Shop come back to the new site's page with nothing in the address: the attempt says it was this,
  // if the site was made or connected again since (not a site of the same platform opened after an abandoned attempt).
  const sinceAttempt = attempt && Date.parse(site?.updated_at ?? '') >= attempt.at - CLOCK_SKEW_MS;
  if (site && attempt && sinceAttempt && attempt.platformId === site.platform_id && !attempt.advertising)
    return { kind: 'connected', message: `${platformLabel(attempt)} is connected.` };
  // Amazon advertising connected without a redirect of the caller's comes back to the seller site's page, also bare.
  if (site && attempt?.advertising && sinceAttempt && attempt.siteId === site.id && site.advertising?.connected)
    return { kind: 'connected', message: 'Amazon advertising is connected.' };
  return null;
}

/**
 * The outcome of the connection this tab last started: a failure names the platform and offers Try again and Dismiss;
 * a success says so. Read once: the address loses its outcome parameters, so a reload does not show it again.
 */
export function ConnectOutcome({ search, site }: { search: URLSearchParams; site?: SiteShown }) {
  const [outcome, setOutcome] = useState(() => readOutcome(search, site));
  const [retryError, setRetryError] = useState<Error | null>(null);
  const [retrying, setRetrying] = useState(false);
  useEffect(() => {
    // The first page that shows after an attempt has its outcome, if any: Back from the platform, or a later visit to a
    // site's page, must not read it as a success.
    attempts.clear();
    if (outcome === null) return;
    const url = new URL(window.location.href);
    if (!OUTCOME_PARAMS.some((name) => url.searchParams.has(name))) return;
    for (const name of OUTCOME_PARAMS) url.searchParams.delete(name);
    navigate(`${url.pathname}${url.search}${url.hash}`, { replace: true });
  }, [outcome]);

  if (outcome === null) return null;
  if (outcome.kind === 'connected') return <Notice>{outcome.message}</Notice>;
  const { attempt } = outcome;
  async function retry() {
    if (!attempt) return;
    setRetrying(true);
    setRetryError(null);
    try {
      await startConnect(attempt);
    } catch (caught) {
      setRetryError(caught as Error);
      setRetrying(false);
    }
  }
  function dismiss() {
    setOutcome(null);
    // The focused button goes with the message: the page's heading takes the focus instead of <body>.
    const heading = document.querySelector<HTMLElement>('main h1');
    if (heading) {
      heading.tabIndex = -1;
      heading.focus();
    }
  }
  return (
    <div className="alert alert-error outcome" role="alert">
      <p>
        <strong>{outcome.title}.</strong> {outcome.message}
      </p>
      {retryError && <p>Trying again failed: {retryError.message}</p>}
      <div className="button-row">
        {attempt && (
          <button type="button" onClick={() => void retry()} disabled={retrying}>
            {retrying ? 'Opening…' : 'Try again'}
          </button>
        )}
        <button type="button" onClick={dismiss}>
          Dismiss
        </button>
      </div>
    </div>
  );
}
