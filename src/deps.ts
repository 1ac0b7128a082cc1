/** The composition root: every service built once from config, with the clock, database and logger injectable for tests. */
import type { Logger } from 'pino';
import { createAccountsService, type AccountsService } from './core/auth/accounts.service.js';
import { createAuthCache, parseAuthChange } from './core/auth/auth-cache.js';
import { systemClock, type Clock } from './lib/clock.js';
import { createJwtCodec } from './core/auth/jwt.js';
import { createKeyring } from './core/auth/keys.js';
import { DEFAULT_SCRYPT_PARAMS, hashPassword, verifyPassword, type ScryptParams } from './core/auth/passwords.js';
import { createConnectService, type Adapters, type ConnectService } from './core/connect/connect.service.js';
import { createCredentialsCipher, type CredentialsCipher } from './lib/credentials-cipher.js';
import { createOAuthStates } from './core/connect/oauth-states.js';
import { createProductsService, type ProductsService } from './core/catalog/products.service.js';
import { DEFAULT_REFRESH_POLICY, type RefreshPolicy } from './core/sites/refresh-policy.js';
import { createRefreshWorker, type RefreshWorker } from './core/sites/token-refresh.js';
import { createSitesService, type SitesService } from './core/sites/sites.service.js';
import { createWebhookSender } from './core/webhooks/delivery.js';
import { createWebhooksService, type WebhooksService } from './core/webhooks/webhooks.service.js';
import { createUsageRecorder, type UsageRecorder } from './core/auth/token-usage.js';
import { createTokensService, type TokensService } from './core/auth/tokens.service.js';
import type { Database } from './db/client.js';
import { writeLastUsed } from './db/tokens.repo.js';
import { createPlatformHttp, type Fetch } from './platforms/http.js';
import { createAdapters, isAllowedTikTokAuthorizationUrl } from './platforms/registry.js';
import type { SandboxContext } from './sandbox/context.js';
import { createSandboxFaults } from './sandbox/faults.js';
import { createSandboxTokens } from './sandbox/tokens.js';
import { describeError } from './http/error-handler.js';
import { createLogger } from './logger.js';
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
  readonly accounts: AccountsService;
  readonly products: ProductsService;
  readonly connect: ConnectService;
  readonly sites: SitesService;
  /** Renews platform tokens before they expire; main.ts starts it unless REFRESH_WORKER=false. */
  readonly refresher: RefreshWorker;
  readonly refreshPolicy: RefreshPolicy;
  readonly webhooks: WebhooksService;
  /** Sends the webhook outbox; main.ts starts it unless WEBHOOK_WORKER=false. */
  readonly webhookSender: ReturnType<typeof createWebhookSender>;
  readonly adapters: Adapters;
  readonly cipher: CredentialsCipher;
  /** The simulators' shared state (faults, call counts); served only when config.sandbox is on. */
  readonly sandbox: SandboxContext;
  /** Flushes pending writes; the database itself is closed by whoever opened it. */
  close(): Promise<void>;
}

export interface DepsOptions {
  database: Database;
  clock?: Clock;
  logger?: Logger;
  scryptParams?: ScryptParams;
  /** How often last-used times are written (default 10 s). */
  usageFlushIntervalMs?: number;
  /** What platform calls go through (default: the global fetch). */
  fetch?: Fetch;
  /** Replaces the adapters built from config, for tests. */
  adapters?: Adapters;
}

/** The channel the database's triggers notify (migration 0005). */
const AUTH_CHANNEL = 'storelink_auth';
// About 1 KB each: a bounded few megabytes however many tokens exist.
const AUTH_CACHE_ENTRIES = 10_000;

export function createDeps(config: ResolvedConfig, options: DepsOptions): Deps {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config);
  const db = options.database.db;
  const scrypt = options.scryptParams ?? DEFAULT_SCRYPT_PARAMS;
  const jwt = createJwtCodec(createKeyring(config.appSecret, config.previousAppSecrets), clock);
  const usage = createUsageRecorder({
    write: (entries) => writeLastUsed(db, entries),
    intervalMs: options.usageFlushIntervalMs ?? 10_000,
    onError: (error) => logger.warn({ err: describeError(error) }, 'could not write token last-used times'),
  });
  const authCache = createAuthCache({ maxEntries: AUTH_CACHE_ENTRIES });
  const tokens = createTokensService({ db, jwt, clock, usage, cache: authCache });
  let stopWatching: (() => Promise<void>) | null = null;
  let listenerLost = false;
  const watchAuthChanges = async () => {
    stopWatching ??= await options.database.subscribe(AUTH_CHANNEL, {
      notify: (payload) => {
        const change = parseAuthChange(payload);
        if (change) authCache.invalidate(change);
        else authCache.activate(); // not ours to read: start over rather than keep anything it may have changed
      },
      up: () => {
        if (listenerLost) logger.info('database change notifications are back; caching authenticated bearers again');
        listenerLost = false;
        authCache.activate();
      },
      down: () => {
        authCache.deactivate();
        // Said once per outage, not at every reconnection attempt.
        if (!listenerLost) logger.warn('lost the database change notifications; authenticating every request against the database until they are back');
        listenerLost = true;
      },
    });
  };
  const accounts = createAccountsService({ db, tokens, passwords: { hash: (p) => hashPassword(p, scrypt), verify: verifyPassword } });
  const cipher = createCredentialsCipher(config.encryptionKey);
  const fetch = options.fetch ?? globalThis.fetch;
  const http = createPlatformHttp({ fetch, timeoutMs: config.outboundTimeoutMs });
  const apiUrl = `${config.appUrl}/api/v1`;
  const adapters = options.adapters ?? createAdapters(config, { http, clock });
  const refreshPolicy = { ...DEFAULT_REFRESH_POLICY, marginMs: config.refresh.marginMs };
  const connect = createConnectService({
    db, clock, cipher, appUrl: config.appUrl, apiUrl, adapters, refreshPolicy,
    states: createOAuthStates({ db, jwt, clock, cipher }),
    isAllowedTikTokUrl: (url) => isAllowedTikTokAuthorizationUrl(config, url),
    onInternalError: (error) => logger.error({ err: describeError(error) }, 'connecting a platform failed'),
  });
  const sandbox: SandboxContext = {
    tokens: createSandboxTokens(config.appSecret), faults: createSandboxFaults(), clock, calls: new Map(),
    accessTokenTtlSeconds: config.sandboxAccessTokenTtlSeconds, revokedGrants: new Set(),
    callbackUrl: (track) => `${apiUrl}/oauth/callback/${track}`,
  };
  const refresher = createRefreshWorker({
    db, clock, cipher, adapters,
    policy: refreshPolicy,
    // Three platform deadlines: a call still in flight never loses its row to another worker.
    leaseMs: 3 * config.outboundTimeoutMs,
    onError: (error, context) => logger.error({ err: describeError(error), siteId: context.siteId }, 'token refresh failed'),
  });
  const webhookSender = createWebhookSender({ db, clock, cipher, fetch, timeoutMs: config.outboundTimeoutMs });
  return {
    config, logger, clock, database: options.database, usage, tokens, watchAuthChanges, accounts, connect, sandbox, refresher, refreshPolicy, adapters, cipher,
    webhooks: createWebhooksService({ db, clock, cipher, allowPrivateTargets: config.webhooks.allowPrivateTargets }),
    webhookSender,
    products: createProductsService({ db }),
    sites: createSitesService({ db, clock }),
    close: async () => {
      await stopWatching?.();
      authCache.deactivate();
      await refresher.stop();
      await webhookSender.stop();
      await usage.close();
    },
  };
}
