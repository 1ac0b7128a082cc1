/** The composition root: every service built once from config, with the clock, database and logger injectable for tests. */
import type { Logger } from 'pino';
import { type AdvertisingService, createAdvertisingService } from './core/advertising/advertising.service.js';
import { type AdvertisingMetrics, createAdvertisingMetrics } from './core/advertising/advertising-metrics.js';
import { createAdvertisingWork } from './core/advertising/advertising-work.js';
import { type AccountSettingsService, createAccountSettingsService } from './core/auth/account-settings.service.js';
import { type AccountsService, createAccountsService } from './core/auth/accounts.service.js';
import { createAuthCache } from './core/auth/auth-cache.js';
import { AUTH_CHANNEL, authChangeHandlers } from './core/auth/auth-changes.js';
import { createJwtCodec } from './core/auth/jwt.js';
import { createKeyring } from './core/auth/keys.js';
import { createPasswordResetService, type PasswordResetService } from './core/auth/password-reset.service.js';
import { DEFAULT_SCRYPT_PARAMS, hashPassword, type ScryptParams, verifyPassword } from './core/auth/passwords.js';
import { createSecurityEvents, type SecurityEvents } from './core/auth/security-events.js';
import { createUsageRecorder, type UsageRecorder } from './core/auth/token-usage.js';
import { createTokensService, type TokensService } from './core/auth/tokens.service.js';
import { type CatalogueCsvService, createCatalogueCsvService } from './core/catalog/catalogue-csv.service.js';
import { createFilesService, type FilesService } from './core/catalog/files.js';
import { createProductsService, type ProductsService } from './core/catalog/products.service.js';
import { type ConnectService, createConnectService } from './core/connect/connect.service.js';
import { createOAuthStates } from './core/connect/oauth-states.js';
import { type BulkEdit, createBulkEdit } from './core/listings/bulk-edit.js';
import { storedImageBytes } from './core/listings/images.js';
import { createListingChanges, type ListingChangesWatch } from './core/listings/listing-changes.js';
import { createListingImport, type ListingImport } from './core/listings/listing-import.js';
import { createListingWatch, type ListingWatch } from './core/listings/listing-watch.js';
import { createListingWork } from './core/listings/listing-work.js';
import { createListingsService, type ListingsService } from './core/listings/listings.service.js';
import { createSiteListingsService, type SiteListingsService } from './core/listings/site-listings.service.js';
import { createLiveHub, type LiveHub } from './core/live/live-hub.js';
import { createMailWork, type MailWork } from './core/mail/mail-work.js';
import { createOrderIntake, type OrderIntake } from './core/orders/order-intake.js';
import { createOrderReads, type OrderReads } from './core/orders/order-reads.js';
import { createOrdersService, type OrdersService } from './core/orders/orders.service.js';
import { createOverviewService, type OverviewService } from './core/overview/overview.service.js';
import { createPacers } from './core/platform-work/pacing.js';
import { createPlatformJobRunner } from './core/platform-work/runner.js';
import { createNotificationQueueReaders, type NotificationQueueReaders } from './core/sites/notification-queues.js';
import { createPlatformHealth, type PlatformHealth } from './core/sites/platform-health.js';
import { createPlatformNotifications, type PlatformNotifications } from './core/sites/platform-notifications.js';
import { DEFAULT_REFRESH_POLICY, type RefreshPolicy } from './core/sites/refresh-policy.js';
import { createSitesService, type SitesService } from './core/sites/sites.service.js';
import { createTokenRefresh, type TokenRefresh } from './core/sites/token-refresh.js';
import { createDeliveryQueue } from './core/webhooks/delivery.js';
import { createOutbox } from './core/webhooks/outbox.js';
import { createWebhooksService, type WebhooksService } from './core/webhooks/webhooks.service.js';
import { createWorkspacesService, type WorkspacesService } from './core/workspaces/workspaces.service.js';
import type { Database } from './db/client.js';
import { findMedia, type MediaRow } from './db/media.repo.js';
import { clearSandboxState, readSandboxState, writeSandboxState } from './db/sandbox-state.repo.js';
import { writeLastUsed } from './db/tokens.repo.js';
import { callbackPath } from './domain/index.js';
import { type Clock, systemClock } from './lib/clock.js';
import { type CredentialsCipher, createCredentialsCipher } from './lib/credentials-cipher.js';
import { createJobs, type Jobs, type QueueDefinition } from './lib/jobs.js';
import { createMailer } from './lib/mailer.js';
import type { Fetch } from './lib/outbound-http.js';
import { type ResolveHost, systemResolveHost } from './lib/public-address.js';
import { createLogger, describeError } from './logger.js';
import { createPlatformHttp } from './platforms/http.js';
import {
  type Adapters,
  createAdapters,
  createAdvertisingAdapter,
  createListingsAdapters,
  createNotificationQueues,
  createNotificationsAdapters,
  createOrdersAdapters,
  ordersQueueIsOwnSimulator,
} from './platforms/registry.js';
import { DEFAULT_ETSY_LIMITS, DEFAULT_TIKTOK_LIMITS, SANDBOX_CLIENTS, type SandboxContext } from './sandbox/context.js';
import { createSandboxFaults } from './sandbox/faults.js';
import { createSandboxTokens } from './sandbox/tokens.js';
import type { ResolvedConfig } from './secrets.js';

