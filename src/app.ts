/** buildApp(deps): plugins, routes, authentication, and the error and not-found handlers. Listening is main.ts's job. */
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type RawServerDefault } from 'fastify';
import FindMyWay from 'find-my-way';
import helmet from 'helmet';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from './core/auth/tokens.service.js';
import type { Deps } from './deps.js';
import { AppError } from './errors.js';
import { registerAuthRoutes } from './http/auth.routes.js';
import { registerConnectRoutes } from './http/connect.routes.js';
import { registerAuditRoutes } from './http/audit.routes.js';
import { registerWebhookRoutes } from './http/webhooks.routes.js';
import { registerSiteRoutes } from './http/sites.routes.js';
import { registerSandbox } from './sandbox/plugin.js';
import { handleError } from './http/error-handler.js';
import { registerHealthRoutes } from './http/health.routes.js';
import { registerProductRoutes } from './http/products.routes.js';
import { ErrorBody } from './http/schemas.js';
import { registerTokenRoutes } from './http/tokens.routes.js';
import { validatorCompiler } from './http/validation.js';
import { registerWorkspaceRoutes } from './http/workspaces.routes.js';
import { registerDashboard } from './web/dashboard.routes.js';

/**
 * Who may call a route: `public` anyone; `user` a session or PAT; `workspace` a session or PAT plus an
 * X-Workspace-Id of a workspace the user belongs to; `session` a dashboard session only (a PAT is 403).
 */
export type Access = 'public' | 'user' | 'workspace' | 'session';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export type App = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

export const API_PREFIX = '/api/v1';

export async function buildApp(deps: Deps): Promise<App> {
  const { config } = deps;
  const requestLogs = deps.logger.isLevelEnabled('info');
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    // Errors Fastify meets before routing (a path it cannot decode) get the seed's shape too.
    frameworkErrors: (error, request, reply) => handleError(error, request, reply),
    // Below `info` nothing is logged per request, so a request's own child logger (its reqId run through redaction)
    // would only cost time; its errors are logged by the service's logger instead.
    childLoggerFactory: (logger, bindings, options) => (requestLogs ? logger.child(bindings, options) : logger),
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  // The API takes JSON only: Fastify's built-in text/plain parser would let other bodies reach validation instead of a 415.
  app.removeContentTypeParser('text/plain');
  app.setErrorHandler(handleError);
  app.decorateRequest('principal', null);

  const routesByMethod = FindMyWay();
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routesByMethod.on(method as 'GET', route.url, () => {});
    describeRoute(route as Parameters<typeof describeRoute>[0]);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    const allowed = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].filter((m) => routesByMethod.find(m as 'GET', path));
    const error = allowed.length > 0 ? new AppError('method_not_allowed', { headers: { allow: allowed.join(', ') } }) : new AppError('not_found');
    return handleError(error, request, reply);
  });

  const headers = securityHeaders();
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(headers);
    done();
  });
  await app.register(rateLimit, { global: false });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Storelink API', version: '1.0.0', description: 'Connect a workspace to e-commerce platforms over OAuth 2.0.' },
      servers: [{ url: config.appUrl }],
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A dashboard session token or a personal access token' } } },
    },
  });

  // A callback hook, not an async one: a bearer answered from the cache is admitted without a promise or a tick.
  app.addHook('onRequest', (request, reply, done) => {
    const access = request.routeOptions.config.access;
    if (request.url.startsWith(API_PREFIX)) reply.header('cache-control', 'no-store');
    if (!access || access === 'public') return done();
    const workspaceHeader = request.headers['x-workspace-id'];
    const admit = (principal: Principal) => {
      request.principal = principal;
      done(access === 'session' && principal.kind !== 'session' ? new AppError('forbidden') : undefined);
    };
    try {
      const principal = deps.tokens.authenticate(request.headers.authorization, Array.isArray(workspaceHeader) ? workspaceHeader.join(',') : workspaceHeader, access === 'workspace');
      if (principal instanceof Promise) principal.then(admit, done);
      else admit(principal);
    } catch (error) {
      done(error as Error);
    }
  });

  await app.register(
    async (api: App) => {
      registerHealthRoutes(api, deps);
      registerAuthRoutes(api, deps);
      registerTokenRoutes(api, deps);
      registerWorkspaceRoutes(api, deps);
      registerProductRoutes(api, deps);
      registerConnectRoutes(api, deps);
      registerSiteRoutes(api, deps);
      registerAuditRoutes(api, deps);
      registerWebhookRoutes(api, deps);
    },
    { prefix: API_PREFIX },
  );
  await registerDashboard(app, app.log);
  if (config.sandbox) await registerSandbox(app, deps.sandbox);
  return app;
}

/**
 * helmet's security headers with its defaults, computed once: they depend on nothing in the request. @fastify/helmet
 * runs helmet(options) on every request (parsing the Content-Security-Policy each time) and sets each header on the
 * raw response; that took a minimal Fastify route from 42k to 23k requests/s, against 37.5k this way (BENCHMARKS.md).
 */
function securityHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: string) => void (headers[name.toLowerCase()] = value),
    removeHeader: (name: string) => void delete headers[name.toLowerCase()],
  };
  helmet()({} as IncomingMessage, response as unknown as ServerResponse, (error) => {
    if (error) throw error;
  });
  return headers;
}

/** Adds what every route shares to its schema: the bearer scheme, the X-Workspace-Id header, and the error responses it can give. */
function describeRoute(route: { url: string; schema?: Record<string, unknown>; config?: { access?: Access } }) {
  // The sandbox simulators answer in the platforms' own shapes, not the API's.
  if (!route.url.startsWith(API_PREFIX)) return;
  const access = route.config?.access ?? 'public';
  const schema = (route.schema ??= {});
  const response = ((schema.response as Record<string, unknown> | undefined) ??= {});
  const errors = ['400', '404', '413', '415', '422', '429', '500', '503'];
  if (access !== 'public') {
    schema.security = [{ bearerAuth: [] }];
    errors.push('401', '403');
  }
  if (access === 'workspace') {
    schema.headers = {
      type: 'object',
      properties: { 'x-workspace-id': { type: 'string', pattern: '^[1-9][0-9]*$', description: 'The id of a workspace the user belongs to (GET /workspaces lists them)' } },
      required: ['x-workspace-id'],
    };
  }
  for (const status of errors) response[status] ??= ErrorBody;
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
