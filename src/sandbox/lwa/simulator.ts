/**
 * The sandbox's Login with Amazon, shared by both Amazon simulators: 5-minute single-use codes, `Atza|`/`Atzr|` tokens
 * that carry their own claims, and the `POST /auth/o2/token` endpoint with LWA's error JSON (platforms.md §3.3, §4.3).
 * Where the track is given `grantlessScopes` (the seller's: SP-API's grantless operations), it also takes the
 * `client_credentials` grant (platforms.md §3.3): a token of the app itself, no seller's, for one of those scopes;
 * another scope is LWA's `invalid_scope` "The request has an invalid parameter : scope" (as LWA answered in
 * saleweaver/python-amazon-sp-api#278). The Ads track is given none, so its token endpoint keeps refusing the grant as
 * `unsupported_grant_type` (ASSUMPTION: no Amazon Ads operation is grantless; every one acts for an advertiser's grant).
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
/** The scopes of SP-API's grantless operations: the Notifications API's and the Application Management API's. */
export const GRANTLESS_SCOPES = ['sellingpartnerapi::notifications', 'sellingpartnerapi::client_credential:rotation'] as const;

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

/** What a code or token says beyond its account: the region it was granted in (null where the track has one host), and extra claims. */
export interface Grant {
  account: number;
  region: string | null;
  claims: Readonly<Record<string, unknown>>;
}

/**
 * The client credentials of a token request: in the body (`client_id`, `client_secret`) or in HTTP Basic, which LWA
 * accepts as RFC 6749 §2.3.1 allows; both at once is refused (one method per request).
 */
function clientCredentials(form: Params, authorization: string | undefined): { id?: string; secret?: string } | 'both' {
  const basic = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(authorization ?? '');
  if (!basic) return { id: form.client_id, secret: form.client_secret };
  if (form.client_secret !== undefined) return 'both';
  const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return {};
  // RFC 6749 §2.3.1: both halves are form-urlencoded before they are joined.
  const part = (text: string) => decodeURIComponent(text.replaceAll('+', ' '));
  try {
    return { id: part(decoded.slice(0, colon)), secret: part(decoded.slice(colon + 1)) };
  } catch {
    return {};
  }
}

