/** Starting a connection, and what the address says about how the last one ended (seed §4, callback redirects). */
import { useState } from 'react';
import { api, inWorkspace, unwrap } from '../api/client';
import { ErrorMessage, Notice } from '../ui';

/** Asks authenticate-site for the platform's authorization URL (no custom redirect) and sends the browser there. */
export function ConnectButton({
  workspaceId,
  platformId,
  siteId,
  label,
}: {
  workspaceId: string;
  platformId: 1 | 4 | 5;
  siteId?: number;
  label: string;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  async function connect() {
    setBusy(true);
    setError(null);
    try {
      const body = siteId === undefined ? { platform_id: platformId } : { platform_id: platformId, site_id: siteId };
      const { url } = unwrap(await api.POST('/api/v1/authenticate-site', { params: { header: inWorkspace(workspaceId) }, body })).data;
      window.location.assign(url);
    } catch (caught) {
      setError(caught as Error);
      setBusy(false);
    }
  }
  return (
    <span className="connect">
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
