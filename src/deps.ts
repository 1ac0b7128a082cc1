/** The composition root: every service built once from config, with the clock, database and logger injectable for tests. */
import type { Logger } from 'pino';
import { createAccountsService, type AccountsService } from './core/accounts.service.js';
import { systemClock, type Clock } from './core/clock.js';
import { createJwtCodec } from './core/jwt.js';
import { createKeyring } from './core/keys.js';
import { DEFAULT_SCRYPT_PARAMS, hashPassword, verifyPassword, type ScryptParams } from './core/passwords.js';
import { createProductsService, type ProductsService } from './core/products.service.js';
import { createUsageRecorder, type UsageRecorder } from './core/token-usage.js';
import { createTokensService, type TokensService } from './core/tokens.service.js';
import type { Database } from './db/client.js';
import { writeLastUsed } from './db/tokens.repo.js';
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
  readonly accounts: AccountsService;
  readonly products: ProductsService;
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
}

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
  const tokens = createTokensService({ db, jwt, clock, usage });
  const accounts = createAccountsService({ db, tokens, passwords: { hash: (p) => hashPassword(p, scrypt), verify: verifyPassword } });
  return {
    config, logger, clock, database: options.database, usage, tokens, accounts,
    products: createProductsService({ db }),
    close: () => usage.close(),
  };
}