export function createLwaSimulator(
  context: SandboxContext,
  client: { track: AmazonTrack; clientId: string; clientSecret: string; grantlessScopes?: readonly string[] },
) {
  const { tokens, clock, faults } = context;
  const { track } = client;
  const kind = (what: 'code' | 'access' | 'refresh' | 'grantless') => `${track}-${what}`;
  /** True for a token of `what` this track issued whose hour has passed (genuine, but read as of the epoch only). */
  const expired = (what: 'access' | 'grantless', token: string) =>
    token.startsWith(ACCESS_PREFIX) &&
    tokens.read(kind(what), token.slice(ACCESS_PREFIX.length), clock.now()) === null &&
    tokens.read(kind(what), token.slice(ACCESS_PREFIX.length), new Date(0)) !== null;
  const grantOf = (claims: Record<string, unknown>): Grant => ({
    account: Number(claims.a),
    region: typeof claims.r === 'string' ? claims.r : null,
    claims: (claims.c as Record<string, unknown> | undefined) ?? {},
  });
  /** A grant of another region is refused where regions have their own token URL ("the LWA server for your region"). */
  const inRegion = (grant: Grant, region: string | null) => region === null || grant.region === region;

  /** The grant behind a code, or the parameter LWA refuses. Codes work once; a `fail` code never works. */
  const redeemCode = (form: Params, now: Date, region: string | null): Grant | { refused: string } => {
    const code = tokens.read(kind('code'), form.code ?? '', now);
    if (!code || !tokens.useOnce(String(code.n), new Date(Number(code.x)), now) || code.f === true) return { refused: 'code' };
    if (form.redirect_uri !== code.ru) return { refused: 'redirect_uri' };
    const grant = grantOf(code);
    return inRegion(grant, region) ? grant : { refused: 'code' };
  };

  const readRefresh = (refreshToken: string, now: Date, region: string | null): Grant | { refused: string } => {
    const claims = refreshToken.startsWith(REFRESH_PREFIX)
      ? tokens.read(kind('refresh'), refreshToken.slice(REFRESH_PREFIX.length), now)
      : null;
    if (!claims || isRevoked(context, track, claims.a)) return { refused: 'refresh_token' };
    const grant = grantOf(claims);
    return inRegion(grant, region) ? grant : { refused: 'refresh_token' };
  };

  const accessTtlSeconds = context.accessTokenTtlSeconds ?? ACCESS_TTL_S;
  const grantClaims = (grant: Grant) => ({ a: grant.account, r: grant.region, c: grant.claims, n: tokens.nonce() });
  /** LWA's token answer; a refresh grant answers with the refresh token it was given. */
  const tokenAnswer = (grant: Grant, now: Date, refreshToken: string | null) => ({
    access_token: `${ACCESS_PREFIX}${tokens.issue(kind('access'), grantClaims(grant), new Date(now.getTime() + accessTtlSeconds * 1000))}`,
    refresh_token:
      refreshToken ?? `${REFRESH_PREFIX}${tokens.issue(kind('refresh'), grantClaims(grant), new Date(now.getTime() + REFRESH_TTL_MS))}`,
    token_type: 'bearer',
    expires_in: accessTtlSeconds,
  });

  /**
   * The client credentials grant: `{access_token, scope, token_type, expires_in}`, no refresh token (RFC 6749 §4.4.3).
   * ASSUMPTION: `scope` is echoed, as RFC 6749 §5.1 allows; a missing scope is refused as LWA refuses a missing
   * parameter elsewhere.
   */
  const grantlessAnswer = (scope: string | undefined, now: Date) => {
    if (!scope)
      return { status: 400, body: { error_description: 'The request is missing a required parameter : scope', error: 'invalid_request' } };
    if (!client.grantlessScopes?.includes(scope))
      return { status: 400, body: { error_description: 'The request has an invalid parameter : scope', error: 'invalid_scope' } };
    const token = tokens.issue(kind('grantless'), { s: scope, n: tokens.nonce() }, new Date(now.getTime() + accessTtlSeconds * 1000));
    return { status: 200, body: { access_token: `${ACCESS_PREFIX}${token}`, scope, token_type: 'bearer', expires_in: accessTtlSeconds } };
  };

  return {
    /** The scope of a genuine, unexpired token of the client credentials grant; null for any other token (a seller's too). */
    readGrantlessToken(token: string): { scope: string } | null {
      const claims = token.startsWith(ACCESS_PREFIX)
        ? tokens.read(kind('grantless'), token.slice(ACCESS_PREFIX.length), clock.now())
        : null;
      return claims && typeof claims.s === 'string' ? { scope: claims.s } : null;
    },

    /** True for a grantless token this track issued whose hour has passed. */
    isExpiredGrantlessToken: (token: string): boolean => expired('grantless', token),

    /** A 5-minute authorization code; a `fail` code is one the token endpoint will refuse. */
    issueCode(input: {
      account: number;
      redirectUri: string;
      fail: boolean;
      region: string | null;
      claims?: Record<string, unknown>;
    }): string {
      const claims = { n: tokens.nonce(), a: input.account, r: input.region, c: input.claims ?? {}, ru: input.redirectUri, f: input.fail };
      return tokens.issue(kind('code'), claims, new Date(clock.nowMs() + CODE_TTL_MS));
    },

    /** The grant behind a genuine, unexpired access token of this track; null otherwise. */
    readAccessToken(token: string): Grant | null {
      const claims = token.startsWith(ACCESS_PREFIX) ? tokens.read(kind('access'), token.slice(ACCESS_PREFIX.length), clock.now()) : null;
      return claims ? grantOf(claims) : null;
    },

    /** True for an access token this track issued whose hour has passed (genuine, but read as of the epoch only). */
    isExpiredAccessToken: (token: string): boolean => expired('access', token),

    /**
     * `POST /auth/o2/token`: form-encoded, client credentials in the body or in HTTP Basic (platforms.md §3.3). `region`
     * is the region whose token URL this is; null where one token URL serves every region (SP-API's).
     */
    registerTokenEndpoint(app: FastifyInstance, region: string | null): void {
      app.post('/auth/o2/token', async (request, reply) => {
        countCall(context, track, 'token');
        if (await faults.apply(track, 'token', reply, LWA_FAULT_ANSWERS)) return reply;
        const form = (request.body ?? {}) as Params;
        const credentials = clientCredentials(form, request.headers.authorization);
        if (credentials === 'both')
          return reply.code(400).send({ error_description: 'Only one client authentication method may be used', error: 'invalid_request' });
        if (credentials.id !== client.clientId || credentials.secret !== client.clientSecret) {
          return reply.code(401).send({ error_description: 'Client authentication failed', error: 'invalid_client' });
        }
        const now = clock.now();
        if (form.grant_type === 'client_credentials' && client.grantlessScopes) {
          const answer = grantlessAnswer(form.scope, now);
          return reply.code(answer.status).send(answer.body);
        }
        if (form.grant_type !== 'authorization_code' && form.grant_type !== 'refresh_token') {
          return reply.code(400).send({
            error_description: 'The authorization grant type is not supported by the authorization server',
            error: 'unsupported_grant_type',
          });
        }
        const refresh = form.grant_type === 'refresh_token';
        // RFC 6749 §4.1.3: required when the authorization request had one, as every Storelink request does. The SP-API
        // docs' example body leaves it out; what LWA answers then is UNCONFIRMED (the simulator is strict).
        if (!refresh && !form.redirect_uri)
          return reply
            .code(400)
            .send({ error_description: 'The request is missing a required parameter : redirect_uri', error: 'invalid_request' });
        const result = refresh ? readRefresh(form.refresh_token ?? '', now, region) : redeemCode(form, now, region);
        if ('refused' in result) return reply.code(400).send(invalidGrantBody(result.refused));
        return reply.send(tokenAnswer(result, now, refresh ? form.refresh_token! : null));
      });
    },
  };
}
