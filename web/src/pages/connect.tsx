/** Starting a connection, and what the address says about how the last one ended (seed §4, callback redirects). */
import { useState } from 'react';
import { api, inWorkspace, unwrap } from '../api/client';
import { ErrorMessage, Notice } from '../ui';

/** Amazon's regions, each authorized apart (a seller selling in two regions connects two sites). */
const AMAZON_REGIONS = [
  ['NA', 'North America'],
  ['EU', 'Europe'],
  ['FE', 'Far East'],
] as const;
type Region = (typeof AMAZON_REGIONS)[number][0];

/**
 * Asks authenticate-site for the platform's authorization URL (no custom redirect) and sends the browser there. With
 * `chooseRegion` (a new Amazon seller connection), a select picks the Amazon region first.
 */
export function ConnectButton({
  workspaceId,
  platformId,
  siteId,
  label,
  chooseRegion = false,
}: {
  workspaceId: string;
  platformId: 1 | 4 | 5;
  siteId?: number;
  label: string;
  chooseRegion?: boolean;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const [region, setRegion] = useState<Region>('NA');
  async function connect() {
    setBusy(true);
    setError(null);
    try {
      const body = {
        platform_id: platformId,
        ...(siteId === undefined ? {} : { site_id: siteId }),
        ...(chooseRegion ? { region } : {}),
      };
      const { url } = unwrap(await api.POST('/api/v1/authenticate-site', { params: { header: inWorkspace(workspaceId) }, body })).data;
      window.location.assign(url);
    } catch (caught) {
      setError(caught as Error);
      setBusy(false);
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
      <button type="button" onClick={() => void connect()} disabled={busy}>
        {busy ? 'Opening…' : label}
      </button>
      {error && <ErrorMessage error={error} title={`${label} failed`} />}
    </span>
  );
}

/** The outcome a connect flow left in the address, as a message; nothing when the address carries none. */
export function ConnectOutcome({ search }: { search: URLSearchParams }) {
  const authorizationError = search.get('authorization_error');
  if (authorizationError !== null)
    return <ErrorMessage title="The connection was not made" error={authorizationError || 'The platform gave no reason.'} />;
  if (search.get('platform') === 'marketplace') {
    const message = search.get('message');
    if (search.has('code') || message !== null) {
      const code = search.get('code');
      return (
        <ErrorMessage
          title="Amazon was not connected"
          error={`${message || 'The platform gave no reason.'}${code ? ` (code: ${code})` : ''}`}
        />
      );
    }
    if (search.get('segment') === 'advertising') return <Notice>Amazon advertising is connected.</Notice>;
    if (search.has('site_id')) return <Notice>Your Amazon seller account is connected.</Notice>;
  }
  return null;
}
