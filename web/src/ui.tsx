/** Shared pieces: the request hook, loading and error states, the page frame with navigation. */
import {
  createContext,
  type KeyboardEvent,
  type ReactNode,
  useCallback,
  useContext,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
} from 'react';
import { ApiError, api, PAGE, session, unwrap } from './api/client';
import { canEdit, canManage, ROLE_LABEL, type Role } from './roles';
import { Link, loginUrl, navigate, useHeadingFocus } from './router';

export type Loadable<T> = { state: 'loading' } | { state: 'error'; error: Error } | { state: 'ready'; data: T };

/**
 * Runs `load` on mount and whenever `key` changes; `reload` runs it again, showing the loading state meanwhile, and
 * `refresh` runs it again in the background, keeping what is shown until the new answer replaces it (a failed refresh
 * leaves it): for live updates (live.ts), which must not make the page flash "Loading".
 */
export function useRequest<T>(load: () => Promise<T>, key: string): Loadable<T> & { reload: () => void; refresh: () => void } {
  const [result, setResult] = useState<Loadable<T>>({ state: 'loading' });
  const [round, setRound] = useState(0);
  const latest = useRef(load);
  latest.current = load;
  const generation = useRef(0);
  // `load` is a new closure on every render; `key` names what it loads and `round` asks for it again.
  // biome-ignore lint/correctness/useExhaustiveDependencies: key and round are the triggers, load is not one
  useEffect(() => {
    let live = true;
    const mine = ++generation.current;
    setResult({ state: 'loading' });
    load().then(
      (data) => live && mine === generation.current && setResult({ state: 'ready', data }),
      (error: Error) => live && mine === generation.current && setResult({ state: 'error', error }),
    );
    return () => {
      live = false;
    };
  }, [key, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  const refresh = useCallback(() => {
    const mine = ++generation.current;
    latest.current().then(
      (data) => mine === generation.current && setResult({ state: 'ready', data }),
      () => undefined,
    );
  }, []);
  return { ...result, reload, refresh };
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="loading" role="status">
      Loading {what}…
    </p>
  );
}

/** A failed upload: what the API said of the file itself when it refused the file (a 422 on `file`), else the error. */
export function UploadError({ error }: { error: Error }) {
  const fileErrors = error instanceof ApiError ? Object.values(error.fields).flat() : [];
  return fileErrors.length ? (
    <p className="field-error" role="alert">
      {fileErrors.join(' ')}
    </p>
  ) : (
    <ErrorMessage error={error} title="The upload failed" />
  );
}

export function ErrorMessage({ error, title }: { error: Error | string; title?: string }) {
  const message = typeof error === 'string' ? error : error.message;
  return (
    <div className="alert alert-error" role="alert">
      {title && <strong>{title}: </strong>}
      {message}
    </div>
  );
}

export function Notice({ children, id }: { children: ReactNode; id?: string }) {
  return (
    <div className="alert alert-info" role="status" id={id} tabIndex={id ? -1 : undefined}>
      {children}
    </div>
  );
}

/** The tab's title, "<parts> · Storelink" ("Listings · Etsy shop · Storelink"), so a screen reader hears the page change. */
export function usePageTitle(...parts: string[]) {
  const title = [...parts, 'Storelink'].join(' · ');
  useEffect(() => {
    document.title = title;
  }, [title]);
}

/** A trail of links to the pages above this one; the last item is this page. */
export function Breadcrumb({ items }: { items: { label: string; href?: string }[] }) {
  return (
    <nav aria-label="Breadcrumb">
      <ol className="breadcrumb">
        {items.map((item, index) => (
          <li key={item.label}>
            {index === items.length - 1 ? (
              <span aria-current="page">{item.label}</span>
            ) : item.href ? (
              <Link href={item.href}>{item.label}</Link>
            ) : (
              item.label
            )}
          </li>
        ))}
      </ol>
    </nav>
  );
}

let carried: string | null = null;
/** A success message that outlives one navigation ("Product created.", "You joined …" on the page the app goes to next). */
export const flash = {
  set: (message: string) => void (carried = message),
  take: (): string | null => {
    const message = carried;
    carried = null;
    return message;
  },
};

/** The flash message once, kept for the life of the page. */
export function useFlash(): [string | null, (message: string | null) => void] {
  return useState<string | null>(flash.take);
}

const WORKSPACE_KEY = 'storelink.workspace';
export const lastWorkspace = {
  get: (): string | null => localStorage.getItem(WORKSPACE_KEY),
  set: (id: number | string) => localStorage.setItem(WORKSPACE_KEY, String(id)),
  /** Forgets `id` if it is the one remembered (a workspace left or deleted). */
  forget: (id: number | string) => {
    if (localStorage.getItem(WORKSPACE_KEY) === String(id)) localStorage.removeItem(WORKSPACE_KEY);
  },
};

export async function loadWorkspaces() {
  return unwrap(await api.GET('/api/v1/workspaces', { params: { query: PAGE } })).data;
}

async function signOut() {
  await api.POST('/api/v1/auth/logout', {}).catch(() => undefined);
  session.clear();
  navigate('/login');
}

/**
 * The Settings menu left open by a frame that went away while its page stayed: a page shows a frame of its own while it
 * loads (WorkspaceGate's, a Suspense fallback), which the loaded page's frame replaces. The new frame's menu opens as the
 * user left it, with the focus on "Settings" if it was in the menu, instead of closing under their pointer. Kept for the
 * address of the page the menu was on, so a navigation closes it.
 */
let menuLeftOpen: { href: string; focused: boolean } | null = null;

/**
 * The Settings menu (a disclosure: <details>): Escape closes it and gives the focus back to "Settings"; a press or a
 * focus anywhere outside it closes it too, so it never stays open over the page.
 */
function SettingsMenu({ workspaceId, role }: { workspaceId?: string | null; role: Role | null }) {
  const menu = useRef<HTMLDetailsElement>(null);
  useLayoutEffect(() => {
    const details = menu.current;
    const shownAt = window.location.href;
    if (details && menuLeftOpen?.href === shownAt) {
      details.open = true;
      if (menuLeftOpen.focused) details.querySelector('summary')?.focus();
    }
    menuLeftOpen = null;
    // Run as the frame goes, its menu still in the document: a link in the menu has navigated by then, so the address
    // differs and the next page's menu stays closed.
    return () => {
      menuLeftOpen = details?.open ? { href: shownAt, focused: details.contains(document.activeElement) } : null;
    };
  }, []);
  useEffect(() => {
    const outside = (event: Event) => {
      const details = menu.current;
      if (details?.open && !details.contains(event.target as Node)) details.open = false;
    };
    document.addEventListener('pointerdown', outside);
    document.addEventListener('focusin', outside);
    return () => {
      document.removeEventListener('pointerdown', outside);
      document.removeEventListener('focusin', outside);
    };
  }, []);
  const closeOnEscape = (event: KeyboardEvent<HTMLElement>) => {
    const details = menu.current;
    if (event.key !== 'Escape' || !details?.open) return;
    details.open = false;
    details.querySelector('summary')?.focus();
  };
  return (
    <details className="menu" ref={menu} onKeyDown={closeOnEscape}>
      <summary>Settings</summary>
      <div className="menu-panel">
        {workspaceId && (
          <>
            <span className="menu-heading" id="workspace-heading">
              Workspace{role && <span className="menu-role"> · {ROLE_LABEL[role]}</span>}
            </span>
            <ul aria-labelledby="workspace-heading">
              <li>
                <Link href={`/workspace/${workspaceId}/settings`}>Workspace settings</Link>
              </li>
              {role && canManage(role) && (
                <>
                  <li>
                    <Link href={`/workspace/${workspaceId}/webhooks`}>Webhooks</Link>
                  </li>
                  <li>
                    <Link href={`/workspace/${workspaceId}/audit-log`}>Audit log</Link>
                  </li>
                </>
              )}
            </ul>
          </>
        )}
        <span className="menu-heading" id="account-heading">
          You
        </span>
        <ul aria-labelledby="account-heading">
          <li>
            <Link href="/profile/account">Account</Link>
          </li>
        </ul>
        <span className="menu-heading" id="developer-heading">
          Developer
        </span>
        <ul aria-labelledby="developer-heading">
          <li>
            <Link href="/profile/developer/api-access">API Access</Link>
          </li>
          <li>
            <a href="/api/v1/docs">API reference</a>
          </li>
        </ul>
      </div>
    </details>
  );
}

/** `aria-current="page"` on the navigation link of the section the address is in. */
const current = (section: string) =>
  window.location.pathname === section || window.location.pathname.startsWith(`${section}/`) ? ('page' as const) : undefined;

/**
 * The caller's role in the workspace: `known` when the page has it already, else read from GET /workspaces (null while
 * it loads, or when the workspace is not the user's).
 */
function useRole(workspaceId: string | null | undefined, known: Role | undefined): Role | null {
  const read = useRequest(
    async () => (known || !workspaceId ? null : ((await loadWorkspaces()).find((w) => String(w.id) === workspaceId)?.role ?? null)),
    `role-${workspaceId ?? ''}-${known ?? ''}`,
  );
  return known ?? (read.state === 'ready' ? read.data : null);
}

/** The caller's role in the page's workspace, as the frame knows it (null outside a workspace or while it loads). */
const RoleContext = createContext<Role | null>(null);

/** The caller's role in the workspace of the page's frame; null while it loads or outside a workspace. */
export const useFrameRole = () => useContext(RoleContext);

/**
 * What changes the workspace (add, import, edit, delete, publish, sync…): shown once the caller's role is known and
 * may change things, never to a viewer, who only reads (DESIGN §12). The API refuses a viewer's writes whatever is shown.
 */
export function Editable({ children }: { children: ReactNode }) {
  const role = useFrameRole();
  return role && canEdit(role) ? children : null;
}

/**
 * A form that changes the workspace, shown to everyone who may read it: disabled, every field and button in it, for a
 * viewer (or while the role loads), so they read its values without a control that would be refused.
 */
export function ReadOnly({ children }: { children: ReactNode }) {
  const role = useFrameRole();
  return (
    <fieldset className="read-only-fieldset" disabled={!(role && canEdit(role))}>
      {children}
    </fieldset>
  );
}

/**
 * The frame of every signed-in page: header with navigation and the Settings menu, then the page. The menu offers the
 * workspace's pages that the caller's role may open (`role`, when the page knows it; read otherwise).
 */
export function Frame({
  children,
  workspaceId,
  role,
  personal = false,
}: {
  children: ReactNode;
  workspaceId?: string | null;
  role?: Role;
  /** A page of the user's own (account, tokens, an invitation), under the last workspace's menu: no read-only line. */
  personal?: boolean;
}) {
  const home = workspaceId ? `/workspace/${workspaceId}/dashboard` : '/dashboard';
  const shownRole = useRole(workspaceId, role);
  useHeadingFocus();
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link className="brand" href={home}>
          Storelink
        </Link>
        <nav aria-label="Main">
          <Link href={home} aria-current={current(home)}>
            Dashboard
          </Link>
          {workspaceId && (
            <Link href={`/workspace/${workspaceId}/products`} aria-current={current(`/workspace/${workspaceId}/products`)}>
              Products
            </Link>
          )}
          {workspaceId && (
            <Link href={`/workspace/${workspaceId}/orders`} aria-current={current(`/workspace/${workspaceId}/orders`)}>
              Orders
            </Link>
          )}
          <SettingsMenu workspaceId={workspaceId} role={shownRole} />
          <button type="button" className="link-button" onClick={() => void signOut()}>
            Sign out
          </button>
        </nav>
      </header>
      <main id="main" tabIndex={-1}>
        {shownRole && !canEdit(shownRole) && !personal && (
          <p className="read-only-note" role="note">
            You are a <strong>viewer</strong> of this workspace: you can see everything in it and change nothing. Ask an owner or admin for
            another role if you need to make changes.
          </p>
        )}
        <RoleContext.Provider value={shownRole}>{children}</RoleContext.Provider>
      </main>
    </>
  );
}

/** Sends a visitor without a session to /login (which brings them back here once signed in) before a signed-in page. */
export function RequireSession({ children }: { children: ReactNode }) {
  const signedIn = session.get() !== null;
  useEffect(() => {
    if (!signedIn) navigate(loginUrl(), { replace: true });
  }, [signedIn]);
  return signedIn ? children : null;
}

export function fieldErrors(error: unknown): Record<string, string[]> {
  return error instanceof ApiError ? error.fields : {};
}

export function formatDate(value: string | null, empty = 'Never'): string {
  if (!value) return empty;
  return new Date(value).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export const PLATFORMS = [
  { id: 1 as const, name: 'Etsy', platform: 'etsy' },
  { id: 4 as const, name: 'TikTok Shop', platform: 'tiktok-shop' },
  { id: 5 as const, name: 'Amazon', platform: 'amazon-seller' },
];

export const platformName = (platform: string) => PLATFORMS.find((p) => p.platform === platform)?.name ?? platform;

export const STATUS_LABEL: Record<string, string> = {
  connected: 'Connected',
  reauthorization_required: 'Reauthorization required',
  disconnected: 'Disconnected',
};
