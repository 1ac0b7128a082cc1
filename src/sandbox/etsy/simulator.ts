/** The Etsy simulator: Etsy's own parameters, `<user_id>.<token>` tokens, `{error, error_description}` errors (DESIGN §6). */
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { firstValues } from '../../lib/params.js';
import { consentChoice, renderConsentPage, renderSandboxError } from '../consent-page.js';
import { countCall, isRevoked, SANDBOX_CLIENTS, type SandboxContext } from '../context.js';
import type { FaultAnswers } from '../faults.js';

type Params = Record<string, string | undefined>;
const CLIENT = SANDBOX_CLIENTS.etsy;
const CODE_TTL_MS = 5 * 60_000;
const ACCESS_TTL_S = 3600;
const REFRESH_TTL_MS = 90 * 24 * 3600_000;

/**
 * The error classes a test can ask for (src/sandbox/faults.ts), in Etsy's words where they were observed (platforms.md
 * §1): `invalid_grant` for a revoked refresh token, `invalid_token` for a revoked access token, the 403 of a key without
 * its shared secret. Etsy's 503 and 429 bodies were not observed; they follow its `{error}` shape.
 */
const FAULT_ANSWERS: Record<'token' | 'identity', FaultAnswers> = {
  token: {
    error: { error: 'Server Error' },
    refused: { status: 400, body: { error: 'invalid_grant', error_description: 'refresh_token is revoked' } },
    misconfigured: { status: 403, body: { error: 'Shared secret is required in x-api-key header.' } },
    passing: { status: 503, body: { error: 'Service Unavailable' } },
    throttled: { status: 429, body: { error: 'You have exceeded your quota of requests' } },
  },
  identity: {
    error: { error: 'Server Error' },
    refused: { status: 401, body: { error: 'invalid_token', error_description: 'access token is revoked' } },
    misconfigured: { status: 403, body: { error: 'Shared secret is required in x-api-key header.' } },
    passing: { status: 503, body: { error: 'Service Unavailable' } },
    throttled: { status: 429, body: { error: 'You have exceeded your quota of requests' } },
  },
};

