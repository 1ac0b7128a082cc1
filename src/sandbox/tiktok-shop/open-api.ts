/**
 * What every TikTok Open API call of the simulator shares, kept in one place so the connect flow (simulator.ts) and
 * the product API (product-api.ts) check requests and word answers alike: the `{code, message, request_id, data}`
 * envelope, the access token's inspection, the query string as signed, and the documented timestamp window
 * (platforms.md §2.5–2.7).
 */
import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { Clock } from '../../lib/clock.js';
import type { SandboxTokens } from '../tokens.js';
import { ERRORS, type TikTokError } from './errors.js';
import { MARKETS, type Market } from './shops.js';

/** Every token the simulator issues starts so, as TikTok's do. */
export const TOKEN_PREFIX = 'TTP_';
const TIMESTAMP_PAST_S = 5 * 60;
const TIMESTAMP_FUTURE_S = 30;

/** What an authorization carries from the consent page to every token issued for it. */
export interface Grant {
  account: number;
  /** How many shops the seller authorized (tokens from before the choice existed carry none: one). */
  shops: number;
  /** The seller's market (the consent page's choice): where its first shop is, or its one shop for an EU local seller. */
  market: Market;
  /** The scopes the seller refused at consent (their calls answer 105005); tokens without the choice carry none. */
  refused: readonly string[];
}

/** Tokens issued before the consent page offered a market carry none: their seller was in the UK, as every one was then. */
const marketOf = (value: unknown): Market => MARKETS.find((market) => market === value) ?? 'GB';

/** The grant a token's claims name. */
export const grantOf = (claims: Record<string, unknown>): Grant => ({
  account: Number(claims.a),
  shops: Number(claims.s ?? 1),
  market: marketOf(claims.m),
  refused: Array.isArray(claims.r) ? claims.r.filter((scope): scope is string => typeof scope === 'string') : [],
});

/** A grant's claims, as tokens carry them. */
export const claimsOf = (grant: Grant) => ({
  a: grant.account,
  s: grant.shops,
  m: grant.market,
  ...(grant.refused.length > 0 ? { r: grant.refused } : {}),
});

/** The envelope builders of one simulator, with request ids read from its clock. */
export function createReplies(clock: Clock) {
  /** Request ids look like TikTok's: the UTC time to the second, then 20 hex digits. */
  const requestId = () => clock.now().toISOString().replace(/\D/g, '').slice(0, 14) + randomBytes(10).toString('hex').toUpperCase();
  const envelope = (data: unknown, message = 'success') => ({ code: 0, message, data, request_id: requestId() });
  /** TikTok signals errors in the body; the HTTP status stays 200. */
  const fail = (reply: FastifyReply, [code, message]: TikTokError) =>
    reply.code(200).send({ code, message, data: null, request_id: requestId() });
  const answer = ([code, message]: TikTokError, status = 200) => ({
    status,
    body: { code, message, data: null, request_id: requestId() },
  });
  return { requestId, envelope, fail, answer };
}

/** A genuine `TTP_` token of this kind, expired or not, so that an expired one can be told from a forged one; else null. */
export function inspectToken(tokens: SandboxTokens, clock: Clock, kind: string, raw: string | undefined) {
  // Read as of the epoch: the signature is checked and the expiry passes, which is then compared with the clock.
  const claims = raw?.startsWith(TOKEN_PREFIX) ? tokens.read(kind, raw.slice(TOKEN_PREFIX.length), new Date(0)) : null;
  return claims && { grant: grantOf(claims), claims, expired: Number(claims.x) <= clock.nowMs() };
}

/** The query string of a request URL exactly as sent, which is what the signature is checked against. */
export function rawQueryOf(url: string): string {
  const start = url.indexOf('?');
  return start === -1 ? '' : url.slice(start + 1);
}

/** A content type without its parameters, lower case: `application/json; charset=utf-8` is `application/json`. */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** The documented timestamp window: 10-digit Unix seconds, from 5 minutes before now to 30 seconds after. */
export function timestampErrorOf(value: string | undefined, nowS: number): TikTokError | null {
  if (value !== undefined && /^-[0-9]+$/.test(value)) return ERRORS.timestampNegative;
  if (value === undefined || !/^[0-9]{10}$/.test(value)) return ERRORS.timestampMissing;
  const timestamp = Number(value);
  if (timestamp < nowS - TIMESTAMP_PAST_S) return ERRORS.timestampTooOld;
  return timestamp > nowS + TIMESTAMP_FUTURE_S ? ERRORS.timestampTooNew : null;
}
