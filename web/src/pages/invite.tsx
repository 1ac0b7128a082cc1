/**
 * /invite/<token>, the link of an invitation (docs/workspaces.md): signed out, sign in or create an account first and
 * come back here; signed in, accept it and land in the workspace. A link used, revoked or expired (404), or made for
 * another e-mail address (403, whose message names it), is said in words.
 */
import { type ReactNode, useState } from 'react';
import { ApiError, api, session, unwrap } from '../api/client';
import { ROLE_LABEL } from '../roles';
import { Link, navigate, useHeadingFocus } from '../router';
import { Frame, flash, Loading, lastWorkspace, usePageTitle, useRequest } from '../ui';

export function InvitePage({ token }: { token: string }) {
  usePageTitle('Invitation');
  return session.get() === null ? <SignedOut token={token} /> : <Accept token={token} />;
}

const here = (token: string) => `/invite/${encodeURIComponent(token)}`;

function SignedOut({ token }: { token: string }) {
  useHeadingFocus();
  const next = new URLSearchParams({ next: here(token) });
  // The link's offer is readable signed out: the page names the workspace. A link that no longer works is said once
  // signed in, as the accepting page says it.
  const offer = useRequest(async () => unwrap(await api.GET('/api/v1/invitations/{token}', { params: { path: { token } } })).data, token);
  return (
    <main id="main" className="auth">
      <h1>
        {offer.state === 'ready'
          ? `You are invited to ${offer.data.workspace.name} on Storelink`
          : 'You are invited to a Storelink workspace'}
      </h1>
      <div className="card">
        {offer.state === 'ready' && (
          <p>
            You were invited to join {offer.data.workspace.name} as {ROLE_LABEL[offer.data.role].toLowerCase()}.
          </p>
        )}
        <p>Sign in, or create an account, with the email address the invitation was sent to. You come back to this page to accept it.</p>
        <div className="button-row">
          <Link className="button primary" href={`/login?${next}`}>
            Sign in
          </Link>
          <Link className="button" href={`/signup?${next}`}>
            Create an account
          </Link>
        </div>
      </div>
    </main>
  );
}

type Refusal = { title: string; body: ReactNode };

/** What a refused acceptance means for the person holding the link. */
function refusalOf(error: unknown, token: string): Refusal {
  if (error instanceof ApiError && error.status === 404)
    return {
      title: 'This invitation link no longer works',
      body: 'It was used already, revoked, or it expired (a link works for 7 days). Ask the person who invited you for a new one.',
    };
  if (error instanceof ApiError && error.status === 403)
    return {
      title: 'This invitation is for someone else',
      body: (
        <>
          {error.message}{' '}
          <button type="button" className="link-button" onClick={() => void switchAccount(token)}>
            Sign in as another user
          </button>
        </>
      ),
    };
  if (error instanceof ApiError && error.status === 409)
    return {
      title: 'You are a member of this workspace already',
      body: <Link href="/dashboard">Go to your dashboard</Link>,
    };
  return { title: 'The invitation was not accepted', body: (error as Error).message };
}

/** Ends this session and signs in again, to come back to the invitation. */
async function switchAccount(token: string) {
  await api.POST('/api/v1/auth/logout', {}).catch(() => undefined);
  session.clear();
  navigate(`/login?${new URLSearchParams({ next: here(token) })}`);
}

function Accept({ token }: { token: string }) {
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<Refusal | null>(null);

  async function accept() {
    setBusy(true);
    setRefusal(null);
    try {
      const workspace = unwrap(await api.POST('/api/v1/invitations/{token}/accept', { params: { path: { token } } })).data;
      lastWorkspace.set(workspace.id);
      flash.set(`You joined ${workspace.name} as ${ROLE_LABEL[workspace.role].toLowerCase()}.`);
      navigate(`/workspace/${workspace.id}/dashboard`, { replace: true });
    } catch (caught) {
      setRefusal(refusalOf(caught, token));
      setBusy(false);
    }
  }

  // What the link offers, read first so the page names it; a link no longer valid is said at once.
  const offer = useRequest(async () => unwrap(await api.GET('/api/v1/invitations/{token}', { params: { path: { token } } })).data, token);
  const shown = refusal ?? (offer.state === 'error' ? refusalOf(offer.error, token) : null);

  return (
    <Frame workspaceId={lastWorkspace.get()} personal>
      <h1>{offer.state === 'ready' ? `Join ${offer.data.workspace.name}?` : 'Join a workspace?'}</h1>
      {shown ? (
        <div className="alert alert-error" role="alert">
          <p>
            <strong>{shown.title}.</strong>
          </p>
          <p>{shown.body}</p>
        </div>
      ) : offer.state === 'loading' ? (
        <Loading what="the invitation" />
      ) : (
        <div className="card">
          <p>
            You were invited to join {offer.state === 'ready' ? offer.data.workspace.name : 'a Storelink workspace'} as{' '}
            {offer.state === 'ready' ? ROLE_LABEL[offer.data.role].toLowerCase() : 'the role the invitation gives'}. Accepting adds it to
            your workspaces and opens it.
          </p>
          <div className="button-row">
            <button type="button" className="primary" onClick={() => void accept()} disabled={busy}>
              {busy ? 'Joining…' : 'Accept invitation'}
            </button>
            <Link className="button" href="/dashboard">
              Not now
            </Link>
          </div>
        </div>
      )}
    </Frame>
  );
}
