/**
 * Invitations (owners and admins; an admin neither invites nor revokes an owner): invite by e-mail and role, the link
 * shown once to copy and, when the server sends e-mail (SMTP_URL), mailed to the invitee too (only the token's hash is
 * kept), the pending invitations with Revoke.
 */
import { type FormEvent, useEffect, useState } from 'react';
import { ApiError, api, PAGE, unwrap } from '../api/client';
import { Confirm, useFocusReturn } from '../confirm';
import { ShownOnce } from '../copy-field';
import { humanFieldMessages, looksLikeEmail } from '../forms';
import { invitableRoles, ROLE_LABEL, type Role, refusalOf } from '../roles';
import { ErrorMessage, formatDate, Loading, Notice, useRequest } from '../ui';
import type { Workspace } from '../workspace-gate';

type Created = { email: string; role: Role; url: string; expires_at: string; mailed: boolean };

export function Invitations({ workspace }: { workspace: Workspace }) {
  const params = { path: { workspace_id: workspace.id } };
  const pending = useRequest(
    async () => unwrap(await api.GET('/api/v1/workspaces/{workspace_id}/invitations', { params: { ...params, query: PAGE } })).data,
    `invitations-${workspace.id}`,
  );
  const roles = invitableRoles(workspace.role);
  const [role, setRole] = useState<Role>('member');
  const [created, setCreated] = useState<Created | null>(null);
  const [emailProblem, setEmailProblem] = useState<{ message: string } | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const [revoking, setRevoking] = useState<number | null>(null);
  const [revokeError, setRevokeError] = useState<Error | null>(null);
  const [revoked, setRevoked] = useState<string | null>(null);
  const { focusNext } = useFocusReturn();
  useEffect(() => {
    if (emailProblem) document.getElementById('invite-email')?.focus();
  }, [emailProblem]);

  async function invite(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const email = String(new FormData(form).get('email') ?? '').trim();
    setError(null);
    setCreated(null);
    const problem = !email
      ? 'Enter the email address of the person to invite.'
      : looksLikeEmail(email)
        ? null
        : 'Enter an email address like name@example.com.';
    setEmailProblem(problem ? { message: problem } : null);
    if (problem) return;
    setBusy(true);
    try {
      const answer = unwrap(await api.POST('/api/v1/workspaces/{workspace_id}/invitations', { params, body: { email, role } })).data;
      setCreated({ email: answer.email, role: answer.role, url: answer.url, expires_at: answer.expires_at, mailed: answer.mailed });
      form.reset();
      setRole('member');
      pending.reload();
    } catch (caught) {
      const fields = caught instanceof ApiError ? caught.fields.email : undefined;
      if (fields) setEmailProblem({ message: humanFieldMessages('email', fields).join(' ') });
      else setError(refusalOf(caught));
    } finally {
      setBusy(false);
    }
  }

  async function revoke(invitation: { id: number; email: string }) {
    setRevokeError(null);
    try {
      const path = { workspace_id: workspace.id, invitation_id: invitation.id };
      unwrap(await api.DELETE('/api/v1/workspaces/{workspace_id}/invitations/{invitation_id}', { params: { path } }));
      setRevoking(null);
      setRevoked(`The invitation for ${invitation.email} is revoked: its link no longer works.`);
      focusNext(() => document.getElementById('revoked-invitation'));
      pending.reload();
    } catch (caught) {
      setRevokeError(refusalOf(caught));
    }
  }

  return (
    <section aria-labelledby="invitations-heading" className="card">
      <h2 id="invitations-heading">Invitations</h2>
      <p>
        You get a link to give the person, mailed to them as well when this server sends e-mail. It works once, for 7 days, and only for
        someone signed in with the address you invite.
      </p>
      {error && <ErrorMessage error={error} title="The invitation was not made" />}
      <form onSubmit={(e) => void invite(e)} noValidate className="token-form">
        <div className="field">
          <label htmlFor="invite-email">Email address</label>
          <input
            id="invite-email"
            name="email"
            type="email"
            autoComplete="off"
            maxLength={254}
            aria-invalid={emailProblem !== null}
            aria-describedby={emailProblem ? 'invite-email-error' : undefined}
          />
          {emailProblem && (
            <p className="field-error" id="invite-email-error">
              {emailProblem.message}
            </p>
          )}
        </div>
        <div className="field">
          <label htmlFor="invite-role">Role</label>
          <select id="invite-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {roles.map((r) => (
              <option key={r} value={r}>
                {ROLE_LABEL[r]}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Inviting…' : 'Create invitation link'}
        </button>
      </form>
      {created && (
        <ShownOnce id="invitation-link" label="Invitation link" value={created.url} onDone={() => setCreated(null)}>
          <p>
            <strong>
              Invitation link for {created.email} ({ROLE_LABEL[created.role].toLowerCase()})
            </strong>
          </p>
          {created.mailed ? (
            <p>
              Storelink is mailing this link to {created.email}. It is shown here once as well, should you want to send it another way. It
              works until {formatDate(created.expires_at)}.
            </p>
          ) : (
            <p className="warning">
              This server sends no e-mail: copy the link now and send it to {created.email} yourself. It is shown once and works until{' '}
              {formatDate(created.expires_at)}. If you lose it, revoke the invitation and invite again.
            </p>
          )}
        </ShownOnce>
      )}

      <h3>Pending invitations</h3>
      {revoked && <Notice id="revoked-invitation">{revoked}</Notice>}
      {revokeError && <ErrorMessage error={revokeError} title="The invitation was not revoked" />}
      {pending.state === 'loading' && <Loading what="the invitations" />}
      {pending.state === 'error' && <ErrorMessage error={pending.error} title="Could not load the invitations" />}
      {pending.state === 'ready' && pending.data.length === 0 && <p className="empty">No invitation is waiting to be accepted.</p>}
      {pending.state === 'ready' && pending.data.length > 0 && (
        <div className="table-wrap">
          <table className="stack">
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Invited</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {pending.data.map((invitation) => (
                <tr key={invitation.id}>
                  <td data-label="Email">{invitation.email}</td>
                  <td data-label="Role">{ROLE_LABEL[invitation.role]}</td>
                  <td data-label="Invited">{formatDate(invitation.created_at)}</td>
                  <td data-label="Expires">{formatDate(invitation.expires_at)}</td>
                  <td>
                    {revoking === invitation.id ? (
                      <Confirm
                        id={`confirm-revoke-invitation-${invitation.id}`}
                        confirmLabel="Yes, revoke"
                        onConfirm={() => void revoke(invitation)}
                        onCancel={() => {
                          setRevoking(null);
                          focusNext(() => document.getElementById(`revoke-invitation-${invitation.id}`));
                        }}
                      >
                        Revoke the invitation for {invitation.email}? Its link stops working at once.
                      </Confirm>
                    ) : invitation.role === 'owner' && workspace.role !== 'owner' ? null : (
                      <button
                        type="button"
                        id={`revoke-invitation-${invitation.id}`}
                        onClick={() => setRevoking(invitation.id)}
                        aria-label={`Revoke the invitation for ${invitation.email}`}
                      >
                        Revoke…
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