export function registerEtsySimulator(app: FastifyInstance, context: SandboxContext) {
  const { tokens, clock, faults } = context;
  const callback = context.callbackUrl('etsy');
  const accessTtlSeconds = context.accessTokenTtlSeconds ?? ACCESS_TTL_S;

  /** Etsy shows an error page and never redirects for a bad client or redirect URI. */
  const requestProblem = (p: Params) => {
    if (p.client_id !== CLIENT.clientId) return 'Unknown client_id.';
    if (p.redirect_uri !== callback) return 'The requested redirect URL is not permitted.';
    if (p.response_type !== 'code') return 'response_type must be code.';
    if (!p.state) return 'state is required.';
    if (!p.code_challenge || p.code_challenge_method !== 'S256') return 'PKCE with code_challenge_method=S256 is required.';
    return null;
  };

  app.get('/authorize', async (request, reply) => {
    countCall(context, 'etsy', 'authorize');
    const query = request.query as Params;
    const problem = requestProblem(query);
    if (problem) return reply.code(400).type('text/html').send(renderSandboxError('Etsy', problem));
    const params = firstValues(query);
    return reply.type('text/html').send(
      renderConsentPage({
        platformName: 'Etsy',
        appName: 'Storelink',
        access: (query.scope ?? '').split(' ').filter(Boolean),
        action: '/sandbox/etsy/authorize',
        params,
      }),
    );
  });

  app.post('/authorize', async (request, reply) => {
    countCall(context, 'etsy', 'consent');
    const form = (request.body ?? {}) as Params;
    const choice = consentChoice(reply, 'Etsy', form, requestProblem(form));
    if (!choice) return reply;
    const { account } = choice;
    const back = new URL(form.redirect_uri!);
    if (form.decision === 'deny') {
      for (const [key, value] of Object.entries({
        state: form.state!,
        error: 'access_denied',
        error_description: 'The user denied the request.',
      }))
        back.searchParams.append(key, value);
    } else {
      const code = tokens.issue(
        'etsy-code',
        { n: tokens.nonce(), ch: form.code_challenge, ru: form.redirect_uri, a: account, f: form.decision === 'fail' },
        new Date(clock.now().getTime() + CODE_TTL_MS),
      );
      back.searchParams.append('code', code);
      back.searchParams.append('state', form.state!);
    }
    return reply.redirect(back.toString(), 302);
  });

  app.post('/v3/public/oauth/token', async (request, reply) => {
    countCall(context, 'etsy', 'token');
    if (await faults.apply('etsy', 'token', reply, FAULT_ANSWERS.token)) return reply;
    const form = (request.body ?? {}) as Params;
    const now = clock.now();
    const invalidGrant = (description: string) => reply.code(400).send({ error: 'invalid_grant', error_description: description });
    if (form.client_id !== CLIENT.clientId)
      return reply.code(401).send({ error: 'invalid_client', error_description: 'client_id is invalid' });

    let account: number;
    if (form.grant_type === 'authorization_code') {
      const code = tokens.read('etsy-code', form.code ?? '', now);
      if (!code || !tokens.useOnce(String(code.n), new Date(Number(code.x)), now))
        return invalidGrant('code has been used previously or is invalid');
      if (code.f === true) return invalidGrant('code is invalid');
      if (code.ru !== form.redirect_uri) return invalidGrant('redirect_uri does not match');
      const challenge = createHash('sha256')
        .update(form.code_verifier ?? '')
        .digest('base64url');
      if (challenge !== code.ch) return invalidGrant('code_verifier is invalid');
      account = Number(code.a);
    } else if (form.grant_type === 'refresh_token') {
      const refreshToken = form.refresh_token ?? '';
      const refresh = tokens.read('etsy-refresh', refreshToken.slice(refreshToken.indexOf('.') + 1), now);
      // Refresh tokens rotate: each one works once.
      if (!refresh || isRevoked(context, 'etsy', refresh.a)) return invalidGrant('refresh_token is revoked');
      if (!tokens.useOnce(String(refresh.n), new Date(Number(refresh.x)), now)) {
        // Counted apart: a rotated token presented again is what two concurrent renewals of one grant look like.
        countCall(context, 'etsy', 'refresh-token-reused');
        return invalidGrant('refresh_token is revoked');
      }
      account = Number(refresh.a);
    } else {
      return reply
        .code(400)
        .send({ error: 'unsupported_grant_type', error_description: 'grant_type must be authorization_code or refresh_token' });
    }
    const userId = 70_000_000 + account;
    return reply.send({
      access_token: `${userId}.${tokens.issue('etsy-access', { a: account }, new Date(now.getTime() + accessTtlSeconds * 1000))}`,
      token_type: 'Bearer',
      expires_in: accessTtlSeconds,
      refresh_token: `${userId}.${tokens.issue('etsy-refresh', { a: account, n: tokens.nonce() }, new Date(now.getTime() + REFRESH_TTL_MS))}`,
    });
  });

  /** The account behind a request's bearer, after the `x-api-key` check every v3 call makes; null when a reply was sent. */
  const authorize = (headers: Record<string, unknown>, reply: { code(n: number): { send(b: unknown): unknown } }): number | null => {
    if (headers['x-api-key'] !== `${CLIENT.clientId}:${CLIENT.sharedSecret}`) {
      reply.code(403).send({ error: "Invalid API key: should be in the format 'keystring:shared_secret'." });
      return null;
    }
    const bearer = /^Bearer (\d+)\.(.+)$/.exec(String(headers.authorization ?? ''));
    const access = bearer ? tokens.read('etsy-access', bearer[2]!, clock.now()) : null;
    if (!access) {
      reply.code(401).send({ error: 'invalid_token', error_description: 'access token is expired' });
      return null;
    }
    return Number(access.a);
  };

  app.get('/v3/application/users/me', async (request, reply) => {
    countCall(context, 'etsy', 'identity');
    if (await faults.apply('etsy', 'identity', reply, FAULT_ANSWERS.identity)) return reply;
    const account = authorize(request.headers, reply);
    if (account === null) return reply;
    return reply.send({ user_id: 70_000_000 + account, shop_id: 80_000_000 + account });
  });

  app.get('/v3/application/shops/:shopId', async (request, reply) => {
    countCall(context, 'etsy', 'shop');
    const account = authorize(request.headers, reply);
    if (account === null) return reply;
    const shopId = Number((request.params as { shopId: string }).shopId);
    if (shopId !== 80_000_000 + account) return reply.code(404).send({ error: 'Shop not found' });
    return reply.send({ shop_id: shopId, shop_name: `Sandbox Etsy Shop ${account}`, user_id: 70_000_000 + account });
  });
}
