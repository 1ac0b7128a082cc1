/**
 * /profile/account: the signed-in user's name and password. Changing the password asks for the current one and ends
 * every other session (the API's POST /user/password); personal access tokens keep working (API Access lists them).
 */
import { type FormEvent, useState } from 'react';
import { ApiError, api, inWorkspace, unwrap } from '../api/client';
import { humanFieldMessages, waitFor } from '../forms';
import { Breadcrumb, ErrorMessage, Frame, lastWorkspace, Notice, usePageTitle, useRequest } from '../ui';

const PASSWORD_MIN = 8;

type Problems = Record<string, string[]>;

/** The 422's field messages in plain words, or null for another failure (shown as a whole). */
function fieldProblems(error: unknown): Problems | null {
  if (!(error instanceof ApiError) || Object.keys(error.fields).length === 0) return null;
  return Object.fromEntries(Object.entries(error.fields).map(([field, messages]) => [field, humanFieldMessages(field, messages)]));
}

function FieldError({ id, messages }: { id: string; messages: string[] | undefined }) {
  return messages ? (
    <p className="field-error" id={id}>
      {messages.join(' ')}
    </p>
  ) : null;
}

/** A password input with its label and its messages; `current_password` is filled in, the others chosen anew. */
function PasswordField({ id, name, label, problems }: { id: string; name: string; label: string; problems: Problems }) {
  const errorId = `${id}-error`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        name={name}
        type="password"
        autoComplete={name === 'current_password' ? 'current-password' : 'new-password'}
        aria-invalid={!!problems[name]}
        aria-describedby={problems[name] ? errorId : undefined}
      />
      <FieldError id={errorId} messages={problems[name]} />
    </div>
  );
}

export function Account() {
  usePageTitle('Account', 'Settings');
  // GET /user answers within a workspace: the last one opened, else the first of the user's.
  const me = useRequest(async () => {
    const workspace =
      lastWorkspace.get() ?? unwrap(await api.GET('/api/v1/workspaces', { params: { query: { page: 1, per_page: 1 } } })).data[0]?.id;
    if (workspace === undefined) return null;
    return unwrap(await api.GET('/api/v1/user', { params: { header: inWorkspace(workspace) } })).data;
  }, 'account');
  const [nameProblems, setNameProblems] = useState<Problems>({});
  const [nameError, setNameError] = useState<Error | null>(null);
  const [nameSaved, setNameSaved] = useState<string | null>(null);
  const [passwordProblems, setPasswordProblems] = useState<Problems>({});
  const [passwordError, setPasswordError] = useState<Error | null>(null);
  const [passwordSaved, setPasswordSaved] = useState(false);
  const [busy, setBusy] = useState<'name' | 'password' | null>(null);

  async function saveName(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget).get('name') ?? '').trim();
    setNameError(null);
    setNameSaved(null);
    setNameProblems(name ? {} : { name: ['Enter your name.'] });
    if (!name) return;
    setBusy('name');
    try {
      const saved = unwrap(await api.PATCH('/api/v1/user', { body: { name } })).data;
      setNameSaved(`Your name is now ${saved.name}.`);
    } catch (caught) {
      const problems = fieldProblems(caught);
      if (problems) setNameProblems(problems);
      else setNameError(caught as Error);
    } finally {
      setBusy(null);
    }
  }

  async function savePassword(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const current = String(form.get('current_password') ?? '');
    const password = String(form.get('password') ?? '');
    const repeated = String(form.get('password_again') ?? '');
    setPasswordError(null);
    setPasswordSaved(false);
    const problems: Problems = {};
    if (!current) problems.current_password = ['Enter your current password.'];
    if (password.length < PASSWORD_MIN) problems.password = [`Use at least ${PASSWORD_MIN} characters.`];
    else if (password !== repeated) problems.password_again = ['The two new passwords differ.'];
    setPasswordProblems(problems);
    if (Object.keys(problems).length > 0) return;
    setBusy('password');
    try {
      unwrap(await api.POST('/api/v1/user/password', { body: { current_password: current, password } }));
      formElement.reset();
      setPasswordSaved(true);
    } catch (caught) {
      const fields = fieldProblems(caught);
      if (fields) setPasswordProblems(fields);
      else setPasswordError(caught as Error);
    } finally {
      setBusy(null);
    }
  }

  const rateLimited = passwordError instanceof ApiError && passwordError.status === 429;

  return (
    <Frame workspaceId={lastWorkspace.get()} personal>
      <Breadcrumb
        items={[
          { label: 'Dashboard', href: lastWorkspace.get() ? `/workspace/${lastWorkspace.get()}/dashboard` : '/dashboard' },
          { label: 'Settings' },
          { label: 'Account' },
        ]}
      />
      <h1>Account</h1>
      {me.state === 'ready' && me.data && <p>Signed in as {me.data.email}.</p>}

      <section aria-labelledby="name-heading" className="card">
        <h2 id="name-heading">Your name</h2>
        <form onSubmit={(e) => void saveName(e)} noValidate>
          <div className="field">
            <label htmlFor="account-name">Name</label>
            <input
              id="account-name"
              name="name"
              maxLength={100}
              autoComplete="name"
              defaultValue={me.state === 'ready' ? (me.data?.name ?? '') : ''}
              key={me.state}
              aria-invalid={!!nameProblems.name}
              aria-describedby={nameProblems.name ? 'account-name-error' : undefined}
            />
            <FieldError id="account-name-error" messages={nameProblems.name} />
          </div>
          <button type="submit" className="primary" disabled={busy === 'name'}>
            {busy === 'name' ? 'Saving…' : 'Save name'}
          </button>
        </form>
        {nameSaved && <Notice id="name-saved">{nameSaved}</Notice>}
        {nameError && <ErrorMessage error={nameError} title="Could not change your name" />}
      </section>

      <section aria-labelledby="password-heading" className="card">
        <h2 id="password-heading">Password</h2>
        <p>Changing it signs you out everywhere else. Your personal access tokens keep working.</p>
        <form onSubmit={(e) => void savePassword(e)} noValidate>
          <PasswordField id="current-password" name="current_password" label="Current password" problems={passwordProblems} />
          <PasswordField id="new-password" name="password" label="New password" problems={passwordProblems} />
          <PasswordField id="new-password-again" name="password_again" label="New password again" problems={passwordProblems} />
          <button type="submit" className="primary" disabled={busy === 'password'}>
            {busy === 'password' ? 'Changing…' : 'Change password'}
          </button>
        </form>
        {passwordSaved && <Notice id="password-saved">Your password is changed. Your other sessions have ended.</Notice>}
        {rateLimited && (
          <p className="field-error" role="alert">
            Too many attempts. {waitFor((passwordError as ApiError).retryAfterSeconds)} before trying again.
          </p>
        )}
        {passwordError && !rateLimited && <ErrorMessage error={passwordError} title="Could not change your password" />}
      </section>
    </Frame>
  );
}
