/** /profile/developer/api-access: personal access tokens (seed §5): create, value shown once, list, revoke. */
import { type FormEvent, useState } from 'react';
import { ApiError, api, PAGE, unwrap } from '../api/client';
import { ErrorMessage, Frame, formatDate, Loading, lastWorkspace, useRequest } from '../ui';

const EXPIRIES = [
  { value: '7', label: '7 days' },
  { value: '30', label: '30 days' },
  { value: '60', label: '60 days' },
  { value: '90', label: '90 days' },
  { value: '365', label: '365 days' },
  { value: 'never', label: 'No expiration' },
];

type Created = { name: string; token: string };

export function ApiAccess() {
  const tokens = useRequest(
    async () => unwrap(await api.GET('/api/v1/personal-access-tokens', { params: { query: PAGE } })).data,
    'tokens',
  );
  const [created, setCreated] = useState<Created | null>(null);
  const [creating, setCreating] = useState(false);
  const [createError, setCreateError] = useState<Error | null>(null);
  const [copied, setCopied] = useState(false);
  const [revoking, setRevoking] = useState<number | null>(null);
  const [revokeError, setRevokeError] = useState<Error | null>(null);

  async function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const expiry = String(form.get('expiry'));
    setCreating(true);
    setCreateError(null);
    setCopied(false);
    try {
      const body = {
        name: String(form.get('name') ?? ''),
        expires_in_days: expiry === 'never' ? null : (Number(expiry) as 7 | 30 | 60 | 90 | 365),
      };
      const data = unwrap(await api.POST('/api/v1/personal-access-tokens', { body })).data;
      setCreated({ name: data.name, token: data.token });
      formElement.reset();
      tokens.reload();
    } catch (caught) {
      setCreateError(caught as Error);
    } finally {
      setCreating(false);
    }
  }

  async function copy(token: string) {
    try {
      await navigator.clipboard.writeText(token);
      setCopied(true);
    } catch {
      // Clipboard access can be refused (no permission, not a secure origin); the value stays selectable.
      setCopied(false);
    }
  }

  async function revoke(id: number) {
    setRevokeError(null);
    try {
      unwrap(await api.DELETE('/api/v1/personal-access-tokens/{id}', { params: { path: { id } } }));
      setRevoking(null);
      tokens.reload();
    } catch (caught) {
      setRevokeError(caught as Error);
    }
  }

  const nameErrors = createError instanceof ApiError ? createError.fields.name : undefined;

  return (
    <Frame workspaceId={lastWorkspace.get()}>
      <p className="muted small breadcrumb">Settings › Developer › API Access</p>
      <h1>API Access</h1>
      <p>
        Personal access tokens let your own programs call the Storelink API as you. Send one as <code>Authorization: Bearer …</code> with an{' '}
        <code>X-Workspace-Id</code> header.
      </p>

      <section aria-labelledby="create-heading" className="card">
        <h2 id="create-heading">Create a token</h2>
        <form onSubmit={(e) => void create(e)} className="token-form">
          <div className="field">
            <label htmlFor="token-name">Name</label>
            <input
              id="token-name"
              name="name"
              required
              maxLength={255}
              placeholder="e.g. Inventory sync"
              aria-invalid={!!nameErrors}
              aria-describedby={nameErrors ? 'token-name-error' : undefined}
            />
            {nameErrors && (
              <p className="field-error" id="token-name-error">
                {nameErrors.join(' ')}
              </p>
            )}
          </div>
          <div className="field">
            <label htmlFor="token-expiry">Expiration</label>
            <select id="token-expiry" name="expiry" defaultValue="30">
              {EXPIRIES.map((e) => (
                <option key={e.value} value={e.value}>
                  {e.label}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" className="primary" disabled={creating}>
            {creating ? 'Creating…' : 'Create token'}
          </button>
        </form>
        {createError && !nameErrors && <ErrorMessage error={createError} title="Could not create the token" />}
        {created && (
          <div className="new-token" role="status" aria-live="polite">
            <p>
              <strong>Your new token “{created.name}”</strong>
            </p>
            <p className="warning">Copy it now. It cannot be shown again: if you lose it, revoke it and create a new one.</p>
            <div className="token-value">
              <label htmlFor="new-token-value" className="visually-hidden">
                Token value
              </label>
              <input id="new-token-value" readOnly value={created.token} onFocus={(e) => e.currentTarget.select()} />
              <button type="button" onClick={() => void copy(created.token)}>
                {copied ? 'Copied' : 'Copy'}
              </button>
              <button type="button" onClick={() => setCreated(null)}>
                Done
              </button>
            </div>
          </div>
        )}
      </section>

      <section aria-labelledby="tokens-heading" className="card">
        <h2 id="tokens-heading">Your tokens</h2>
        {revokeError && <ErrorMessage error={revokeError} title="Could not revoke the token" />}
        {tokens.state === 'loading' && <Loading what="tokens" />}
        {tokens.state === 'error' && <ErrorMessage error={tokens.error} title="Could not load your tokens" />}
        {tokens.state === 'ready' && tokens.data.length === 0 && <p className="empty">You have no personal access tokens.</p>}
        {tokens.state === 'ready' && tokens.data.length > 0 && (
          <div className="table-wrap">
            <table className="stack">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Created</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Last used</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {tokens.data.map((t) => (
                  <tr key={t.id}>
                    <td data-label="Name">{t.name}</td>
                    <td data-label="Created">{formatDate(t.created_at)}</td>
                    <td data-label="Expires">{formatDate(t.expires_at, 'Never')}</td>
                    <td data-label="Last used">{formatDate(t.last_used_at, 'Never used')}</td>
                    <td>
                      {revoking === t.id ? (
                        <fieldset className="button-row" aria-label={`Confirm revoking ${t.name}`}>
                          <button type="button" className="danger" onClick={() => void revoke(t.id)}>
                            Yes, revoke
                          </button>
                          <button type="button" onClick={() => setRevoking(null)}>
                            Cancel
                          </button>
                        </fieldset>
                      ) : (
                        <button type="button" onClick={() => setRevoking(t.id)} aria-label={`Revoke ${t.name}`}>
                          Revoke
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
    </Frame>
  );
}