export interface Deps {
  readonly config: ResolvedConfig;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly database: Database;
  readonly usage: UsageRecorder;
  readonly tokens: TokensService;
  /**
   * Listens for the changes that refuse a cached bearer (revocations, memberships); until it is called the
   * authentication cache stays unused. main.ts and the test app call it.
   */
  watchAuthChanges(): Promise<void>;
  /** The event streams open on this instance and the database notifications they follow (GET /events). */
  readonly live: LiveHub;
  /** How often an event stream sends a heartbeat and checks its caller's access again. */
  readonly liveHeartbeatMs: number;
  /** The workspace at a glance (GET /overview). */
  readonly overview: OverviewService;
  readonly accounts: AccountsService;
  /** A user's own name and password, and the operator's password reset. */
  readonly accountSettings: AccountSettingsService;
  /** The password reset by a mailed link (docs/e-mail.md). */
  readonly passwordResets: PasswordResetService;
  /** Mail (SMTP_URL): invitations, reset links and alerts, each a job of the `mail` queue. */
  readonly mail: MailWork;
  /** Failed logins and refused requests, for the operator's log and the workspaces' audit logs. */
  readonly security: SecurityEvents;
  readonly products: ProductsService;
  /** Files a listing names (a certificate): POST /files. */
  readonly files: FilesService;
  readonly siteListings: SiteListingsService;
  readonly listings: ListingsService;
  readonly bulkEdit: BulkEdit;
  readonly listingImport: ListingImport;
  readonly listingWatch: ListingWatch;
  /** The sites' recently changed listings, read every few seconds (listing-changes.ts). */
  readonly listingChanges: ListingChangesWatch;
  readonly advertising: AdvertisingService;
  readonly advertisingMetrics: AdvertisingMetrics;
  readonly platformNotifications: PlatformNotifications;
  /** The queues platforms send notifications to (Amazon's orders), read while the listings workers run. */
  readonly notificationQueues: NotificationQueueReaders;
  /** Orders from every site (DESIGN §14): read by the API, and the reads' queues. */
  readonly orders: OrdersService;
  readonly orderReads: OrderReads;
  /** Takes one platform view of an order into Storelink (the reads' one way in; tests drive it directly too). */
  readonly orderIntake: OrderIntake;
  readonly catalogueCsv: CatalogueCsvService;
  /** Uploaded image bytes by hash, for GET /media/. */
  readonly media: { find: (sha256: string) => Promise<MediaRow | null> };
  readonly connect: ConnectService;
  readonly sites: SitesService;
  readonly workspaces: WorkspacesService;
  /** The job engine: started by start(), worked by startWorkers(). */
  readonly jobs: Jobs;
  /** Platform tokens: renewals on the job engine, and `accessTokenFor` for any caller that needs a valid one. */
  readonly tokenRefresh: TokenRefresh;
  readonly refreshPolicy: RefreshPolicy;
  /** Platforms that refused this instance's app configuration, for GET /health. */
  readonly platformHealth: PlatformHealth;
  readonly webhooks: WebhooksService;
  readonly adapters: Adapters;
  readonly cipher: CredentialsCipher;
  /** The simulators' shared state (faults, call counts); served only when config.sandbox is on. */
  readonly sandbox: SandboxContext;
  /** Forgets the simulators' saved state (`storelink sandbox:reset`); answers how many saved parts there were. */
  resetSandboxState(): Promise<number>;
  /** Starts the job engine (installing or migrating its schema) so jobs can be sent; main.ts and the test app call it. */
  start(): Promise<void>;
  /**
   * Starts this instance's workers, and their queues' schedules: token renewals unless REFRESH_WORKER=false, webhook
   * deliveries unless WEBHOOK_WORKER=false, listings and advertising unless LISTING_WORKER=false.
   */
  startWorkers(): Promise<void>;
  /**
   * Stops this instance's workers at once: webhook deliveries in flight are abandoned and queued again, platform calls
   * get until a second before `shutdownMs` runs out, and jobs still running then are left to be retried. Called at the
   * signal, beside the HTTP server's close; close() calls it too.
   */
  stopWork(): Promise<void>;
  /** stopWork(), then flushes pending writes; the database is closed by whoever opened it. */
  close(): Promise<void>;
}

