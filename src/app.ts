/** buildApp(deps): plugins, authentication, routes, and the error and not-found handlers. Listening is main.ts's job. */

import type { IncomingMessage } from 'node:http';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import rateLimit from '@fastify/rate-limit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyRequest, LogController } from 'fastify';
import type { Config } from './config.js';
import type { Deps } from './deps.js';
import { API_PREFIX, type App, addAuthentication } from './http/access.js';
import { registerAccountRoutes } from './http/account.routes.js';
import { registerAdvertisingRoutes } from './http/advertising.routes.js';
import { registerAuditRoutes } from './http/audit.routes.js';
import { registerAuthRoutes } from './http/auth.routes.js';
import { createClientErrorHandler } from './http/client-errors.js';
import { registerConnectRoutes } from './http/connect.routes.js';
import { handleError } from './http/error-handler.js';
import { registerEventRoutes } from './http/events.routes.js';
import { registerFileRoutes } from './http/files.routes.js';
import { registerHealthRoutes } from './http/health.routes.js';
import { registerListingRoutes } from './http/listings.routes.js';
import { registerMediaRoutes } from './http/media.routes.js';
import { addNotFoundHandler } from './http/not-found.js';
import { DOCS_PATH, registerOpenApi } from './http/openapi.js';
import { registerOrderRoutes } from './http/orders.routes.js';
import { registerOverviewRoutes } from './http/overview.routes.js';
import { registerPasswordResetRoutes } from './http/password-reset.routes.js';
import { registerPlatformNotificationRoutes } from './http/platform-notifications.routes.js';
import { registerPlatformRoutes } from './http/platforms.routes.js';
import { registerProductRoutes } from './http/products.routes.js';
import { shareTheServiceLogger } from './http/request-logger.js';
import { addSecurityEvents } from './http/security-events.js';
import { addSecurityHeaders } from './http/security-headers.js';
import { registerSiteRoutes } from './http/sites.routes.js';
import { registerTokenRoutes } from './http/tokens.routes.js';
import { validatorCompiler } from './http/validation.js';
import { registerWebhookRoutes } from './http/webhooks.routes.js';
import { registerWorkspaceRoutes } from './http/workspaces.routes.js';
import { registerDashboard } from './web/dashboard.routes.js';

/**
 * Fastify's `trustProxy` for TRUST_PROXY. A hop count becomes a function of the hop: Fastify 5.12 trusts no hop at all
 * for a bare number, since a client reaching the server directly can still forge one (docs/decisions.md, "Client
 * addresses"). A list is copied, Fastify taking a mutable one.
 */
function trustProxyOption(trust: Config['trustProxy']): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return typeof trust === 'boolean' ? trust : [...trust];
}

/**
 * The simulators' instance at `info`, whose requests the app's own lines already cover, and any instance below `info`,
 * where Fastify's two lines of every request (incoming, completed) would be dropped anyway: not even their arguments are
 * built. A request that ended in an error is still logged.
 */
class ErrorsOnlyRequestLog extends LogController {
  override incomingRequest(): void {}
  override requestCompleted(...args: Parameters<LogController['requestCompleted']>): void {
    if (args[0]) super.requestCompleted(...args);
  }
}

/**
 * The sandbox's SQS, which this instance long-polls for Amazon's order notifications once its simulators are in use
 * (every 20 s when nothing happens): its requests are not logged line by line, or they would fill a quiet `npm
 * start`'s log. Errors are still logged by the simulators' instance.
 */
const QUIET_PATH = '/sandbox/amazon-seller/sqs/';

/** Every request's lines but those of the long polls above. */
class QuietPollsRequestLog extends LogController {
  override isLogDisabled(request: FastifyRequest): boolean {
    return request.url.startsWith(QUIET_PATH);
  }
}

/**
 * Fastify's own response serializers (fast-json-stringify), each generated on its route's first answer rather than at
 * start, as the validators are (http/validation.ts): generated code for every route's every status would otherwise sit
 * in each instance's memory, most of it never run.
 */
function serializersOnFirstUse(...factory: Parameters<ReturnType<typeof SerializerSelector>>) {
  const compile = SerializerSelector()(...factory);
  return (route: Parameters<typeof compile>[0]) => {
    let serialize: ((data: unknown) => string) | undefined;
    return (data: unknown) => {
      serialize ??= compile(route);
      return serialize(data);
    };
  };
}

/**
 * A Fastify instance with the service's options, validators and serializers, and its error, not-found and security
 * header handling: the app's, and the simulators' (mountSandboxOnFirstUse). `requestLogging` false leaves the lines of
 * each request to the app that handed it on.
 */
