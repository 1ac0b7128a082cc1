/**
 * /forgot-password asks for a reset link by e-mail (the API answers alike whether an account has the address);
 * /reset-password?token=… sets a new password with the mailed link, which ends every session, then sends the visitor
 * to sign in. docs/e-mail.md.
 */
import { type FormEvent, useEffect, useState } from 'react';
import { ApiError, api, unwrap } from '../api/client';
import { humanFieldMessages, looksLikeEmail, waitFor } from '../forms';
import { Link, useHeadingFocus } from '../router';
import { ErrorMessage, Notice, usePageTitle } from '../ui';

type Fields = Record<string, string[]>;
const MIN_PASSWORD = 8;

function FieldError({ name, fields }: { name: string; fields: Fields }) {
  return fields[name] ? (
    <p className="field-error" id={`${name}-error`}>
      {fields[name].join(' ')}
    </p>
  ) : null;
}

const describedBy = (name: string, fields: Fields) => (fields[name] ? `${name}-error` : undefined);

/** The message above the form for an answer that is not about one field. */
const formMessage = (error: Error) =>
  error instanceof ApiError && error.status === 429
    ? `Too many requests. ${waitFor(error.retryAfterSeconds)}, then try again.`
    : error.message;

/** The first field with a problem takes the focus once its message is on the page. */
function useFocusFirst(fields: Fields, names: string[]) {
  useEffect(() => {
    const first = names.find((name) => fields[name]);
    if (first) document.getElementById(first)?.focus();
  }, [fields, names]);
}

const EMAIL_FIELDS = ['email'];
const PASSWORD_FIELDS = ['password', 'password_again'];

export function ForgotPasswordPage() {
  usePageTitle('Forgot your password');
  useHeadingFocus();
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const [fields, setFields] = useState<Fields>({});
  useFocusFirst(fields, EMAIL_FIELDS);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const email = String(new FormData(event.currentTarget).get('email') ?? '').trim();
    setError(null);
    const problems: Fields = !email
      ? { email: ['Enter your email address.'] }
      : looksLikeEmail(email)
        ? {}
        : { email: ['Enter an email address like name@example.com.'] };
    setFields(problems);
    if (Object.keys(problems).length > 0) return;
    setBusy(true);
    try {
      unwrap(await api.POST('/api/v1/auth/password-reset', { body: { email } }), { redirectOn401: false });
      setSent(true);
    } catch (caught) {
      setError(caught as Error);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" className="auth">
      <h1>Reset your password</h1>
      {sent ? (
        <div className="card">
          <Notice id="reset-sent">
            If an account has this email address, a link to choose a new password is on its way. It works once, within an hour.
          </Notice>
          <p className="muted">
            No mail after a few minutes? This Storelink may not send e-mail: ask whoever runs it to set a new password with{' '}
            <code>storelink user:reset-password --email &lt;your e-mail&gt;</code>.
          </p>
          <p>
            <Link href="/login">Back to sign in</Link>
          </p>
        </div>
      ) : (
        <form onSubmit={(e) => void submit(e)} noValidate className="card">
          {error && <ErrorMessage error={formMessage(error)} />}
          <p>Enter the email address of your account: we mail it a link to choose a new password.</p>
          <div className="field">
            <label htmlFor="email">Email</label>
            <input
              id="email"
              name="email"
              type="email"
              autoComplete="email"
              required
              aria-invalid={!!fields.email}
              aria-describedby={describedBy('email', fields)}
            />
            <FieldError name="email" fields={fields} />
          </div>
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Please wait…' : 'Send me a link'}
          </button>
          <p className="muted">
            Remembered it? <Link href="/login">Sign in</Link>
          </p>
        </form>
      )}
    </main>
  );
}

export function ResetPasswordPage() {
  usePageTitle('Choose a new password');
  useHeadingFocus();
  const token = new URLSearchParams(window.location.search).get('token') ?? '';
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const [fields, setFields] = useState<Fields>({});
  useFocusFirst(fields, PASSWORD_FIELDS);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const password = String(form.get('password') ?? '');
    const again = String(form.get('password_again') ?? '');
    setError(null);
    const problems: Fields = {};
    if (password.length < MIN_PASSWORD) problems.password = [`Use at least ${MIN_PASSWORD} characters.`];
    else if (password !== again) problems.password_again = ['The two passwords differ.'];
    setFields(problems);
    if (Object.keys(problems).length > 0) return;
    setBusy(true);
    try {
      unwrap(await api.POST('/api/v1/auth/password-reset/confirm', { body: { token, password } }), { redirectOn401: false });
      setDone(true);
    } catch (caught) {
      const answered = caught instanceof ApiError ? caught.fields : {};
      if (answered.token) setError(new Error('This link is invalid, has been used or has expired. Ask for a new one.'));
      else if (answered.password) setFields({ password: humanFieldMessages('password', answered.password) });
      else setError(caught as Error);
    } finally {
      setBusy(false);
    }
  }

  if (done)
    return (
      <main id="main" className="auth">
        <h1>Your password is changed</h1>
        <div className="card">
          <Notice id="reset-done">You are signed out everywhere. Sign in with your new password.</Notice>
          <p>
            <Link href="/login">Sign in</Link>
          </p>
        </div>
      </main>
    );

  return (
    <main id="main" className="auth">
      <h1>Choose a new password</h1>
      <form onSubmit={(e) => void submit(e)} noValidate className="card">
        {!token && <ErrorMessage error="This page needs the link from the mail. Ask for a new one." />}
        {error && <ErrorMessage error={formMessage(error)} />}
        {(error || !token) && (
          <p>
            <Link href="/forgot-password">Ask for a new link</Link>
          </p>
        )}
        {PASSWORD_FIELDS.map((name) => (
          <div className="field" key={name}>
            <label htmlFor={name}>{name === 'password' ? 'New password' : 'New password again'}</label>
            <input
              id={name}
              name={name}
              type="password"
              autoComplete="new-password"
              required
              aria-invalid={!!fields[name]}
              aria-describedby={describedBy(name, fields)}
            />
            <FieldError name={name} fields={fields} />
          </div>
        ))}
        <button type="submit" className="primary" disabled={busy || !token}>
          {busy ? 'Please wait…' : 'Set the new password'}
        </button>
      </form>
    </main>
  );
}