export interface DepsOptions {
  database: Database;
  clock?: Clock;
  logger?: Logger;
  scryptParams?: ScryptParams;
  /** How often last-used times are written (default 10 s). */
  usageFlushIntervalMs?: number;
  /** What platform calls go through (default: the global fetch); webhook deliveries connect to checked addresses instead. */
  fetch?: Fetch;
  /** How webhook hosts are resolved, at creation and for each delivery (default: the system's resolver). */
  resolveHost?: ResolveHost;
  /** Replaces the adapters built from config, for tests. */
  adapters?: Adapters;
  /** How long stopWork() waits for jobs in flight (default: a second less than SHUTDOWN_TIMEOUT_MS, 8 s). */
  shutdownMs?: number;
  /** How often an event stream sends a heartbeat and checks its caller's access again (default 15 s). */
  liveHeartbeatMs?: number;
}

/** Each queue's `worker` switch: REFRESH_WORKER, WEBHOOK_WORKER and LISTING_WORKER (the listings and advertising). */
const WORKER_SWITCHES: Readonly<Record<string, (config: ResolvedConfig) => boolean>> = {
  refresh: (config) => config.refresh.worker,
  webhooks: (config) => config.webhooks.worker,
  listings: (config) => config.listings.worker,
};

// About 1 KB each: a bounded few megabytes however many tokens exist.
const AUTH_CACHE_ENTRIES = 10_000;

