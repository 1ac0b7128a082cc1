/**
 * Who may call a route, and the authentication hook that decides it before any handler runs (seed §3, DESIGN §2):
 * routes declare `config.access` and read the caller with `principalOf` / `workspaceOf`.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest, RawServerDefault } from 'fastify';
import type { Principal } from '../core/auth/principal.js';
import { type Role, roleReaches } from '../domain/index.js';
import { AppError } from '../errors.js';

/**
 * Who may call a route: `public` anyone; `user` a session or PAT; `workspace` a session or PAT plus an
 * X-Workspace-Id of a workspace the user belongs to; `session` a dashboard session only (a PAT is 403).
 */
export type Access = 'public' | 'user' | 'workspace' | 'session';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
    /**
     * With access `workspace`: the least role in that workspace the route asks for (DESIGN §12's table); 403 below it.
     * Unset, a write (any method but GET, HEAD, OPTIONS) asks for a member, a read for any role, a viewer's included.
     */
    role?: Role;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export type App = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

export const API_PREFIX = '/api/v1';

/** What the hook needs of the tokens service: a bearer and a workspace header turned into a principal, or a 401/403. */
export interface Authenticator {
  authenticate(
    authorization: string | undefined,
    workspaceHeader: string | undefined,
    needsWorkspace: boolean,
  ): Principal | Promise<Principal>;
}

/**
 * Adds the authentication hook to every route with access other than `public`: a route-level hook, so a public route
 * pays nothing and an authenticated one does not look its options up on every request (Fastify builds
 * `request.routeOptions` anew each time it is read).
 */
export function addAuthentication(app: App, authenticator: Authenticator): void {
  app.decorateRequest('principal', null);
  app.addHook('onRoute', (route) => {
    const access = route.config?.access;
    if (!access || access === 'public') return;
    const hooks = route.onRequest ? [route.onRequest].flat() : [];
    route.onRequest = [authenticationHook(access, authenticator, leastRole(access, route.method, route.config?.role)), ...hooks];
  });
}

/** The methods that change nothing: the only ones a viewer may call on a workspace. */
const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The least role a route asks for: the one it declares, else, for a workspace's route that may change something (any
 * method but GET, HEAD and OPTIONS), a member, so that a viewer is refused every write, a route added later included
 * (DESIGN §12).
 */
function leastRole(access: Access, method: string | string[], declared: Role | undefined): Role | undefined {
  if (declared !== undefined || access !== 'workspace') return declared;
  return [method].flat().some((m) => !READ_METHODS.has(m.toUpperCase())) ? 'member' : undefined;
}

type OnRequestHook = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void;

function authenticationHook(access: Exclude<Access, 'public'>, authenticator: Authenticator, role?: Role): OnRequestHook {
  const needsWorkspace = access === 'workspace';
  // A callback hook, not an async one: a bearer answered from the cache is admitted without a promise or a tick.
  return (request, _reply, done) => {
    const admit = (principal: Principal) => {
      request.principal = principal;
      const refused =
        (access === 'session' && principal.kind !== 'session') ||
        (role !== undefined && principal.workspace !== null && !roleReaches(principal.workspace.role, role));
      done(refused ? new AppError('forbidden') : undefined);
    };
    try {
      const workspaceHeader = request.headers['x-workspace-id'];
      const header = Array.isArray(workspaceHeader) ? workspaceHeader.join(',') : workspaceHeader;
      const principal = authenticator.authenticate(request.headers.authorization, header, needsWorkspace);
      if (principal instanceof Promise) principal.then(admit, done);
      else admit(principal);
    } catch (error) {
      done(error as Error);
    }
  };
}

/** The principal of a route declared with access other than `public`; set by the onRequest hook before any handler runs. */
export function principalOf(request: { principal: Principal | null }): Principal {
  if (!request.principal) throw new AppError('unauthenticated');
  return request.principal;
}

/** The workspace of a route declared with access `workspace`. */
export function workspaceOf(request: { principal: Principal | null }): NonNullable<Principal['workspace']> {
  const { workspace } = principalOf(request);
  if (!workspace) throw new AppError('forbidden');
  return workspace;
}

/** The caller of a request, as the audit log records them. */
export function actorOf(request: { principal: Principal | null; ip: string }): { userId: number; ipAddress: string } {
  return { userId: principalOf(request).user.id, ipAddress: request.ip };
}
