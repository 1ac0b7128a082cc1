/**
 * /dashboard (to the current workspace) and /workspace/<id>/dashboard: the workspace switcher and "New workspace…", the
 * oversold alert (DESIGN §14), the sites that need reconnecting, the overview (each site's listings by status, what
 * needs fixing, recent orders: overview.tsx), the connect catalogue (owners and admins) and the connected sites.
 */
import { useEffect } from 'react';
import { api, inWorkspace, PAGE, unwrap } from '../api/client';
import { useLiveChanges } from '../live';
import { canManage } from '../roles';
import { Link, navigate } from '../router';
import {
  ErrorMessage,
  Frame,
  Loading,
  lastWorkspace,
  loadWorkspaces,
  Notice,
  platformName,
  STATUS_LABEL,
  useFlash,
  usePageTitle,
  useRequest,
} from '../ui';
import { type Workspace, WorkspaceGate } from '../workspace-gate';
import { ConnectButton, ConnectOutcome } from './connect';
import { AttentionBanner, ConnectCatalogue } from './connect-catalogue';
import { NewWorkspaceButton } from './new-workspace';
import { loadOversold, OversoldAlert } from './order-parts';
import { WorkspaceOverview } from './overview';

/** Goes to the last used workspace if the user still has it, else the first; keeps the query (a connect outcome). */
export function DashboardRedirect({ search }: { search: string }) {
  usePageTitle('Dashboard');
  const workspaces = useRequest(loadWorkspaces, 'workspaces');
  useEffect(() => {
    if (workspaces.state !== 'ready' || workspaces.data.length === 0) return;
    const remembered = workspaces.data.find((w) => String(w.id) === lastWorkspace.get());
    navigate(`/workspace/${(remembered ?? workspaces.data[0]!).id}/dashboard${search}`, { replace: true });
  }, [workspaces, search]);
  return (
    <Frame>
      {workspaces.state === 'error' ? (
        <ErrorMessage error={workspaces.error} title="Could not load your workspaces" />
      ) : workspaces.state === 'ready' && workspaces.data.length === 0 ? (
        <>
          <h1>No workspace</h1>
          <div className="card">
            <p>You do not belong to any workspace. Create one, or open an invitation link someone sent you.</p>
            <NewWorkspaceButton />
          </div>
        </>
      ) : (
        <Loading what="your workspace" />
      )}
    </Frame>
  );
}

/** "1 profile", "2 profiles". */
const profiles = (count: number) => `${count} ${count === 1 ? 'profile' : 'profiles'}`;

export function WorkspaceDashboard({ workspaceId, search }: { workspaceId: string; search: URLSearchParams }) {
  return (
    <WorkspaceGate workspaceId={workspaceId}>
      {(workspace, workspaces) => <Dashboard workspace={workspace} workspaces={workspaces} search={search} />}
    </WorkspaceGate>
  );
}

function Dashboard({ workspace, workspaces, search }: { workspace: Workspace; workspaces: Workspace[]; search: URLSearchParams }) {
  const workspaceId = String(workspace.id);
  const manager = canManage(workspace.role);
  usePageTitle('Dashboard', workspace.name);
  useEffect(() => lastWorkspace.set(workspaceId), [workspaceId]);
  const [message] = useFlash();
  const sites = useRequest(
    async () => unwrap(await api.GET('/api/v1/sites', { params: { query: PAGE, header: inWorkspace(workspaceId) } })).data,
    `sites-${workspaceId}`,
  );
  const oversold = useRequest(() => loadOversold(workspaceId), `oversold-${workspaceId}`);
  // A site needing reconnection, or an order oversold, shows without a reload (live.ts).
  useLiveChanges(workspaceId, ['sites'], sites.refresh);
  useLiveChanges(workspaceId, ['orders'], oversold.refresh);
  const siteName = (id: number) => (sites.state === 'ready' ? sites.data.find((s) => s.id === id)?.name : undefined) ?? `site ${id}`;

  return (
    <Frame workspaceId={workspaceId} role={workspace.role}>
      <div className="page-head">
        <h1>
          {workspace.name} <span className="muted small">(workspace {workspaceId})</span>
        </h1>
        <div className="switcher">
          <div className="field inline">
            <label htmlFor="workspace-switcher">Workspace</label>
            <select id="workspace-switcher" value={workspaceId} onChange={(e) => navigate(`/workspace/${e.target.value}/dashboard`)}>
              {workspaces.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name} (#{w.id})
                </option>
              ))}
            </select>
          </div>
          <NewWorkspaceButton />
        </div>
      </div>
      {message && <Notice>{message}</Notice>}
      {oversold.state === 'ready' && <OversoldAlert orders={oversold.data} workspaceId={workspaceId} siteName={siteName} />}
      <ConnectOutcome search={search} />
      {sites.state === 'ready' && <AttentionBanner sites={sites.data} workspaceId={workspaceId} canConnect={manager} />}

      <WorkspaceOverview workspaceId={workspaceId} siteName={siteName} />

      {manager && <ConnectCatalogue workspaceId={workspaceId} />}

      <section aria-labelledby="sites-heading" className="card">
        <h2 id="sites-heading">Connected sites</h2>
        {sites.state === 'loading' && <Loading what="sites" />}
        {sites.state === 'error' && <ErrorMessage error={sites.error} title="Could not load the sites" />}
        {sites.state === 'ready' && sites.data.length === 0 && (
          <p className="empty">
            {manager
              ? 'No sites yet. Connect Etsy, TikTok Shop or Amazon above.'
              : 'No sites yet. The owners and admins of this workspace connect them.'}
          </p>
        )}
        {sites.state === 'ready' && sites.data.length > 0 && (
          <div className="table-wrap">
            <table className="stack">
              <thead>
                <tr>
                  <th scope="col">Platform</th>
                  <th scope="col">Name</th>
                  <th scope="col">Status</th>
                  <th scope="col">Advertising</th>
                </tr>
              </thead>
              <tbody>
                {sites.data.map((site) => (
                  <tr key={site.id}>
                    <td data-label="Platform">{platformName(site.platform)}</td>
                    <td data-label="Name">
                      <Link href={`/site/${site.id}/listings`}>{site.name}</Link>
                    </td>
                    <td data-label="Status">
                      <span className={`badge badge-${site.status}`}>{STATUS_LABEL[site.status] ?? site.status}</span>
                    </td>
                    <td data-label="Advertising">
                      {site.advertising === null ? (
                        <span className="muted">—</span>
                      ) : site.advertising.connected ? (
                        profiles(site.advertising.profiles.length)
                      ) : manager && site.platform_id === 5 && site.status === 'connected' ? (
                        <ConnectButton workspaceId={workspaceId} platformId={5} siteId={site.id} label="Connect advertising" />
                      ) : (
                        <span className="muted">Not connected</span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </Frame>
  );
}