function createInstance(deps: Deps, options: { requestLogging: boolean; genReqId?: (raw: IncomingMessage) => string }): App {
  const { config } = deps;
  const requestLogs = deps.logger.isLevelEnabled('info');
  const limits = config.server;
  const app = Fastify({
    ...(requestLogs ? { loggerInstance: deps.logger as FastifyBaseLogger } : {}),
    bodyLimit: config.bodyLimitBytes,
    // Fastify gives each plugin 10 s to load, to catch one that never calls done. On a loaded machine the API
    // reference's plugin (@fastify/swagger-ui, which waits for its own routes) took longer than that, and the server did
    // not start at all; a minute still catches a plugin that hangs.
    pluginTimeout: 60_000,
    trustProxy: trustProxyOption(config.trustProxy),
    // Set deliberately (README, Configuration): Fastify leaves the request timeout off, so a body sent a byte at a time
    // would hold its connection forever. Node checks these every connectionsCheckingInterval (30 s by default): once a
    // second enforces them to within a second.
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionTimeout: limits.connectionTimeoutMs,
    http: { requestTimeout: limits.requestTimeoutMs, headersTimeout: limits.headersTimeoutMs, connectionsCheckingInterval: 1_000 },
    clientErrorHandler: createClientErrorHandler(deps.logger as FastifyBaseLogger),
    // Errors Fastify meets before routing (a path it cannot decode) get the seed's shape too.
    frameworkErrors: (error, request, reply) => handleError(error, request, reply),
    logController: requestLogs && options.requestLogging ? new QuietPollsRequestLog() : new ErrorsOnlyRequestLog(),
    ...(options.genReqId ? { genReqId: options.genReqId } : {}),
    schemaController: { compilersFactory: { buildSerializer: serializersOnFirstUse } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Below info Fastify has no logger, which spares every request its timing and end listeners (http/request-logger.ts).
  if (!requestLogs) shareTheServiceLogger(app, deps.logger);
  app.setValidatorCompiler(validatorCompiler);
  // The API takes JSON only: Fastify's built-in text/plain parser would let other bodies reach validation instead of a 415.
  app.removeContentTypeParser('text/plain');
  app.setErrorHandler(handleError);
  addNotFoundHandler(app);
  addSecurityHeaders(app, { api: API_PREFIX, docs: DOCS_PATH });
  return app;
}

export async function buildApp(deps: Deps): Promise<App> {
  const { config } = deps;
  const app = createInstance(deps, { requestLogging: true });
  await app.register(rateLimit, { global: false });
  await registerOpenApi(app, config.appUrl);
  addAuthentication(app, deps.tokens);
  addSecurityEvents(app, deps.security);

  await app.register(
    async (api: App) => {
      // Each route module gets the services it uses, and nothing else of the composition root.
      const { config: cfg, accounts, tokens, sites } = deps;
      // A notification queue that refused this instance is the operator's to fix as well (Amazon's order queue).
      const platformHealth = { problems: () => [...deps.platformHealth.problems(), ...deps.notificationQueues.problems()] };
      registerHealthRoutes(api, { database: deps.database, platformHealth });
      registerAuthRoutes(api, { accounts, tokens, config: cfg });
      registerPasswordResetRoutes(api, { passwordResets: deps.passwordResets, config: cfg });
      registerTokenRoutes(api, { tokens });
      registerWorkspaceRoutes(api, { accounts, workspaces: deps.workspaces });
      registerAccountRoutes(api, { accountSettings: deps.accountSettings, config: cfg });
      registerProductRoutes(api, { products: deps.products, catalogueCsv: deps.catalogueCsv, bulkEdit: deps.bulkEdit });
      registerFileRoutes(api, { files: deps.files });
      registerConnectRoutes(api, { connect: deps.connect });
      registerPlatformRoutes(api, { config: cfg });
      registerSiteRoutes(api, { sites });
      registerListingRoutes(api, { siteListings: deps.siteListings, listings: deps.listings, listingImport: deps.listingImport });
      registerOrderRoutes(api, { orders: deps.orders, siteListings: deps.siteListings });
      registerAdvertisingRoutes(api, { advertising: deps.advertising });
      registerAuditRoutes(api, { sites });
      registerWebhookRoutes(api, { webhooks: deps.webhooks });
      registerPlatformNotificationRoutes(api, { platformNotifications: deps.platformNotifications });
      registerOverviewRoutes(api, { overview: deps.overview });
      registerEventRoutes(api, { live: deps.live, tokens, heartbeatMs: deps.liveHeartbeatMs });
    },
    { prefix: API_PREFIX },
  );
  // The event streams never end by themselves, nor does a simulator's long poll before its wait is over: the server's
  // close would wait for them, so they are ended first.
  app.addHook('preClose', (done) => {
    deps.live.endAll();
    for (const listener of deps.sandbox.closeListeners) listener();
    done();
  });
  registerMediaRoutes(app, { media: deps.media });
  await registerDashboard(app, app.log);
  if (config.sandbox) mountSandboxOnFirstUse(app, deps);
  return app;
}

/**
 * The simulators under /sandbox, loaded on their first request rather than at start: a server with real platforms
 * never holds their modules, and one in sandbox mode only once something calls them (BENCHMARKS.md has what that
 * saves). Fastify takes no routes once it listens, so they live in an instance of their own (createInstance's options
 * and handlers, built then), and here /sandbox/* is one route whose first hook hands the raw request and response on
 * to it, before anything reads the body. This app logs each request's lines under its id; the simulators'
 * instance logs its errors under the same id.
 */
function mountSandboxOnFirstUse(app: App, deps: Deps): void {
  const forwardedIds = new WeakMap<IncomingMessage, string>();
  let sandbox: Promise<App> | null = null;
  const build = async () => {
    const instance = createInstance(deps, { requestLogging: false, genReqId: (raw) => forwardedIds.get(raw) ?? 'sandbox' });
    try {
      await (await import('./sandbox/plugin.js')).registerSandbox(instance, deps.sandbox);
      await instance.ready();
      deps.sandbox.markBuilt();
      return instance;
    } catch (error) {
      await instance.close().catch(() => undefined);
      throw error;
    }
  };
  app.addHook('onClose', async () => {
    const built = await sandbox?.catch(() => null);
    await built?.close();
  });
  app.all('/sandbox/*', {
    schema: { hide: true },
    onRequest: async (request, reply) => {
      // A build that failed is tried again on the next request; this one is answered 500 by the error handler.
      sandbox ??= build().catch((error) => {
        sandbox = null;
        throw error;
      });
      const instance = await sandbox;
      forwardedIds.set(request.raw, request.id);
      reply.hijack();
      instance.routing(request.raw, reply.raw);
    },
    handler: async () => {
      throw new Error("unreachable: the simulators' instance answers /sandbox/*");
    },
  });
}
