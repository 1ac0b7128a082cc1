/**
 * The members of a workspace with their roles: a role select where the caller may change it, Remove (confirmed) where
 * the caller may remove, Leave for oneself; and handing ownership over (owners, confirmed). A workspace keeps an owner:
 * its last owner is told so instead of being offered what the API would refuse (409), whose words show if it still is.
 */
import { useState } from 'react';
import { api, unwrap } from '../api/client';
import { Confirm, useFocusReturn } from '../confirm';
import { assignableRoles, mayRemove, ROLE_LABEL, type Role, refusalOf } from '../roles';
import { navigate } from '../router';
import { ErrorMessage, flash, formatDate, lastWorkspace } from '../ui';
import type { Workspace } from '../workspace-gate';

export type Member = { user_id: number; name: string; email: string; role: Role; joined_at: string };

const memberPath = (workspaceId: number, userId: number) => ({ path: { workspace_id: workspaceId, user_id: userId } });

export function Members({
  workspace,
  members,
  myId,
  onChanged,
  onRefused,
}: {
  workspace: Workspace;
  members: Member[];
  myId: number;
  /** After a change: what to say, and the caller's own role when it changed. */
  onChanged: (message: string, myRole?: Role) => void;
  /** After a refusal: the list may be out of date (another owner or admin changed it meanwhile), so it is read again. */
  onRefused: () => void;
}) {
  const [error, setError] = useState<{ title: string; error: Error } | null>(null);
  const [removing, setRemoving] = useState<number | null>(null);
  const [busy, setBusy] = useState(false);
  const { focusNext } = useFocusReturn();
  const owners = members.filter((m) => m.role === 'owner').length;
  const lastOwner = (member: Member) => member.role === 'owner' && owners <= 1;

  async function act(title: string, send: () => Promise<void>) {
    setBusy(true);
    setError(null);
    try {
      await send();
    } catch (caught) {
      setError({ title, error: refusalOf(caught) });
      onRefused();
    } finally {
      setBusy(false);
    }
  }

  const changeRole = (member: Member, role: Role) =>
    act(`${member.name}’s role was not changed`, async () => {
      const params = memberPath(workspace.id, member.user_id);
      unwrap(await api.PATCH('/api/v1/workspaces/{workspace_id}/members/{user_id}', { params, body: { role } }));
      const who = member.user_id === myId ? 'You are' : `${member.name} is`;
      onChanged(
        `${who} now ${article(role)} ${ROLE_LABEL[role].toLowerCase()} of ${workspace.name}.`,
        member.user_id === myId ? role : undefined,
      );
      focusNext(() => document.getElementById('settings-notice'));
    });

  const remove = (member: Member) =>
    act(member.user_id === myId ? 'You did not leave the workspace' : `${member.name} was not removed`, async () => {
      unwrap(await api.DELETE('/api/v1/workspaces/{workspace_id}/members/{user_id}', { params: memberPath(workspace.id, member.user_id) }));
      setRemoving(null);
      if (member.user_id === myId) {
        lastWorkspace.forget(workspace.id);
        flash.set(`You left ${workspace.name}.`);
        navigate('/dashboard');
        return;
      }
      onChanged(`${member.name} was removed from ${workspace.name}: their access ended at once.`);
      focusNext(() => document.getElementById('settings-notice'));
    });

  return (
    <>
      {error && <ErrorMessage error={error.error} title={error.title} />}
      <div className="table-wrap">
        <table className="stack">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Joined</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {members.map((member) => {
              const me = member.user_id === myId;
              // The last owner keeps the role: demoting them is what the API refuses.
              const roles = lastOwner(member) ? [] : assignableRoles(workspace.role, member.role);
              const removable = me ? !lastOwner(member) : mayRemove(workspace.role, member.role);
              return (
                <tr key={member.user_id}>
                  <td data-label="Name">
                    {member.name}
                    {me && <span className="muted"> (you)</span>}
                  </td>
                  <td data-label="Email">{member.email}</td>
                  <td data-label="Role">
                    {roles.length > 0 ? (
                      <RoleSelect member={member} roles={roles} busy={busy} onSave={(role) => void changeRole(member, role)} />
                    ) : (
                      ROLE_LABEL[member.role]
                    )}
                  </td>
                  <td data-label="Joined">{formatDate(member.joined_at)}</td>
                  <td>
                    {removing === member.user_id ? (
                      <Confirm
                        id={`confirm-remove-${member.user_id}`}
                        confirmLabel={me ? 'Yes, leave' : 'Yes, remove'}
                        busyLabel={me ? 'Leaving…' : 'Removing…'}
                        busy={busy}
                        onConfirm={() => void remove(member)}
                        onCancel={() => {
                          setRemoving(null);
                          focusNext(() => document.getElementById(`remove-${member.user_id}`));
                        }}
                      >
                        {me
                          ? `Leave ${workspace.name}? You lose access to it at once; an owner or admin can invite you again.`
                          : `Remove ${member.name} from ${workspace.name}? They lose access at once.`}
                      </Confirm>
                    ) : removable ? (
                      <button
                        type="button"
                        id={`remove-${member.user_id}`}
                        className={me ? undefined : 'danger-outline'}
                        onClick={() => setRemoving(member.user_id)}
                        aria-label={me ? undefined : `Remove ${member.name}`}
                      >
                        {me ? 'Leave workspace…' : 'Remove…'}
                      </button>
                    ) : me && lastOwner(member) ? (
                      <span className="muted small">You are its only owner: make another member owner before you leave.</span>
                    ) : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}

const article = (role: Role) => (role === 'owner' || role === 'admin' ? 'an' : 'a');

/** A role select with its own Save, so moving through the options with the keyboard changes nothing by itself. */
function RoleSelect({
  member,
  roles,
  busy,
  onSave,
}: {
  member: Member;
  roles: readonly Role[];
  busy: boolean;
  onSave: (role: Role) => void;
}) {
  const [role, setRole] = useState<Role>(member.role);
  const id = `role-${member.user_id}`;
  return (
    <div className="inline-input">
      <label htmlFor={id} className="visually-hidden">
        Role of {member.name}
      </label>
      <select id={id} value={role} onChange={(e) => setRole(e.target.value as Role)} disabled={busy}>
        {roles.map((r) => (
          <option key={r} value={r}>
            {ROLE_LABEL[r]}
          </option>
        ))}
      </select>
      {role !== member.role && (
        <button type="button" onClick={() => onSave(role)} disabled={busy} aria-label={`Save the role of ${member.name}`}>
          Save
        </button>
      )}
    </div>
  );
}

/** Owners: make another member the owner in one step (the caller becomes an admin), after a confirmation. */
export function TransferOwnership({
  workspace,
  members,
  myId,
  onTransferred,
}: {
  workspace: Workspace;
  members: Member[];
  myId: number;
  onTransferred: (member: Member) => void;
}) {
  const others = members.filter((m) => m.user_id !== myId);
  const [chosen, setChosen] = useState<string>('');
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const { opener, focusNext } = useFocusReturn();
  const member = others.find((m) => String(m.user_id) === chosen);

  async function transfer() {
    if (!member) return;
    setBusy(true);
    setError(null);
    try {
      unwrap(
        await api.POST('/api/v1/workspaces/{workspace_id}/transfer-ownership', {
          params: { path: { workspace_id: workspace.id } },
          body: { user_id: member.user_id },
        }),
      );
      setConfirming(false);
      onTransferred(member);
      focusNext(() => document.getElementById('settings-notice'));
    } catch (caught) {
      setError(refusalOf(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="transfer-heading" className="card">
      <h2 id="transfer-heading">Transfer ownership</h2>
      {others.length === 0 ? (
        <p className="empty">Invite someone first: ownership goes to another member of the workspace.</p>
      ) : (
        <>
          <p>The member you choose becomes an owner, and you become an admin: you can no longer rename or delete the workspace.</p>
          {error && <ErrorMessage error={error} title="Ownership was not transferred" />}
          <div className="token-form">
            <div className="field">
              <label htmlFor="transfer-to">New owner</label>
              <select
                id="transfer-to"
                value={chosen}
                onChange={(e) => {
                  setChosen(e.target.value);
                  setConfirming(false);
                }}
              >
                <option value="">Choose a member</option>
                {others.map((m) => (
                  <option key={m.user_id} value={m.user_id}>
                    {m.name} ({m.email})
                  </option>
                ))}
              </select>
            </div>
            {!confirming && (
              <button type="button" ref={opener} disabled={!member} onClick={() => setConfirming(true)}>
                Transfer ownership…
              </button>
            )}
          </div>
          {confirming && member && (
            <Confirm
              id="confirm-transfer"
              confirmLabel="Yes, transfer"
              busyLabel="Transferring…"
              busy={busy}
              onConfirm={() => void transfer()}
              onCancel={() => {
                setConfirming(false);
                focusNext();
              }}
            >
              Make {member.name} an owner of {workspace.name}? You become an admin, and only an owner can make you owner again.
            </Confirm>
          )}
        </>
      )}
    </section>
  );
}
