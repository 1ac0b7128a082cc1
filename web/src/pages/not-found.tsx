/** Any address the dashboard has no page for (the server answers it 404 with the dashboard, which shows this). */
import type { ReactNode } from 'react';
import { session } from '../api/client';
import { Link, useHeadingFocus } from '../router';
import { Frame, usePageTitle } from '../ui';

export function NotFound() {
  usePageTitle('Page not found');
  const signedIn = session.get() !== null;
  const body = (
    <>
      <h1>Page not found</h1>
      <div className="card">
        <p>
          There is no page at <code>{window.location.pathname}</code>. The address may be mistyped, or the page may have moved.
        </p>
        <p>{signedIn ? <Link href="/dashboard">Go to your dashboard</Link> : <Link href="/login">Sign in to Storelink</Link>}</p>
      </div>
    </>
  );
  return signedIn ? <Frame>{body}</Frame> : <SignedOut>{body}</SignedOut>;
}

function SignedOut({ children }: { children: ReactNode }) {
  useHeadingFocus();
  return (
    <main id="main" className="auth">
      {children}
    </main>
  );
}
