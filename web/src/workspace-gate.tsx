/**
 * The pages under /workspace/<id>/ open only for a workspace the user is a member of: any other id in the address
 * (another team's, a deleted one, "abc") gets a clear message with the user's own workspaces, never a live page whose
 * buttons would fail, and is not remembered as the last workspace.
 */
import type { ReactNode } from 'react';
import { canManage, ROLE_LABEL } from './roles';
import { Link } from './router';
import { ErrorMessage, Frame, Loading, loadWorkspaces, usePageTitle, useRequest } from './ui';

export type Workspace = Awaited<ReturnType<typeof loadWorkspaces>>[number];

export function WorkspaceGate({
  workspaceId,
  children,
}: {
  workspaceId: string;
  children: (workspace: Workspace, workspaces: Workspace[]) => ReactNode;
}) {
  const workspaces = useRequest(loadWorkspaces, 'workspaces');
  if (workspaces.state === 'loading') {
    return (
      <Frame>
        <Loading what="the workspace" />
      </Frame>
    );
  }
  if (workspaces.state === 'error') {
    return (
      <Frame>
        <h1>Workspace</h1>
        <ErrorMessage error={workspaces.error} title="Could not load your workspaces" />
      </Frame>
    );
  }
  const workspace = workspaces.data.find((w) => String(w.id) === workspaceId);
  return workspace ? children(workspace, workspaces.data) : <NoSuchWorkspace workspaceId={workspaceId} workspaces={workspaces.data} />;
}

/**
 * A page for owners and admins (webhooks, the audit log): a member who opens it by its address is told whose page it is
 * and whom to ask, instead of a page whose every call would be refused.
 */
export function ManagersOnly({ workspace, title, children }: { workspace: Workspace; title: string; children: ReactNode }) {
  usePageTitle(title, workspace.name);
  if (canManage(workspace.role)) return children;
  return (
    <Frame workspaceId={String(workspace.id)} role={workspace.role}>
      <h1>{title}</h1>
      <div className="card">
        <p>
          Only the owners and admins of {workspace.name} can open {title}. You are a {ROLE_LABEL[workspace.role].toLowerCase()} of this
          workspace: ask one of its owners or admins if you need it.
        </p>
        <p>
          <Link href={`/workspace/${workspace.id}/dashboard`}>Back to the dashboard</Link>
        </p>
      </div>
    </Frame>
  );
}

function NoSuchWorkspace({ workspaceId, workspaces }: { workspaceId: string; workspaces: Workspace[] }) {
  usePageTitle('Workspace not found');
  return (
    <Frame>
      <h1>Workspace not found</h1>
      <div className="card">
        <p>
          {/^\d+$/.test(workspaceId) ? `Workspace ${workspaceId} is not one of yours` : `“${workspaceId}” is not a workspace address`}:
          either it does not exist or you are not a member of it. Ask its owner for an invitation if you should be.
        </p>
        {workspaces.length === 0 ? (
          <p>You do not belong to any workspace.</p>
        ) : (
          <>
            <h2>Your workspaces</h2>
            <ul>
              {workspaces.map((w) => (
                <li key={w.id}>
                  <Link href={`/workspace/${w.id}/dashboard`}>{w.name}</Link>
                </li>
              ))}
            </ul>
          </>
        )}
      </div>
    </Frame>
  );
}
