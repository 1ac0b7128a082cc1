/**
 * /workspace/<id>/settings (DESIGN §12): the workspace's name, its members and their roles, pending invitations, handing
 * ownership over and deleting the workspace. Each role sees only what it may do (src/roles.ts); the page keeps the
 * caller's role as the answers change it (a rename answers with it, a hand-over makes the caller an admin).
 */
import { type FormEvent, useRef, useState } from 'react';
import { ApiError, api, PAGE, unwrap } from '../api/client';
import { humanFieldMessages } from '../forms';
import { canManage, isOwner, ROLE_LABEL, refusalOf } from '../roles';
import { navigate } from '../router';
import { Breadcrumb, ErrorMessage, Frame, flash, Loading, lastWorkspace, Notice, usePageTitle, useRequest } from '../ui';
import type { Workspace } from '../workspace-gate';
import { Invitations } from './workspace-invitations';
import { type Member, Members, TransferOwnership } from './workspace-members';

const path = (workspaceId: number) => ({ path: { workspace_id: workspaceId } });

async function loadPeople(workspaceId: number) {
  const [members, me] = await Promise.all([
    api.GET('/api/v1/workspaces/{workspace_id}/members', { params: { ...path(workspaceId), query: PAGE } }),
    api.GET('/api/v1/user', { params: { header: { 'x-workspace-id': String(workspaceId) } } }),
  ]);
  return { members: unwrap(members).data as Member[], myId: unwrap(me).data.id };
}

export function WorkspaceSettings({ workspace: opened }: { workspace: Workspace }) {
  const [workspace, setWorkspace] = useState(opened);
  const [notice, setNotice] = useState<string | null>(null);
  const people = useRequest(() => loadPeople(workspace.id), `people-${workspace.id}`);
  // Read again after a change, the members stay on screen instead of flashing to "Loading" (and the focus stays put).
  const shown = useRef<Awaited<ReturnType<typeof loadPeople>> | null>(null);
  if (people.state === 'ready') shown.current = people.data;
  usePageTitle('Workspace settings', workspace.name);
  const workspaceId = String(workspace.id);

  const changed = (message: string, update?: Partial<Workspace>) => {
    setNotice(message);
    if (update) setWorkspace((w) => ({ ...w, ...update }));
    people.reload();
  };

  return (
    <Frame workspaceId={workspaceId} role={workspace.role}>
      <Breadcrumb
        items={[
          { label: 'Dashboard', href: `/workspace/${workspaceId}/dashboard` },
          { label: 'Settings' },
          { label: 'Workspace settings' },
        ]}
      />
      <h1>Workspace settings</h1>
      <p>
        {workspace.name} · your role: <strong>{ROLE_LABEL[workspace.role]}</strong>
      </p>
      {notice && (
        <Notice id="settings-notice" key={notice}>
          {notice}
        </Notice>
      )}

      <Rename workspace={workspace} onRenamed={(name) => changed(`The workspace is now called “${name}”.`, { name })} />

      <section aria-labelledby="members-heading" className="card">
        <h2 id="members-heading">Members</h2>
        {!shown.current && people.state === 'loading' && <Loading what="the members" />}
        {people.state === 'error' && <ErrorMessage error={people.error} title="Could not load the members" />}
        {shown.current && (
          <Members
            workspace={workspace}
            members={shown.current.members}
            myId={shown.current.myId}
            onChanged={(message, myRole) => changed(message, myRole ? { role: myRole } : undefined)}
            onRefused={people.reload}
          />
        )}
      </section>

      {canManage(workspace.role) && <Invitations workspace={workspace} />}

      {isOwner(workspace.role) && shown.current && (
        <TransferOwnership
          workspace={workspace}
          members={shown.current.members}
          myId={shown.current.myId}
          onTransferred={(member) =>
            changed(`${member.name} is now an owner of ${workspace.name}, and you are an admin.`, { role: 'admin' })
          }
        />
      )}

      {isOwner(workspace.role) && <DeleteWorkspace workspace={workspace} />}
    </Frame>
  );
}

