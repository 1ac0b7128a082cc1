/** /signup and /login: a session token in localStorage, then the page the visitor came from (`?next=`) or /dashboard. */
import { type FormEvent, useEffect, useState } from 'react';
import { ApiError, api, session, unwrap } from '../api/client';
import { humanFieldMessages, looksLikeEmail, waitFor } from '../forms';
import { Link, navigate, safeReturnPath, useHeadingFocus } from '../router';
import { ErrorMessage, Notice, usePageTitle } from '../ui';

type Fields = Record<string, string[]>;
const MIN_PASSWORD = 8;

/** What is wrong with the form before it is sent, per field, in the words the API's answer would get. */
function checkForm(signup: boolean, values: { name: string; email: string; password: string }): Fields {
  const problems: Fields = {};
  if (signup && !values.name.trim()) problems.name = ['Enter your name.'];
  if (!values.email.trim()) problems.email = ['Enter your email address.'];
  else if (!looksLikeEmail(values.email.trim())) problems.email = ['Enter an email address like name@example.com.'];
  if (!values.password) problems.password = ['Enter your password.'];
  else if (signup && values.password.length < MIN_PASSWORD) problems.password = [`Use at least ${MIN_PASSWORD} characters.`];
  return problems;
}

/** The message above the form for an answer that is not about one field. */
function formMessage(error: Error, signup: boolean): string {
  if (!(error instanceof ApiError)) return error.message;
  if (error.status === 401) return 'Wrong email or password.';
  if (error.status === 429)
    return `Too many ${signup ? 'sign-ups' : 'sign-in attempts'}. ${waitFor(error.retryAfterSeconds)}, then try again.`;
  return error.message;
}

export function AuthPage({ mode }: { mode: 'signup' | 'login' }) {
  const signup = mode === 'signup';
  usePageTitle(signup ? 'Create your account' : 'Sign in');
  useHeadingFocus();
  const query = new URLSearchParams(window.location.search);
  const next = safeReturnPath(query.get('next'));
  const expired = query.get('reason') === 'expired';
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const [fields, setFields] = useState<Fields>({});
  // Once its message is on the page, the first field with a problem takes the focus, so the two are read out together.
  useEffect(() => {
    const first = ['name', 'email', 'password'].find((name) => fields[name]);
    if (first) document.getElementById(first)?.focus();
  }, [fields]);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const values = {
      name: String(form.get('name') ?? ''),
      email: String(form.get('email') ?? ''),
      password: String(form.get('password') ?? ''),
    };
    setError(null);
    const problems = checkForm(signup, values);
    setFields(problems);
    if (Object.keys(problems).length > 0) return;
    setBusy(true);
    try {
      const { email, password } = values;
      const token = signup
        ? unwrap(await api.POST('/api/v1/auth/register', { body: { email: email.trim(), password, name: values.name.trim() } }), {
            redirectOn401: false,
          }).data.token
        : unwrap(await api.POST('/api/v1/auth/login', { body: { email: email.trim(), password } }), { redirectOn401: false }).data.token;
      session.set(token);
      navigate(next ?? '/dashboard');
    } catch (caught) {
      const answered = caught instanceof ApiError ? caught.fields : {};
      const human = Object.fromEntries(Object.entries(answered).map(([name, messages]) => [name, humanFieldMessages(name, messages)]));
      setFields(human);
      // A 422 is said under its fields; anything else above the form.
      setError(Object.keys(human).length > 0 ? null : (caught as Error));
      setBusy(false);
    }
  }

  const fieldError = (name: string) =>
    fields[name] ? (
      <p className="field-error" id={`${name}-error`}>
        {fields[name].join(' ')}
      </p>
    ) : null;
  const describedBy = (name: string) => (fields[name] ? `${name}-error` : undefined);
  const other = `${signup ? '/login' : '/signup'}${next ? `?${new URLSearchParams({ next })}` : ''}`;

  return (
    <main id="main" className="auth">
      <h1>{signup ? 'Create your Storelink account' : 'Sign in to Storelink'}</h1>
      {expired && !error && <Notice>Your session has ended. Sign in again to go on where you were.</Notice>}
      <form onSubmit={(e) => void submit(e)} noValidate className="card">
        {error && <ErrorMessage error={formMessage(error, signup)} />}
        {signup && (
          <div className="field">
            <label htmlFor="name">Name</label>
            <input id="name" name="name" autoComplete="name" required aria-invalid={!!fields.name} aria-describedby={describedBy('name')} />
            {fieldError('name')}
          </div>
        )}
        <div className="field">
          <label htmlFor="email">Email</label>
          <input
            id="email"
            name="email"
            type="email"
            autoComplete="email"
            required
            aria-invalid={!!fields.email}
            aria-describedby={describedBy('email')}
          />
          {fieldError('email')}
        </div>
        <div className="field">
          <label htmlFor="password">Password</label>
          <input
            id="password"
            name="password"
            type="password"
            autoComplete={signup ? 'new-password' : 'current-password'}
            required
            aria-invalid={!!fields.password}
            aria-describedby={describedBy('password')}
          />
          {fieldError('password')}
        </div>
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Please wait…' : signup ? 'Create account' : 'Sign in'}
        </button>
        <p className="muted">
          {signup ? (
            <>
              Already have an account? <Link href={other}>Sign in</Link>
            </>
          ) : (
            <>
              New to Storelink? <Link href={other}>Create an account</Link>
            </>
          )}
        </p>
        {!signup && (
          <p className="muted">
            <Link href="/forgot-password">Forgot password?</Link>
          </p>
        )}
      </form>
    </main>
  );
}
