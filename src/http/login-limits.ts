/**
 * The per-account login limit (DESIGN §3, login "Rate limited"; docs/decisions.md, "Abuse limits"), one bucket per
 * account shared by every route that checks an account's password or tells whether it exists: login, sign-up and the
 * password change. None of them can then try or probe an account faster than login alone allows, and each spends the
 * same attempts.
 */
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import type { App } from './access.js';

type Limiter = ReturnType<App['createRateLimit']>;

export const LIMIT_WINDOW_MS = 60_000;

/** Counts the request against `limit`; over it, 429 with Retry-After. */
export async function enforce(limit: Limiter, request: FastifyRequest): Promise<void> {
  const result = await limit(request);
  if (!result.isAllowed && result.isExceeded)
    throw new AppError('rate_limited', { headers: { 'retry-after': String(result.ttlInSeconds) } });
}

/** Counts an attempt on the account `key` names (the e-mail as the account lookup folds it); over the limit, 429. */
export type AccountLimit = (request: FastifyRequest, key: string) => Promise<void>;

// Each createRateLimit has a store of its own: the one limiter is kept per server, whichever route file asks for it.
const limits = new WeakMap<object, AccountLimit>();

/** The server's per-account limiter, LOGIN_RATE_LIMIT_PER_EMAIL attempts a minute, made on first use. */
export function accountLimitOf(app: App, config: Pick<Config, 'loginRateLimit'>): AccountLimit {
  const existing = limits.get(app.server);
  if (existing) return existing;
  const keys = new WeakMap<FastifyRequest, string>();
  const limiter = app.createRateLimit({
    max: config.loginRateLimit.perEmail,
    timeWindow: LIMIT_WINDOW_MS,
    keyGenerator: (request) => `login:email:${keys.get(request) ?? ''}`,
  });
  const limit: AccountLimit = (request, key) => {
    keys.set(request, key);
    return enforce(limiter, request);
  };
  limits.set(app.server, limit);
  return limit;
}
