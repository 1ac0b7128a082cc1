/**
 * /site/<id>/listings: the site's details, advertising profiles and disconnect, then its listings: the listing settings,
 * the listings table with their actions, and "Publish products".
 */
import { useCallback, useRef, useState } from 'react';
import { api, inWorkspace, unwrap } from '../api/client';
import { Confirm, useFocusReturn } from '../confirm';
import { useLiveChanges } from '../live';
import { canEdit, canManage, refusalOf } from '../roles';
import {
  Breadcrumb,
  ErrorMessage,
  Frame,
  formatDate,
  Loading,
  lastWorkspace,
  loadWorkspaces,
  Notice,
  platformName,
  STATUS_LABEL,
  usePageTitle,
  useRequest,
} from '../ui';
import { ConnectButton, ConnectOutcome } from './connect';
import { ReconnectButton } from './connect-catalogue';
import { ListingImport } from './listing-import';
import { ListingSettings } from './listing-settings';
import { ListingsTable } from './listings-table';
import { PublishProducts } from './publish-products';

/** Amazon's regions in words (the site's `region` is Amazon's code: NA, EU, FE). */
const REGION_NAME: Readonly<Record<'NA' | 'EU' | 'FE', string>> = { NA: 'North America', EU: 'Europe', FE: 'Far East' };

/** The workspace the dashboard was last on, if the user still has it, else their first. */
async function currentWorkspace() {
  const workspaces = await loadWorkspaces();
  const remembered = workspaces.find((w) => String(w.id) === lastWorkspace.get());
  const chosen = remembered ?? workspaces[0];
  if (!chosen) throw new Error('You do not belong to any workspace.');
  return chosen;
}

/** The site of the page, read in the workspace the dashboard was last on, with the caller's role there. */
export async function loadSite(siteId: string) {
  const workspace = await currentWorkspace();
  const workspaceId = String(workspace.id);
  const site = unwrap(
    await api.GET('/api/v1/sites/{site_id}', { params: { path: { site_id: Number(siteId) }, header: inWorkspace(workspaceId) } }),
  ).data;
  return { workspaceId, role: workspace.role, site };
}

