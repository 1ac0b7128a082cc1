/** /signup and /login: a session token in localStorage, then /dashboard. */
import { type FormEvent, useState } from 'react';
import { ApiError, api, session, unwrap } from '../api/client';
import { Link, navigate } from '../router';
import { ErrorMessage } from '../ui';

export function AuthPage({ mode }: { mode: 'signup' | 'login' }) {
  const signup = mode === 'signup';
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | Error | null>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const email = String(form.get('email') ?? '');
    const password = String(form.get('password') ?? '');
    setBusy(true);
    setError(null);
    try {
      const token = signup
        ? unwrap(await api.POST('/api/v1/auth/register', { body: { email, password, name: String(form.get('name') ?? '') } }), {
            redirectOn401: false,
          }).data.token
        : unwrap(await api.POST('/api/v1/auth/login', { body: { email, password } }), { redirectOn401: false }).data.token;
      session.set(token);
      navigate('/dashboard');
    } catch (caught) {
      setError(caught as Error);
      setBusy(false);
    }
  }

  const fields = error instanceof ApiError ? error.fields : {};
  const fieldError = (name: string) =>
    fields[name] ? (
      <p className="field-error" id={`${name}-error`}>
        {fields[name].join(' ')}
      </p>
    ) : null;
  const describedBy = (name: string) => (fields[name] ? `${name}-error` : undefined);

  return (
    <main id="main" className="auth">
      <h1>{signup ? 'Create your Storelink account' : 'Sign in to Storelink'}</h1>
      <form onSubmit={(e) => void submit(e)} noValidate className="card">
        {error && <ErrorMessage error={error} />}
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
              Already have an account? <Link href="/login">Sign in</Link>
            </>
          ) : (
            <>
              New to Storelink? <Link href="/signup">Create an account</Link>
            </>
          )}
        </p>
      </form>
    </main>
  );
}
