/**
 * The TikTok Shop simulator (DESIGN §6): the service_id authorization page, GET token calls answering TikTok's
 * `{code, message, data, request_id}` envelope with absolute expiries, and Get Authorized Shops checking the request
 * signature, the timestamp window and the `x-tts-access-token` header.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { firstValues } from '../../lib/params.js';
import { renderConsentPage, renderSandboxError } from '../consent-page.js';
import { countCall, isRevoked, readConsent, SANDBOX_CLIENTS, type SandboxContext } from '../context.js';
import type { FaultAnswers } from '../faults.js';
import { hasValidSign } from './signature.js';

type Params = Record<string, string | undefined>;
const CLIENT = SANDBOX_CLIENTS.tiktokShop;
const TRACK = 'tiktok-shop';
const CODE_TTL_MS = 30 * 60_000;
const ACCESS_TTL_MS = 7 * 24 * 3600_000;
// The real refresh lifetime is not documented; the authorization is commonly reported to last about a year.
const REFRESH_TTL_MS = 365 * 24 * 3600_000;
const TIMESTAMP_PAST_S = 5 * 60;
const TIMESTAMP_FUTURE_S = 30;
const TOKEN_PREFIX = 'TTP_';
/** Get Authorized Shops, relative to the Open API base, as TikTok documents it (platforms.md §2.6). */
const SHOPS_PATH = '/authorization/202309/shops';

/** Scopes the sandbox app has enabled; only `seller.authorization.info` is a key confirmed by the docs. */
const SCOPES = [
  ['seller.authorization.info', 'Shop Authorized Information'],
  ['seller.product.basic', 'Product Basic'],
  ['seller.order.info', 'Order Information'],
  ['seller.fulfillment.basic', 'Fulfillment Basic'],
] as const;

/**
 * Error codes. The Open API ones are TikTok's common errors (platforms.md §2.5). TikTok documents none for the token
 * calls, so those are UNCONFIRMED choices: 36004004 for an invalid or used auth code or refresh token (the 36004xxx
 * family is what real token calls are reported to answer), 36009004 for a wrong app_key or app_secret.
 */
const ERRORS = {
  invalidAuthCode: [36_004_004, 'The auth code is invalid, expired or already used'],
  invalidRefreshToken: [36_004_004, 'The refresh token is invalid or expired'],
  invalidGrantType: [36_009_003, 'grant_type is invalid'],
  invalidCredentials: [36_009_004, 'Invalid credentials: app_key or app_secret'],
  invalidTimestamp: [36_009_004, 'Invalid timestamp'],
  invalidSign: [106_001, 'Invalid sign'],
  invalidAccessToken: [105_002, 'Access token is expired or invalid, please refresh it'],
  unexpectedParameter: [36_009_003, 'Invalid parameter'],
  internal: [36_009_003, 'Internal error, please try again later'],
  requestTimeout: [36_009_007, 'Request timeout'],
  rateLimited: [36_009_002, 'Too many requests, please try again later'],
  noAuthRecord: [36_004_005, 'can not find related auth record'],
} as const;

/** The query string of a request URL exactly as sent, which is what the signature is checked against. */
function rawQueryOf(url: string): string {
  const start = url.indexOf('?');
  return start === -1 ? '' : url.slice(start + 1);
}