export function createDeps(config: ResolvedConfig, options: DepsOptions): Deps {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config);
  const { database } = options;
  const db = database.db;
  // A second of SHUTDOWN_TIMEOUT_MS is left for closing the database and exiting.
  const shutdownMs = options.shutdownMs ?? config.shutdownTimeoutMs - 1_000;
  const scrypt = options.scryptParams ?? DEFAULT_SCRYPT_PARAMS;
  const jwt = createJwtCodec(createKeyring(config.appSecret, config.previousAppSecrets), clock);
  const usage = createUsageRecorder({
    write: (entries) => writeLastUsed(db, entries),
    intervalMs: options.usageFlushIntervalMs ?? 10_000,
    onError: (error) => logger.warn({ err: describeError(error) }, 'could not write token last-used times'),
  });
  const authCache = createAuthCache({ maxEntries: AUTH_CACHE_ENTRIES });
  const tokens = createTokensService({ db, jwt, clock, usage, cache: authCache });
  const security = createSecurityEvents({ db, clock, logger });
  const passwords = { hash: (password: string) => hashPassword(password, scrypt), verify: verifyPassword };
  let stopWatching: (() => Promise<void>) | null = null;
  const watchAuthChanges = async () => {
    stopWatching ??= await database.subscribe(AUTH_CHANNEL, authChangeHandlers(authCache, logger));
  };

  const live = createLiveHub({
    database,
    onLost: () => logger.warn('lost the database change notifications; live event streams will be told to read everything again'),
    onBack: () => logger.info('database change notifications are back; live event streams told to read everything again'),
  });

  const cipher = createCredentialsCipher(config.encryptionKey);
  const fetch = options.fetch ?? globalThis.fetch;
  const jobs = createJobs({
    connection: database.jobsConnection,
    // PGlite's data directory admits one process: what it finds active at start, a process that died left.
    soleProcess: database.kind === 'pglite',
    onError: (error) => logger.error({ err: describeError(error) }, 'the job engine reported an error'),
  });
  // Platform calls still in flight as the engine's wait for jobs ends are cut then, leaving time to record a retry.
  const http = createPlatformHttp({ fetch, timeoutMs: config.outboundTimeoutMs, stop: jobs.stopDeadline });
  const apiUrl = `${config.appUrl}/api/v1`;
  const adapters = options.adapters ?? createAdapters(config, { http, clock }, SANDBOX_CLIENTS);
  const refreshPolicy = { ...DEFAULT_REFRESH_POLICY, marginMs: config.refresh.marginMs };
  let passwordResets: PasswordResetService | undefined;
  const mailer = createMailer({ ...config.mail, timeoutMs: config.outboundTimeoutMs });
  const mail = createMailWork({
    db,
    clock,
    jobs,
    mailer,
    cipher,
    logger,
    appUrl: config.appUrl,
    timeoutMs: config.outboundTimeoutMs,
    issueResetLink: (userId) => passwordResets!.issueLink(userId),
  });
  const outbox = createOutbox(jobs, mail.alerts);
  const health = createPlatformHealth({ clock, log: logger });
  const tokenRefresh = createTokenRefresh({
    health,
    db,
    clock,
    cipher,
    adapters,
    jobs,
    outbox,
    policy: refreshPolicy,
    timeoutMs: config.outboundTimeoutMs,
    pollIntervalSeconds: config.refresh.pollMs / 1000,
    onError: (error, context) => logger.error({ err: describeError(error), siteId: context.siteId }, 'token refresh failed'),
  });
  const resolveHost = options.resolveHost ?? systemResolveHost;
  const { allowPrivateTargets } = config.webhooks;
  const delivery = createDeliveryQueue({
    db,
    clock,
    cipher,
    outbox,
    stopping: jobs.stopping,
    resolveHost,
    allowPrivateTargets,
    timeoutMs: config.outboundTimeoutMs,
  });
  // Every platform job runs on it: the site's guard, its token, the failure's class and the one retry policy.
  const runner = createPlatformJobRunner({ db, clock, refresh: tokenRefresh, health });

  // Listings: the platforms' listings capability, and every platform write of a listing as a job (DESIGN §10, §11).
  const listingsAdapters = createListingsAdapters(config, { http, clock }, SANDBOX_CLIENTS);
  const imageBytes = storedImageBytes(db);
  const pacerOf = createPacers(clock);
  // Advertising (DESIGN §13): Amazon Ads' Sponsored Products for listings, its writes and its reports as jobs.
  const advertisingAdapter = createAdvertisingAdapter(config, { http, clock }, SANDBOX_CLIENTS);
  const advertisingMetrics = createAdvertisingMetrics({
    db,
    clock,
    jobs,
    adapter: advertisingAdapter,
    runner,
    timeoutMs: config.outboundTimeoutMs,
  });
  const advertisingWork = createAdvertisingWork({
    db,
    clock,
    jobs,
    outbox,
    adapter: advertisingAdapter,
    runner,
    pacerOf,
    firstReport: advertisingMetrics.firstReport,
    timeoutMs: config.outboundTimeoutMs,
    pollIntervalSeconds: 1,
  });
  const listingWork = createListingWork({
    followers: advertisingWork,
    pacerOf,
    db,
    clock,
    jobs,
    outbox,
    adapters: listingsAdapters,
    runner,
    imageBytes,
    timeoutMs: config.outboundTimeoutMs,
    pollIntervalSeconds: 1,
  });
  const ordersAdapters = createOrdersAdapters(config, { http, clock }, SANDBOX_CLIENTS);
  const orderIntake = createOrderIntake({ db, clock, outbox, listings: listingWork });
  const orderReads = createOrderReads({
    db,
    clock,
    jobs,
    adapters: ordersAdapters,
    runner,
    intake: orderIntake,
    pacerOf,
    timeoutMs: config.outboundTimeoutMs,
    pollIntervalSeconds: 1,
  });
  const siteListings = createSiteListingsService({ db, clock, adapters: listingsAdapters, refresh: tokenRefresh, health });
  const products = createProductsService({ db, clock, outbox, appUrl: config.appUrl, listings: listingWork });
  const listingImport = createListingImport({
    db,
    clock,
    jobs,
    adapters: listingsAdapters,
    runner,
    products,
    pacerOf,
    imageBytes,
    timeoutMs: config.outboundTimeoutMs,
    pollIntervalSeconds: 1,
  });
  const listingWatch = createListingWatch({
    db,
    clock,
    jobs,
    outbox,
    adapters: listingsAdapters,
    runner,
    pacerOf,
    imageBytes,
    work: listingWork,
    followers: advertisingWork,
    timeoutMs: config.outboundTimeoutMs,
    pollIntervalSeconds: 1,
  });
  const listingChanges = createListingChanges({
    db,
    clock,
    jobs,
    adapters: listingsAdapters,
    runner,
    pacerOf,
    pollIntervalSeconds: 1,
  });
  // Each job module declares its queues, with their schedule and the switch that works them.
  for (const queue of [
    ...tokenRefresh.queues,
    delivery,
    listingWork.queue,
    listingWork.feedQueue,
    listingImport.queue,
    ...listingWatch.queues,
    ...listingChanges.queues,
    advertisingWork.queue,
    ...advertisingMetrics.queues,
    ...orderReads.queues,
    mail.queue,
  ])
    jobs.define(queue as QueueDefinition<object>);

  const connect = createConnectService({
    listings: listingWork,
    orders: orderReads,
    advertising: advertisingWork,
    health,
    db,
    clock,
    cipher,
    appUrl: config.appUrl,
    apiUrl,
    adapters,
    refreshPolicy,
    refresh: tokenRefresh,
    outbox,
    states: createOAuthStates({ db, jwt, clock, cipher }),
    onInternalError: (error) => logger.error({ err: describeError(error) }, 'connecting a platform failed'),
  });
  const platformNotifications = createPlatformNotifications({
    db,
    clock,
    refresh: tokenRefresh,
    listings: listingWatch,
    orders: orderReads,
    adapters: createNotificationsAdapters(config, SANDBOX_CLIENTS, clock),
  });
  // A long poll holds its call up to 20 s: the queues' calls get that on top of the usual deadline.
  const queueHttp = createPlatformHttp({ fetch, timeoutMs: config.outboundTimeoutMs + 20_000 });
  const notificationQueues = createNotificationQueueReaders({
    clock,
    queues: createNotificationQueues(config, { http: queueHttp, clock }, SANDBOX_CLIENTS),
    notifications: platformNotifications,
    onError: (error, platform) => logger.warn({ err: describeError(error), platform }, 'reading a notification queue failed'),
  });
  const accountSettings = createAccountSettingsService({ db, passwords, clock, cache: authCache, security });
  passwordResets = createPasswordResetService({ db, clock, appUrl: config.appUrl, accountSettings, mailResetLink: mail.passwordReset });
  // The service the simulators served here work for: this one, unless SANDBOX_APP_URL names another.
  const servedApiUrl = `${config.sandboxAppUrl}/api/v1`;
  let markSimulatorsBuilt!: () => void;
  const simulatorsBuilt = new Promise<void>((resolve) => (markSimulatorsBuilt = resolve));
  const sandbox: SandboxContext = {
    tokens: createSandboxTokens(config.appSecret),
    faults: createSandboxFaults(),
    clock,
    calls: new Map(),
    accessTokenTtlSeconds: config.sandboxAccessTokenTtlSeconds,
    revokedGrants: new Set(),
    etsyLimits: { ...DEFAULT_ETSY_LIMITS },
    tiktokLimits: { ...DEFAULT_TIKTOK_LIMITS },
    reviewSeconds: config.sandboxReviewSeconds,
    stateParts: new Map(),
    stateStore: config.sandboxPersist
      ? {
          read: () => readSandboxState(db),
          write: (part, state) => writeSandboxState(db, part, state, clock.now()),
        }
      : null,
    callbackUrl: (track) => `${servedApiUrl}${callbackPath(track)}`,
    sandboxUrl: `${config.appUrl}/sandbox`,
    notificationUrl: (track) => `${servedApiUrl}/platform-notifications/${track}`,
    lostNotifications: new Set(),
    revokeListeners: [],
    closeListeners: [],
    built: simulatorsBuilt,
    markBuilt: markSimulatorsBuilt,
  };
  // The queues' notifications are order work, which the listings workers do. The simulators' own queue is read once
  // they are built: until then it is empty, and reading it would build them (ordersQueueIsOwnSimulator).
  let queuesWanted = false;
  const startQueues = () => {
    queuesWanted = config.listings.worker;
    if (!queuesWanted) return;
    if (!ordersQueueIsOwnSimulator(config)) return notificationQueues.start();
    void sandbox.built.then(() => {
      if (queuesWanted) notificationQueues.start();
    });
  };
  const stopQueues = () => {
    queuesWanted = false;
    return notificationQueues.stop();
  };

  return {
    config,
    logger,
    clock,
    database,
    usage,
    tokens,
    watchAuthChanges,
    live,
    liveHeartbeatMs: options.liveHeartbeatMs ?? 15_000,
    overview: createOverviewService({ db }),
    accounts: createAccountsService({ db, tokens, security, passwords }),
    accountSettings,
    passwordResets,
    mail,
    security,
    media: { find: (sha256) => findMedia(db, sha256) },
    products,
    files: createFilesService({ db, clock, appUrl: config.appUrl }),
    siteListings,
    listingImport,
    listingWatch,
    listingChanges,
    platformNotifications,
    advertising: createAdvertisingService({ db, clock, adapter: advertisingAdapter, work: advertisingWork }),
    advertisingMetrics,
    listings: createListingsService({ db, clock, outbox, siteListings, work: listingWork, imageBytes, products }),
    bulkEdit: createBulkEdit({ db, products, imageBytes }),
    orders: createOrdersService({ db, clock, reads: orderReads, adapters: ordersAdapters }),
    orderReads,
    orderIntake,
    catalogueCsv: createCatalogueCsvService({ db, clock, outbox, listings: listingWork }),
    connect,
    sites: createSitesService({ db, clock, outbox, adapters }),
    workspaces: createWorkspacesService({ db, clock, appUrl: config.appUrl, cache: authCache, mailInvitation: mail.invitation }),
    jobs,
    tokenRefresh,
    refreshPolicy,
    platformHealth: health,
    webhooks: createWebhooksService({ db, clock, cipher, outbox, allowPrivateTargets, resolveHost, timeoutMs: config.outboundTimeoutMs }),
    adapters,
    cipher,
    sandbox,
    resetSandboxState: () => clearSandboxState(db),
    start: () => jobs.start(),
    notificationQueues,
    startWorkers: async () => {
      await jobs.startWorkers((worker) => WORKER_SWITCHES[worker]?.(config) ?? false);
      startQueues();
    },
    stopWork: async () => {
      await Promise.all([jobs.stop(shutdownMs), stopQueues()]);
    },
    close: async () => {
      await live.close();
      await stopWatching?.();
      authCache.deactivate();
      await Promise.all([jobs.stop(shutdownMs), stopQueues()]);
      await usage.close();
      mailer.close();
    },
  };
}
