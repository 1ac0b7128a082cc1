/** A small history-API router: the address is the state, so the workspace id is always visible in it. */
import { type AnchorHTMLAttributes, type MouseEvent, useEffect, useState } from 'react';

const listeners = new Set<() => void>();

/**
 * Whether the page a navigation opened should get the focus on its main heading: set by an in-app navigation (a link, a
 * pushed address, Back or Forward), not by a first load or an address replaced in place; ended by the user's next key
 * or pointer press, so a late-loading page never takes the focus from where the user put it.
 */
let headingFocusPending = false;
const settle = () => void (headingFocusPending = false);
window.addEventListener('keydown', settle, true);
window.addEventListener('pointerdown', settle, true);
window.addEventListener('popstate', () => void (headingFocusPending = true));

export function navigate(to: string, options: { replace?: boolean } = {}) {
  if (options.replace) history.replaceState(null, '', to);
  else {
    history.pushState(null, '', to);
    headingFocusPending = true;
  }
  listeners.forEach((listener) => listener());
}

export function useLocation(): URL {
  const [url, setUrl] = useState(() => new URL(window.location.href));
  useEffect(() => {
    const update = () => setUrl((shown) => (shown.href === window.location.href ? shown : new URL(window.location.href)));
    listeners.add(update);
    window.addEventListener('popstate', update);
    // A child's effect runs before this one: a navigation it made (a signed-out visitor sent to /login) was not heard.
    update();
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return url;
}

/**
 * After an in-app navigation, moves the focus to the page's main heading once it is rendered, and again when a page
 * replaces its heading as it loads, as long as the focus would otherwise be on nothing (`<body>`).
 */
export function useHeadingFocus() {
  useEffect(() => {
    if (!headingFocusPending) return;
    if (document.activeElement && document.activeElement !== document.body) return;
    const heading = document.querySelector<HTMLElement>('main h1');
    if (!heading) return;
    heading.tabIndex = -1;
    heading.focus();
  });
}

/** A same-origin path to go back to after signing in, or null for anything else (another origin, `//host`, a scheme). */
export function safeReturnPath(value: string | null): string | null {
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return null;
  const url = new URL(value, window.location.origin);
  return url.origin === window.location.origin ? `${url.pathname}${url.search}` : null;
}

/** /login with the current page to come back to once signed in. */
export function loginUrl(): string {
  const back = safeReturnPath(`${window.location.pathname}${window.location.search}`);
  return back && !/^\/(login|signup)\b/.test(back) ? `/login?${new URLSearchParams({ next: back })}` : '/login';
}

export function Link({ href, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const handle = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    navigate(href);
  };
  return <a href={href} onClick={handle} {...rest} />;
}