export function registerTikTokShopSimulator(app: FastifyInstance, context: SandboxContext) {
  const { tokens, clock, faults } = context;
  const callback = context.callbackUrl(TRACK);

  /** Request ids look like TikTok's: the UTC time to the second, then 20 hex digits. */
  const requestId = () => clock.now().toISOString().replace(/\D/g, '').slice(0, 14) + randomBytes(10).toString('hex').toUpperCase();
  const envelope = (data: unknown) => ({ code: 0, message: 'success', data, request_id: requestId() });
  /** TikTok signals errors in the body; the HTTP status stays 200. */
  const fail = (reply: FastifyReply, [code, message]: readonly [number, string]) =>
    reply.code(200).send({ code, message, data: null, request_id: requestId() });
  const answer = ([code, message]: readonly [number, string], status = 200) => ({
    status,
    body: { code, message, data: null, request_id: requestId() },
  });
  /** The error classes a test can ask for (src/sandbox/faults.ts), in TikTok's codes. */
  const faultAnswers = (endpoint: 'token' | 'identity'): FaultAnswers => ({
    error: answer(ERRORS.internal).body,
    refused: endpoint === 'token' ? answer(ERRORS.noAuthRecord) : answer(ERRORS.invalidAccessToken),
    misconfigured: answer(ERRORS.invalidCredentials),
    passing: endpoint === 'token' ? answer(ERRORS.internal) : answer(ERRORS.requestTimeout),
    throttled: answer(ERRORS.rateLimited, 429),
  });

  app.get('/authorize', async (request, reply) => {
    countCall(context, TRACK, 'authorize');
    const query = firstValues(request.query);
    // A link with an unknown service_id has no app and so no Redirect URL to send the user back to.
    if (query.service_id !== CLIENT.serviceId)
      return reply
        .code(400)
        .type('text/html')
        .send(renderSandboxError('TikTok Shop', 'This authorization link is invalid: unknown service_id.'));
    return reply.type('text/html').send(
      renderConsentPage({
        platformName: 'TikTok Shop',
        appName: 'Storelink',
        access: SCOPES.map(([key, name]) => `${name} (${key})`),
        action: `/sandbox/${TRACK}/authorize`,
        params: query,
      }),
    );
  });

  app.post('/authorize', async (request, reply) => {
    countCall(context, TRACK, 'consent');
    const form = firstValues(request.body);
    const choice = readConsent(form);
    if (form.service_id !== CLIENT.serviceId || !choice) {
      return reply
        .code(400)
        .type('text/html')
        .send(renderSandboxError('TikTok Shop', "service_id must be the app's, decision allow, deny or fail, and account a number."));
    }
    const { account } = choice;
    const back = new URL(callback);
    // `state` is echoed only when the link carried one (App Store installs carry none).
    const state: Record<string, string> = form.state !== undefined ? { state: form.state } : {};
    if (form.decision === 'deny') {
      back.search = new URLSearchParams({ code: 'null', error: 'auth_denied', ...state }).toString();
    } else {
      const code = tokens.issue(
        'tiktok-code',
        { n: tokens.nonce(), a: account, f: form.decision === 'fail' },
        new Date(clock.now().getTime() + CODE_TTL_MS),
      );
      back.search = new URLSearchParams({ code, ...state }).toString();
    }
    return reply.redirect(back.toString(), 302);
  });

  /** Both tokens for an account; the refresh token keeps the authorization's expiry across refreshes. */
  const grant = (account: number, refreshExpiresAt: Date) => {
    const now = clock.now();
    const accessExpiresAt = new Date(
      now.getTime() + (context.accessTokenTtlSeconds === null ? ACCESS_TTL_MS : context.accessTokenTtlSeconds * 1000),
    );
    return envelope({
      access_token: TOKEN_PREFIX + tokens.issue('tiktok-access', { a: account }, accessExpiresAt),
      access_token_expire_in: Math.floor(accessExpiresAt.getTime() / 1000),
      refresh_token: TOKEN_PREFIX + tokens.issue('tiktok-refresh', { a: account, n: tokens.nonce() }, refreshExpiresAt),
      refresh_token_expire_in: Math.floor(refreshExpiresAt.getTime() / 1000),
      open_id: `70107360${String(account).padStart(11, '0')}`,
      seller_name: `Sandbox TikTok Seller ${account}`,
      seller_base_region: 'GB',
      user_type: 0,
      granted_scopes: SCOPES.map(([key]) => key),
    });
  };
  const readToken = (kind: string, raw: string | undefined) =>
    raw?.startsWith(TOKEN_PREFIX) ? tokens.read(kind, raw.slice(TOKEN_PREFIX.length), clock.now()) : null;
  const validClient = (query: Params) => query.app_key === CLIENT.appKey && query.app_secret === CLIENT.appSecret;

  app.get('/api/v2/token/get', async (request, reply) => {
    countCall(context, TRACK, 'token');
    if (await faults.apply(TRACK, 'token', reply, faultAnswers('token'))) return reply;
    const query = firstValues(request.query);
    if (!validClient(query)) return fail(reply, ERRORS.invalidCredentials);
    if (query.grant_type !== 'authorized_code') return fail(reply, ERRORS.invalidGrantType);
    const now = clock.now();
    const code = tokens.read('tiktok-code', query.auth_code ?? '', now);
    if (!code || !tokens.useOnce(String(code.n), new Date(Number(code.x)), now) || code.f === true)
      return fail(reply, ERRORS.invalidAuthCode);
    return reply.send(grant(Number(code.a), new Date(now.getTime() + REFRESH_TTL_MS)));
  });

  // Whether a refresh rotates the refresh token is UNCONFIRMED (platforms.md §2.4): here each refresh issues a new
  // one with the same expiry, and the old one stays valid until then.
  app.get('/api/v2/token/refresh', async (request, reply) => {
    countCall(context, TRACK, 'refresh');
    if (await faults.apply(TRACK, 'token', reply, faultAnswers('token'))) return reply;
    const query = firstValues(request.query);
    if (!validClient(query)) return fail(reply, ERRORS.invalidCredentials);
    if (query.grant_type !== 'refresh_token') return fail(reply, ERRORS.invalidGrantType);
    const refresh = readToken('tiktok-refresh', query.refresh_token);
    if (!refresh || isRevoked(context, TRACK, refresh.a)) return fail(reply, ERRORS.invalidRefreshToken);
    return reply.send(grant(Number(refresh.a), new Date(Number(refresh.x))));
  });

  app.get(SHOPS_PATH, async (request, reply) => {
    countCall(context, TRACK, 'identity');
    if (await faults.apply(TRACK, 'identity', reply, faultAnswers('identity'))) return reply;
    const query = firstValues(request.query);
    const unexpected = Object.keys(query).filter((key) => !['app_key', 'timestamp', 'sign'].includes(key));
    if (unexpected.length > 0)
      return fail(reply, [
        ERRORS.unexpectedParameter[0],
        `${ERRORS.unexpectedParameter[1]}: ${unexpected.join(', ')} is not accepted by this API`,
      ]);
    if (query.app_key !== CLIENT.appKey) return fail(reply, ERRORS.invalidCredentials);
    const nowS = Math.floor(clock.now().getTime() / 1000);
    const timestamp = /^\d{1,12}$/.test(query.timestamp ?? '') ? Number(query.timestamp) : NaN;
    if (!(timestamp >= nowS - TIMESTAMP_PAST_S && timestamp <= nowS + TIMESTAMP_FUTURE_S)) return fail(reply, ERRORS.invalidTimestamp);
    const signed = { path: SHOPS_PATH, rawQuery: rawQueryOf(request.url), body: '', contentType: request.headers['content-type'] };
    if (!hasValidSign(signed, CLIENT.appSecret)) return fail(reply, ERRORS.invalidSign);
    const access = readToken('tiktok-access', String(request.headers['x-tts-access-token'] ?? ''));
    if (!access) return fail(reply, ERRORS.invalidAccessToken);
    const account = Number(access.a);
    return reply.send({
      code: 0,
      message: 'Success',
      request_id: requestId(),
      data: {
        shops: [
          {
            id: String(7_000_714_532_000_000 + account),
            name: `Sandbox TikTok Shop ${account}`,
            region: 'GB',
            seller_type: 'CROSS_BORDER',
            cipher: `GCP_SANDBOX${String(account).padStart(6, '0')}`,
            code: `GBSBX${String(account).padStart(6, '0')}`,
          },
        ],
      },
    });
  });
}
