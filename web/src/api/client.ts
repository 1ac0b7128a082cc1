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

/** An error answer of the API: its message and, on a 422, the per-field messages. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fields: Record<string, string[]> = {},
  ) {
    super(message);
  }
}

interface Result<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * The data of a success (undefined for a 204, which has no body), or an ApiError built from the API's error body; a 401
 * ends the session and goes to /login.
 */
export function unwrap<T>(result: Result<T>, options: { redirectOn401?: boolean } = {}): T {
  if (result.response.ok) return result.data as T;
  const body = (result.error ?? {}) as { message?: string; errors?: Record<string, string[]> };
  const status = result.response.status;
  if (status === 401 && options.redirectOn401 !== false) {
    session.clear();
    window.location.assign('/login');
  }
  throw new ApiError(status, body.message ?? `The request failed (HTTP ${status})`, body.errors ?? {});
}

/** The X-Workspace-Id header of a workspace-scoped call. */
export const inWorkspace = (workspaceId: number | string) => ({ 'x-workspace-id': String(workspaceId) });

/** Every page of results is more than a dashboard shows; this is the size asked for. */
export const PAGE = { page: 1, per_page: 100 };
