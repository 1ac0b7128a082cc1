/** /profile/developer/api-access: personal access tokens (seed §5): create, value shown once, list, revoke. */
import { type FormEvent, useEffect, useState } from 'react';
import { ApiError, api, PAGE, unwrap } from '../api/client';
import { Confirm, useFocusReturn } from '../confirm';
import { humanFieldMessages } from '../forms';
import { Breadcrumb, ErrorMessage, Frame, formatDate, Loading, lastWorkspace, Notice, usePageTitle, useRequest } from '../ui';

const EXPIRIES = [
  { value: '7', label: '7 days' },
  { value: '30', label: '30 days' },
  { value: '60', label: '60 days' },
  { value: '90', label: '90 days' },
  { value: '365', label: '365 days' },
  { value: 'never', label: 'No expiration' },
];

type Created = { name: string; token: string };
const DEFAULT_EXPIRY = '30';

export function ApiAccess() {
  usePageTitle('API Access', 'Settings');
  const tokens = useRequest(
    async () => unwrap(await api.GET('/api/v1/personal-access-tokens', { params: { query: PAGE } })).data,
    'tokens',
  );
  const [created, setCreated] = useState<Created | null>(null);
  const [expiry, setExpiry] = useState(DEFAULT_EXPIRY);
  const [creating, setCreating] = useState(false);
  const [createError, setCreateError] = useState<Error | null>(null);
  const [copied, setCopied] = useState(false);
  const [revoking, setRevoking] = useState<number | null>(null);
  const [revokeError, setRevokeError] = useState<Error | null>(null);
  const [revoked, setRevoked] = useState<string | null>(null);
  // An object, new at each refused submit, so the focus goes back to the field each time.
  const [nameProblem, setNameProblem] = useState<{ message: string } | null>(null);
  useEffect(() => {
    if (nameProblem) document.getElementById('token-name')?.focus();
  }, [nameProblem]);
  const { focusNext } = useFocusReturn();

  async function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const name = String(form.get('name') ?? '').trim();
    setCreateError(null);
    setCopied(false);
    // Checked here, under the field, instead of by the browser's own bubble (forms.ts says why).
    setNameProblem(name ? null : { message: 'Give the token a name, so you know later which program uses it.' });
    if (!name) return;
    setCreating(true);
    try {
      const body = {
        name,
        expires_in_days: expiry === 'never' ? null : (Number(expiry) as 7 | 30 | 60 | 90 | 365),
      };
      const data = unwrap(await api.POST('/api/v1/personal-access-tokens', { body })).data;
      setCreated({ name: data.name, token: data.token });
      formElement.reset();
      setExpiry(DEFAULT_EXPIRY);
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

  async function revoke(id: number, name: string) {
    setRevokeError(null);
    try {
      unwrap(await api.DELETE('/api/v1/personal-access-tokens/{id}', { params: { path: { id } } }));
      setRevoking(null);
      setRevoked(`The token “${name}” is revoked: programs using it can no longer call the API.`);
      // Its row (and the button that opened the confirmation) is gone: the focus goes to the message that says so.
      focusNext(() => document.getElementById('revoked-notice'));
      tokens.reload();
    } catch (caught) {
      setRevokeError(caught as Error);
    }
  }

  function cancelRevoke(id: number) {
    setRevoking(null);
    focusNext(() => document.getElementById(`revoke-${id}`));
  }

  const serverNameErrors = createError instanceof ApiError ? createError.fields.name : undefined;
  const nameErrors = nameProblem ? [nameProblem.message] : serverNameErrors && humanFieldMessages('name', serverNameErrors);

  return (
    <Frame workspaceId={lastWorkspace.get()} personal>
      <Breadcrumb
        items={[
          { label: 'Dashboard', href: lastWorkspace.get() ? `/workspace/${lastWorkspace.get()}/dashboard` : '/dashboard' },
          { label: 'Settings' },
          { label: 'Developer' },
          { label: 'API Access' },
        ]}
      />
      <h1>API Access</h1>
      <p>
        Personal access tokens let your own programs call the Storelink API as you. Send one as <code>Authorization: Bearer …</code> with an{' '}
        <code>X-Workspace-Id</code> header.
      </p>
      <p>
        Every endpoint, with its parameters, answers and errors, is in the <a href="/api/v1/docs">API reference</a>, where you can also try
        calls with a token; the OpenAPI document behind it is at <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.
      </p>

      <section aria-labelledby="create-heading" className="card">
        <h2 id="create-heading">Create a token</h2>
        <form onSubmit={(e) => void create(e)} className="token-form" noValidate>
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
            <select
              id="token-expiry"
              name="expiry"
              value={expiry}
              onChange={(e) => setExpiry(e.target.value)}
              aria-describedby={expiry === 'never' ? 'token-expiry-hint' : undefined}
            >
              {EXPIRIES.map((e) => (
                <option key={e.value} value={e.value}>
                  {e.label}
                </option>
              ))}
            </select>
            {expiry === 'never' && (
              <p className="hint warning-note" id="token-expiry-hint">
                It works until you revoke it, even if it leaks. An expiry is safer.
              </p>
            )}
          </div>
          <button type="submit" className="primary" disabled={creating}>
            {creating ? 'Creating…' : 'Create token'}
          </button>
        </form>
        {createError && !serverNameErrors && <ErrorMessage error={createError} title="Could not create the token" />}
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
        {revoked && <Notice id="revoked-notice">{revoked}</Notice>}
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
                        <Confirm
                          id={`confirm-revoke-${t.id}`}
                          confirmLabel="Yes, revoke"
                          onConfirm={() => void revoke(t.id, t.name)}
                          onCancel={() => cancelRevoke(t.id)}
                        >
                          Revoke “{t.name}”? Programs using it stop working at once.
                        </Confirm>
                      ) : (
                        <button type="button" id={`revoke-${t.id}`} onClick={() => setRevoking(t.id)} aria-label={`Revoke ${t.name}`}>
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