/** The name: a form for owners, the name alone for anyone else. */
function Rename({ workspace, onRenamed }: { workspace: Workspace; onRenamed: (name: string) => void }) {
  const [problem, setProblem] = useState<string | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  if (!isOwner(workspace.role)) return null;

  async function rename(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget).get('name') ?? '').trim();
    setError(null);
    setProblem(name ? null : 'Enter a name for the workspace.');
    if (!name) return document.getElementById('workspace-name')?.focus();
    setBusy(true);
    try {
      const renamed = unwrap(await api.PATCH('/api/v1/workspaces/{workspace_id}', { params: path(workspace.id), body: { name } })).data;
      onRenamed(renamed.name);
    } catch (caught) {
      const fields = caught instanceof ApiError ? caught.fields.name : undefined;
      if (fields) setProblem(humanFieldMessages('name', fields).join(' '));
      else setError(refusalOf(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="name-heading" className="card">
      <h2 id="name-heading">Name</h2>
      {error && <ErrorMessage error={error} title="The workspace was not renamed" />}
      <form onSubmit={(e) => void rename(e)} noValidate className="token-form">
        <div className="field">
          <label htmlFor="workspace-name">Workspace name</label>
          <input
            id="workspace-name"
            name="name"
            defaultValue={workspace.name}
            key={workspace.name}
            maxLength={100}
            autoComplete="off"
            aria-invalid={problem !== null}
            aria-describedby={problem ? 'workspace-name-error' : undefined}
          />
          {problem && (
            <p className="field-error" id="workspace-name-error">
              {problem}
            </p>
          )}
        </div>
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Rename'}
        </button>
      </form>
    </section>
  );
}

/**
 * Delete, in a modal dialog where the workspace's name must be typed (the API's `confirm`): the button waits for it,
 * and the API's own 422 is shown if it still differs.
 */
function DeleteWorkspace({ workspace }: { workspace: Workspace }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const [typed, setTyped] = useState('');
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);

  async function remove(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      unwrap(await api.DELETE('/api/v1/workspaces/{workspace_id}', { params: path(workspace.id), body: { confirm: typed } }));
      dialog.current?.close();
      lastWorkspace.forget(workspace.id);
      flash.set(`The workspace “${workspace.name}” was deleted, with its sites, catalogue, listings, webhooks and audit log.`);
      navigate('/dashboard');
    } catch (caught) {
      setError(caught instanceof ApiError && caught.fields.confirm ? new Error(caught.fields.confirm.join(' ')) : refusalOf(caught));
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="delete-heading" className="card danger-zone">
      <h2 id="delete-heading">Delete the workspace</h2>
      <p>
        Deleting {workspace.name} disconnects its sites and deletes its products, listings, webhooks, invitations, members and audit log.
        What its shops hold stays on the platforms. This cannot be undone.
      </p>
      <button
        type="button"
        className="danger"
        onClick={() => {
          setTyped('');
          setError(null);
          dialog.current?.showModal();
          cancel.current?.focus();
        }}
      >
        Delete workspace…
      </button>
      <dialog ref={dialog} className="dialog" aria-labelledby="delete-workspace-title" aria-describedby="delete-workspace-text">
        <h2 id="delete-workspace-title">Delete “{workspace.name}”?</h2>
        <form onSubmit={(e) => void remove(e)} noValidate>
          <p id="delete-workspace-text">
            Its sites, products, listings, webhooks, members and audit log go with it. This cannot be undone.
          </p>
          {error && <ErrorMessage error={error} title="The workspace was not deleted" />}
          <div className="field">
            <label htmlFor="delete-workspace-confirm">Type the workspace’s name, {workspace.name}, to confirm</label>
            <input
              id="delete-workspace-confirm"
              value={typed}
              onChange={(e) => setTyped(e.target.value)}
              autoComplete="off"
              spellCheck={false}
            />
          </div>
          <div className="button-row">
            <button type="submit" className="danger" disabled={busy || typed !== workspace.name}>
              {busy ? 'Deleting…' : 'Delete this workspace'}
            </button>
            <button type="button" ref={cancel} onClick={() => dialog.current?.close()} disabled={busy}>
              Cancel
            </button>
          </div>
        </form>
      </dialog>
    </section>
  );
}
