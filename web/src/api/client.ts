/** The dashboard's one way to the service: openapi-fetch typed from the OpenAPI document, session token as bearer. */
import createClient from 'openapi-fetch';
import type { paths } from './schema';

const TOKEN_KEY = 'storelink.session';

export const session = {
  get: (): string | null => localStorage.getItem(TOKEN_KEY),
  set: (token: string) => localStorage.setItem(TOKEN_KEY, token),
  clear: () => localStorage.removeItem(TOKEN_KEY),
};

export const api = createClient<paths>({ baseUrl: window.location.origin });

api.use({
  onRequest({ request }) {
    const token = session.get();
    if (token && !request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${token}`);
    return request;
  },
});

/** An error answer of the API: its message, on a 422 the per-field messages, and the seconds its Retry-After asks for. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fields: Record<string, string[]> = {},
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }
}

/** Retry-After in seconds, from either of its forms (a number of seconds or an HTTP date); null when absent. */
function retryAfterOf(response: Response): number | null {
  const value = response.headers.get('retry-after');
  if (value === null) return null;
  const seconds = /^\d+$/.test(value.trim()) ? Number(value) : (Date.parse(value) - Date.now()) / 1000;
  return Number.isFinite(seconds) ? Math.max(0, Math.ceil(seconds)) : null;
}

/** /login with this page to come back to, and a word that the session ended (kept free of the router: no React here). */
function expiredLoginUrl(): string {
  const here = `${window.location.pathname}${window.location.search}`;
  const query = new URLSearchParams({ reason: 'expired' });
  if (!/^\/(login|signup)\b/.test(here)) query.set('next', here);
  return `/login?${query}`;
}

interface Result<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * The data of a success (undefined for a 204, which has no body), or an ApiError built from the API's error body; a 401
 * ends the session and goes to /login, which brings the user back here once signed in.
 */
export function unwrap<T>(result: Result<T>, options: { redirectOn401?: boolean } = {}): T {
  if (result.response.ok) return result.data as T;
  const body = (result.error ?? {}) as { message?: string; errors?: Record<string, string[]> };
  const status = result.response.status;
  if (status === 401 && options.redirectOn401 !== false) {
    session.clear();
    window.location.assign(expiredLoginUrl());
  }
  throw new ApiError(status, body.message ?? `The request failed (HTTP ${status})`, body.errors ?? {}, retryAfterOf(result.response));
}

/** The X-Workspace-Id header of a workspace-scoped call. */
export const inWorkspace = (workspaceId: number | string) => ({ 'x-workspace-id': String(workspaceId) });

/** Every page of results is more than a dashboard shows; this is the size asked for. */
export const PAGE = { page: 1, per_page: 100 };