export function SiteListings({ siteId, search }: { siteId: string; search: URLSearchParams }) {
  const loaded = useRequest(() => loadSite(siteId), `site-${siteId}`);
  // The site's status (a connection that needs renewing) changes without a reload; its listings follow on their own.
  useLiveChanges(loaded.state === 'ready' ? loaded.data.workspaceId : null, ['sites'], loaded.refresh);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [disconnectError, setDisconnectError] = useState<Error | null>(null);
  const [disconnected, setDisconnected] = useState<string | null>(null);
  const [published, setPublished] = useState(0);
  // The listing settings saved from the publish dialog: the copy on this page reads them again.
  const [settingsVersion, setSettingsVersion] = useState(0);
  const [listable, setListable] = useState(false);
  const imported = useCallback(() => setPublished((n) => n + 1), []);
  const { opener, focusNext } = useFocusReturn();
  // Read again after a disconnect, the site stays on screen (its status changing) instead of flashing to "Loading".
  const shown = useRef<Awaited<ReturnType<typeof loadSite>> | null>(null);
  if (loaded.state === 'ready') shown.current = loaded.data;
  usePageTitle('Listings', shown.current?.site.name ?? `Site ${siteId}`);

  if (!shown.current) {
    return (
      <Frame workspaceId={lastWorkspace.get()}>
        <h1>Site {siteId}</h1>
        {loaded.state === 'error' ? <ErrorMessage error={loaded.error} title="Could not load the site" /> : <Loading what="the site" />}
      </Frame>
    );
  }
  const { workspaceId, role, site } = shown.current;
  const kind = platformName(site.platform);
  const manager = canManage(role);

  async function disconnect() {
    setBusy(true);
    setDisconnectError(null);
    try {
      unwrap(await api.DELETE('/api/v1/sites/{site_id}', { params: { path: { site_id: site.id }, header: inWorkspace(workspaceId) } }));
      setConfirming(false);
      setDisconnected(`${site.name} is disconnected from ${kind}.`);
      focusNext(() => document.getElementById('disconnected-notice'));
      loaded.reload();
    } catch (caught) {
      setDisconnectError(refusalOf(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <Frame workspaceId={workspaceId} role={role}>
      <Breadcrumb items={[{ label: 'Dashboard', href: `/workspace/${workspaceId}/dashboard` }, { label: site.name }]} />
      <h1>{site.name}</h1>
      <ConnectOutcome search={search} site={site} />
      {disconnected && <Notice id="disconnected-notice">{disconnected}</Notice>}
      <BrokenConnection site={site} workspaceId={workspaceId} canConnect={manager} />
      <section aria-labelledby="listings-heading" className="card">
        <div className="page-head">
          <h2 id="listings-heading">Listings</h2>
          {listable && canEdit(role) && (
            <ListingImport siteId={site.id} workspaceId={workspaceId} platform={site.platform} onProgress={imported} />
          )}
          {listable && canEdit(role) && (
            <PublishProducts
              site={site}
              workspaceId={workspaceId}
              onPublished={() => setPublished((n) => n + 1)}
              onSettingsSaved={() => setSettingsVersion((n) => n + 1)}
              canSetSettings={manager}
            />
          )}
        </div>
        <ListingsTable
          siteId={site.id}
          workspaceId={workspaceId}
          platform={platformName(site.platform)}
          version={published}
          initialStatus={search.get('status')}
          advertise={
            site.platform_id !== 5 || !manager
              ? 'hidden'
              : site.status === 'connected' && site.advertising?.connected
                ? 'ready'
                : 'not-connected'
          }
        />
      </section>
      <section aria-labelledby="details-heading" className="card">
        <h2 id="details-heading">Details</h2>
        <dl className="details">
          <dt>Platform</dt>
          <dd>{platformName(site.platform)}</dd>
          <dt>Status</dt>
          <dd>
            <span className={`badge badge-${site.status}`}>{STATUS_LABEL[site.status] ?? site.status}</span>
            {site.status_reason && <span className="muted"> {site.status_reason}</span>}
          </dd>
          <dt>Site id</dt>
          <dd>{site.id}</dd>
          <dt>Platform account</dt>
          <dd>
            <code>{site.external_id}</code>
          </dd>
          {site.region !== null && (
            <>
              <dt>Region</dt>
              <dd>{REGION_NAME[site.region]}</dd>
            </>
          )}
          <dt>Sells in</dt>
          <dd>
            {site.currency ?? (site.platform === 'amazon-seller' ? "Each marketplace's currency" : 'Not known: connect the site again')}
          </dd>
          <dt>Connected</dt>
          <dd>{formatDate(site.created_at)}</dd>
          <dt>Updated</dt>
          <dd>{formatDate(site.updated_at)}</dd>
          <dt>Last renewed</dt>
          <dd>{formatDate(site.last_refreshed_at, 'Not yet')}</dd>
        </dl>
        {manager && site.missing_scopes.length > 0 && site.status === 'connected' && (
          <Notice>
            <p>
              This connection was made before Storelink needed some permissions ({site.missing_scopes.join(', ')}). Connect it again to
              grant them; the site keeps its id and everything attached to it.
            </p>
            <ConnectButton workspaceId={workspaceId} platformId={site.platform_id as 1 | 4 | 5} label="Connect again" />
          </Notice>
        )}
        {manager && site.status !== 'disconnected' && !confirming && (
          <button type="button" className="danger" ref={opener} onClick={() => setConfirming(true)}>
            Disconnect…
          </button>
        )}
        {confirming && (
          <Confirm
            id="confirm-disconnect"
            confirmLabel="Yes, disconnect"
            busyLabel="Disconnecting…"
            busy={busy}
            onConfirm={() => void disconnect()}
            onCancel={() => {
              setConfirming(false);
              focusNext();
            }}
          >
            Disconnect {site.name}? Storelink deletes its credentials; you can connect it again later.
          </Confirm>
        )}
        {disconnectError && <ErrorMessage error={disconnectError} title="Could not disconnect" />}
      </section>

      {site.advertising !== null && (
        <section aria-labelledby="ads-heading" className="card">
          <h2 id="ads-heading">Advertising profiles</h2>
          {site.advertising.profiles.length === 0 ? (
            <p className="empty">No advertising profiles connected.</p>
          ) : (
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Profile</th>
                    <th scope="col">Country</th>
                    <th scope="col">Id</th>
                  </tr>
                </thead>
                <tbody>
                  {site.advertising.profiles.map((p) => (
                    <tr key={p.id}>
                      <td>{p.name}</td>
                      <td>{p.country_code}</td>
                      <td>
                        <code>{p.id}</code>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {manager && site.platform_id === 5 && site.status === 'connected' && (
            <ConnectButton
              workspaceId={workspaceId}
              platformId={5}
              siteId={site.id}
              label={site.advertising.connected ? 'Reconnect advertising' : 'Connect advertising'}
            />
          )}
        </section>
      )}

      <ListingSettings site={site} workspaceId={workspaceId} onAvailable={setListable} canEdit={manager} version={settingsVersion} />
    </Frame>
  );
}

/**
 * A site the platform stopped accepting, or one disconnected: what that means, and Reconnect for those who may connect
 * (the same platform's consent; the same account consenting brings this site back, with its id).
 */
function BrokenConnection({
  site,
  workspaceId,
  canConnect,
}: {
  site: Parameters<typeof ReconnectButton>[0]['site'];
  workspaceId: string;
  canConnect: boolean;
}) {
  if (site.status !== 'reauthorization_required' && site.status !== 'disconnected') return null;
  const kind = platformName(site.platform);
  const what =
    site.status === 'disconnected'
      ? `${site.name} is disconnected: Storelink holds no access to it on ${kind}.`
      : `${kind} no longer accepts Storelink’s access to ${site.name}, so nothing can be read or changed there until it is reconnected.`;
  return (
    <section className="alert alert-warning reconnect" aria-labelledby="reconnect-heading">
      <h2 id="reconnect-heading">{site.status === 'disconnected' ? 'Disconnected' : 'This site needs to be reconnected'}</h2>
      <p>
        {what}{' '}
        {canConnect
          ? `Reconnect it with the same ${kind} account: the site keeps its id, listings and settings.`
          : 'Ask an owner or admin of this workspace to reconnect it.'}
      </p>
      {canConnect && <ReconnectButton site={site} workspaceId={workspaceId} />}
    </section>
  );
}
