/**
 * The sandbox's Login with Amazon, shared by both Amazon simulators: 5-minute single-use codes, `Atza|`/`Atzr|` tokens
 * that carry their own claims, and the `POST /auth/o2/token` endpoint with LWA's error JSON (platforms.md §3.3, §4.3).
 */
import type { FastifyInstance } from 'fastify';
import { countCall, isRevoked, type SandboxContext } from '../context.js';
import type { FaultAnswers } from '../faults.js';

type AmazonTrack = 'amazon-seller' | 'amazon-ads';
type Params = Record<string, string | undefined>;

const CODE_TTL_MS = 5 * 60_000;
const ACCESS_TTL_S = 3600;
// LWA states no refresh-token lifetime; public SP-API apps must be re-authorized every 365 days (platforms.md §3.3).
const REFRESH_TTL_MS = 365 * 24 * 3600_000;
const ACCESS_PREFIX = 'Atza|';
const REFRESH_PREFIX = 'Atzr|';

/** LWA's refusal of a code or refresh token, naming the parameter (as observed in Amazon's repos' issues, platforms.md §3.3). */
export function invalidGrantBody(parameter: string) {
  return { error_description: `The request has an invalid grant parameter : ${parameter}`, error: 'invalid_grant' };
}

/** What a simulated LWA 5xx says; the real 5xx body was not observed, so this follows LWA's error shape. */
export const LWA_SERVER_ERROR = { error_description: 'Internal server error', error: 'server_error' };

/**
 * The error classes a test can ask for (src/sandbox/faults.ts), in LWA's error codes (RFC 6749 §5.2 and the SP-API SDK's
 * list): a refused refresh token, the app's rejected client credentials, a passing `temporarily_unavailable`, throttling.
 */
const LWA_FAULT_ANSWERS: FaultAnswers = {
  error: LWA_SERVER_ERROR,
  refused: { status: 400, body: invalidGrantBody('refresh_token') },
  misconfigured: { status: 401, body: { error_description: 'Client authentication failed', error: 'invalid_client' } },
  passing: { status: 503, body: { error_description: 'The service is temporarily unavailable', error: 'temporarily_unavailable' } },
  throttled: { status: 429, body: { error_description: 'Too many requests', error: 'server_error' } },
};

/** The seller id a sandbox account number stands for, shaped like Amazon's (`A` and 13 upper-case characters). */
export function sandboxSellerId(account: number): string {
  return `ASANDBOX${String(account).padStart(6, '0')}`;
}

/** `redirectUri` with `params` added to its query (unset values left out), as LWA's redirect back. */
export function redirectBack(redirectUri: string, params: Params): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.append(name, value);
  return url.toString();
}

/** RFC 6749 §4.1.2.1 refusal, what both simulators send on Deny. */
export function deniedParams(state: string | undefined): Params {
  return { error: 'access_denied', error_description: 'The user denied the request.', state };
}

export type LwaSimulator = ReturnType<typeof createLwaSimulator>;

export function createLwaSimulator(context: SandboxContext, client: { track: AmazonTrack; clientId: string; clientSecret: string }) {
  const { tokens, clock, faults } = context;
  const { track } = client;
  const kind = (what: 'code' | 'access' | 'refresh') => `${track}-${what}`;

  /** The account behind a code, or the parameter LWA refuses. Codes work once; a `fail` code never works. */
  const redeemCode = (form: Params, now: Date): { account: number } | { refused: string } => {
    const code = tokens.read(kind('code'), form.code ?? '', now);
    if (!code || !tokens.useOnce(String(code.n), new Date(Number(code.x)), now) || code.f === true) return { refused: 'code' };
    // The SP-API docs' own example leaves redirect_uri out, so only a different one is refused (the error text is UNCONFIRMED).
    if (form.redirect_uri !== undefined && form.redirect_uri !== code.ru) return { refused: 'redirect_uri' };
    return { account: Number(code.a) };
  };

  const readRefresh = (refreshToken: string, now: Date): { account: number } | { refused: string } => {
    const claims = refreshToken.startsWith(REFRESH_PREFIX)
      ? tokens.read(kind('refresh'), refreshToken.slice(REFRESH_PREFIX.length), now)
      : null;
    return claims && !isRevoked(context, track, claims.a) ? { account: Number(claims.a) } : { refused: 'refresh_token' };
  };

  const accessTtlSeconds = context.accessTokenTtlSeconds ?? ACCESS_TTL_S;
  /** LWA's token answer; a refresh grant answers with the refresh token it was given. */
  const tokenAnswer = (account: number, now: Date, refreshToken: string | null) => ({
    access_token: `${ACCESS_PREFIX}${tokens.issue(kind('access'), { a: account, n: tokens.nonce() }, new Date(now.getTime() + accessTtlSeconds * 1000))}`,
    refresh_token:
      refreshToken ??
      `${REFRESH_PREFIX}${tokens.issue(kind('refresh'), { a: account, n: tokens.nonce() }, new Date(now.getTime() + REFRESH_TTL_MS))}`,
    token_type: 'bearer',
    expires_in: accessTtlSeconds,
  });

  return {
    /** A 5-minute authorization code for `account`; a `fail` code is one the token endpoint will refuse. */
    issueCode(input: { account: number; redirectUri: string; fail: boolean }): string {
      const claims = { n: tokens.nonce(), a: input.account, ru: input.redirectUri, f: input.fail };
      return tokens.issue(kind('code'), claims, new Date(clock.now().getTime() + CODE_TTL_MS));
    },

    /** The account behind a genuine, unexpired access token of this track; null otherwise. */
    readAccessToken(token: string): number | null {
      const claims = token.startsWith(ACCESS_PREFIX) ? tokens.read(kind('access'), token.slice(ACCESS_PREFIX.length), clock.now()) : null;
      return claims ? Number(claims.a) : null;
    },

    /** `POST /auth/o2/token`: form-encoded, client credentials in the body (platforms.md §3.3). */
    registerTokenEndpoint(app: FastifyInstance): void {
      app.post('/auth/o2/token', async (request, reply) => {
        countCall(context, track, 'token');
        if (await faults.apply(track, 'token', reply, LWA_FAULT_ANSWERS)) return reply;
        const form = (request.body ?? {}) as Params;
        if (form.client_id !== client.clientId || form.client_secret !== client.clientSecret) {
          return reply.code(401).send({ error_description: 'Client authentication failed', error: 'invalid_client' });
        }
        const now = clock.now();
        if (form.grant_type !== 'authorization_code' && form.grant_type !== 'refresh_token') {
          return reply.code(400).send({
            error_description: 'The authorization grant type is not supported by the authorization server',
            error: 'unsupported_grant_type',
          });
        }
        const refresh = form.grant_type === 'refresh_token';
        const result = refresh ? readRefresh(form.refresh_token ?? '', now) : redeemCode(form, now);
        if ('refused' in result) return reply.code(400).send(invalidGrantBody(result.refused));
        return reply.send(tokenAnswer(result.account, now, refresh ? form.refresh_token! : null));
      });
    },
  };
}
