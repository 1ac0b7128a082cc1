/**
 * The Etsy simulator (DESIGN §6): Etsy's connect page with PKCE and its fixed scopes, `<user_id>.<token>` tokens
 * carrying the granted scopes, `{error, error_description}` errors, and `x-api-key: keystring:shared_secret` on every v3
 * call, the token endpoint's included (platforms.md §1). Its listing API is served from listing-api.ts (DESIGN §10).
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { firstValues } from '../../lib/params.js';
import { type ConsentOption, consentChoice, renderConsentPage, renderSandboxError } from '../consent-page.js';
import { consented, countCall, isRevoked, type SandboxContext } from '../context.js';
import type { FaultAnswers } from '../faults.js';
import { bearerGrant, CLIENT, type Grant, grantOf, hasApiKey, NO_SHARED_SECRET, shopIdOf, userIdOf } from './api-access.js';
import { registerEtsyListingApi } from './listing-api.js';
import { shopSetups } from './shop-setup.js';
import { LARGE_STOCK, STOCK_CHOICES, type StockChoice } from './stock.js';

type Params = Record<string, string | undefined>;
const CODE_TTL_MS = 5 * 60_000;
const ACCESS_TTL_S = 3600;
const REFRESH_TTL_MS = 90 * 24 * 3600_000;

/** Etsy's fixed scope list (platforms.md §1.2; the oauth2 scopes of Etsy's OpenAPI document). */
const SCOPES: ReadonlySet<string> = new Set(
  'address_r address_w billing_r cart_r cart_w email_r favorites_r favorites_w feedback_r listings_d listings_r listings_w profile_r profile_w recommend_r recommend_w shops_r shops_w transactions_r transactions_w'.split(
    ' ',
  ),
);

/** RFC 7636 §4.2: an S256 challenge is the unpadded base64url SHA-256 of the verifier, so 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/**
 * The sandbox's choice of the account's shop on the consent form: `shop=none` is an account without a shop (a buyer's
 * account); `stocked` and `stocked-large` a shop that already has listings made outside Storelink (stock.ts), to try
 * an import. The field is optional; absent (or empty) is an account with a shop as it is.
 */
const SHOP_OPTION: ConsentOption = {
  name: 'shop',
  label: "The sandbox account's shop",
  values: [
    ['', 'The account has a shop'],
    ['stocked', 'The shop already has 6 listings (to try an import)'],
    ['stocked-large', `The shop already has ${6 + LARGE_STOCK} listings`],
    ['empty', 'A new shop in the US with no shipping profile, return policy or processing profile yet'],
    ['empty-eu', 'A new shop in Germany (EU) with no shipping profile, return policy or processing profile yet'],
    ['none', 'The account has no shop (a buyer account)'],
  ],
};
/** The new shops of the consent page, and the country each is in. */
const EMPTY_SHOPS: Readonly<Record<string, string>> = { empty: 'US', 'empty-eu': 'DE' };
const SHOP_CHOICES: readonly string[] = ['', 'none', ...Object.keys(EMPTY_SHOPS), ...STOCK_CHOICES];

/**
 * The error classes a test can ask for (src/sandbox/faults.ts), in Etsy's words where they were observed (platforms.md
 * §1): `invalid_grant` for a revoked refresh token, `invalid_token` for a revoked access token, the 403 of a key without
 * its shared secret. Etsy's 503 and 429 bodies were not observed; they follow its `{error}` shape.
 */
const FAULT_ANSWERS: Record<'token' | 'identity', FaultAnswers> = {
  token: {
    error: { error: 'Server Error' },
    refused: { status: 400, body: { error: 'invalid_grant', error_description: 'refresh_token is revoked' } },
    misconfigured: { status: 403, body: NO_SHARED_SECRET },
    passing: { status: 503, body: { error: 'Service Unavailable' } },
    throttled: { status: 429, body: { error: 'You have exceeded your quota of requests' } },
  },
  identity: {
    error: { error: 'Server Error' },
    refused: { status: 401, body: { error: 'invalid_token', error_description: 'access token is revoked' } },
    misconfigured: { status: 403, body: NO_SHARED_SECRET },
    passing: { status: 503, body: { error: 'Service Unavailable' } },
    throttled: { status: 429, body: { error: 'You have exceeded your quota of requests' } },
  },
};

/** The scopes of a `scope` parameter, space-separated as Etsy's connect URL sends them. */
const scopesOf = (scope: string | undefined) => (scope ?? '').split(' ').filter(Boolean);

/**
 * Why a scope parameter is refused, or null. ASSUMPTION: Etsy does not document what an empty or unknown scope does;
 * here it is the error page shown for a bad client (RFC 6749 §4.1.2.1 would allow a redirect with `invalid_scope`).
 */
function scopeProblem(scope: string | undefined): string | null {
  const scopes = scopesOf(scope);
  if (scopes.length === 0) return 'scope is required.';
  const unknown = scopes.filter((name) => !SCOPES.has(name));
  return unknown.length > 0 ? `Unknown scope: ${unknown.join(' ')}.` : null;
}

export function registerEtsySimulator(app: FastifyInstance, context: SandboxContext) {
  const { tokens, clock, faults } = context;
  const callback = context.callbackUrl('etsy');
  const accessTtlSeconds = context.accessTokenTtlSeconds ?? ACCESS_TTL_S;
  const listingApi = registerEtsyListingApi(app, context);

  /** Etsy shows an error page and never redirects for a bad client or redirect URI. */
  const requestProblem = (p: Params) => {
    if (p.client_id !== CLIENT.clientId) return 'Unknown client_id.';
    if (p.redirect_uri !== callback) return 'The requested redirect URL is not permitted.';
    if (p.response_type !== 'code') return 'response_type must be code.';
    if (!p.state) return 'state is required.';
    if (!p.code_challenge || p.code_challenge_method !== 'S256') return 'PKCE with code_challenge_method=S256 is required.';
    if (!S256_CHALLENGE.test(p.code_challenge)) return 'code_challenge must be the 43-character base64url SHA-256 of the code_verifier.';
    return scopeProblem(p.scope);
  };

  app.get('/authorize', async (request, reply) => {
    countCall(context, 'etsy', 'authorize');
    const query = firstValues(request.query);
    const problem = requestProblem(query);
    if (problem) return reply.code(400).type('text/html').send(renderSandboxError('Etsy', problem));
    return reply.type('text/html').send(
      renderConsentPage({
        platformName: 'Etsy',
        appName: 'Storelink',
        access: scopesOf(query.scope),
        action: '/sandbox/etsy/authorize',
        params: query,
        options: [SHOP_OPTION],
      }),
    );
  });

  app.post('/authorize', async (request, reply) => {
    countCall(context, 'etsy', 'consent');
    const form = firstValues(request.body);
    const shopProblem =
      form.shop === undefined || SHOP_CHOICES.includes(form.shop)
        ? null
        : `shop must be one of ${SHOP_CHOICES.slice(1).join(', ')} or left out.`;
    const choice = consentChoice(reply, 'Etsy', form, requestProblem(form) ?? shopProblem);
    if (!choice) return reply;
    if (choice.decision === 'allow') consented(context, 'etsy', choice.account);
    const back = new URL(form.redirect_uri!);
    if (choice.decision === 'deny') {
      // ASSUMPTION: Etsy documents `?state&error&error_description` on a refusal but not the error's value, and a 2021
      // report (etsy/open-api#234) saw a denial stay on an Etsy error page without any redirect. DESIGN §6 needs a
      // redirect for `decision=deny`, so this one follows RFC 6749 §4.1.2.1: `error=access_denied`.
      for (const [key, value] of Object.entries({
        state: form.state!,
        error: 'access_denied',
        error_description: 'The user denied the request.',
      }))
        back.searchParams.append(key, value);
    } else {
      if (choice.decision === 'allow' && STOCK_CHOICES.includes(form.shop as StockChoice))
        listingApi.stock(choice.account, form.shop as StockChoice);
      const emptyIn = form.shop === undefined ? undefined : EMPTY_SHOPS[form.shop];
      if (choice.decision === 'allow' && emptyIn) shopSetups(context).startEmpty(choice.account, emptyIn);
      const code = tokens.issue(
        'etsy-code',
        {
          n: tokens.nonce(),
          ch: form.code_challenge,
          ru: form.redirect_uri,
          a: choice.account,
          sc: scopesOf(form.scope).join(' '),
          ns: form.shop === 'none',
          f: choice.decision === 'fail',
        },
        new Date(clock.nowMs() + CODE_TTL_MS),
      );
      back.searchParams.append('code', code);
      back.searchParams.append('state', form.state!);
    }
    return reply.redirect(back.toString(), 302);
  });

  app.post('/v3/public/oauth/token', async (request, reply) => {
    countCall(context, 'etsy', 'token');
    if (await faults.apply('etsy', 'token', reply, FAULT_ANSWERS.token)) return reply;
    if (!hasApiKey(request, reply)) return reply;
    const form = firstValues(request.body);
    const now = clock.now();
    const invalidGrant = (description: string) => reply.code(400).send({ error: 'invalid_grant', error_description: description });
    if (form.client_id !== CLIENT.clientId)
      return reply.code(401).send({ error: 'invalid_client', error_description: 'client_id is invalid' });

    let grant: Grant;
    if (form.grant_type === 'authorization_code') {
      // Observed wording (googleworkspace/apps-script-oauth2#448); a wrong verifier stays `invalid_grant` below.
      if (!form.code_verifier) return reply.code(400).send({ error: 'invalid_request', error_description: 'code_verifier is required' });
      const code = tokens.read('etsy-code', form.code ?? '', now);
      if (!code || !tokens.useOnce(String(code.n), new Date(Number(code.x)), now))
        return invalidGrant('code has been used previously or is invalid');
      if (code.f === true) return invalidGrant('code is invalid');
      if (code.ru !== form.redirect_uri) return invalidGrant('redirect_uri does not match');
      const challenge = createHash('sha256').update(form.code_verifier).digest('base64url');
      if (challenge !== code.ch) return invalidGrant('code_verifier is invalid');
      grant = grantOf(code);
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
      // A refresh keeps the scopes of the original grant (platforms.md §1.2).
      grant = grantOf(refresh);
    } else {
      return reply
        .code(400)
        .send({ error: 'unsupported_grant_type', error_description: 'grant_type must be authorization_code or refresh_token' });
    }
    const claims = { a: grant.account, sc: grant.scopes, ns: grant.noShop };
    const userId = userIdOf(grant.account);
    return reply.send({
      access_token: `${userId}.${tokens.issue('etsy-access', claims, new Date(now.getTime() + accessTtlSeconds * 1000))}`,
      token_type: 'Bearer',
      expires_in: accessTtlSeconds,
      refresh_token: `${userId}.${tokens.issue('etsy-refresh', { ...claims, n: tokens.nonce() }, new Date(now.getTime() + REFRESH_TTL_MS))}`,
    });
  });

  // getMe: api_key and oauth2 `shops_r` (Etsy's OpenAPI document); `shop_id` is not required in its answer, and a
  // user without a shop has none.
  app.get('/v3/application/users/me', async (request, reply) => {
    countCall(context, 'etsy', 'identity');
    if (await faults.apply('etsy', 'identity', reply, FAULT_ANSWERS.identity)) return reply;
    if (!hasApiKey(request, reply)) return reply;
    const grant = bearerGrant(context, request.headers, reply);
    if (!grant) return reply;
    if (!grant.scopes.split(' ').includes('shops_r')) {
      // `insufficient_scope` as observed (etsy/open-api#598, 2022). ASSUMPTION: the 403 status (RFC 6750 §3.1) and a
      // description naming the missing scope (the observed one said only "Insufficient scope").
      return reply.code(403).send({ error: 'insufficient_scope', error_description: 'Insufficient scope: shops_r is required' });
    }
    const userId = userIdOf(grant.account);
    return reply.send(grant.noShop ? { user_id: userId } : { user_id: userId, shop_id: shopIdOf(grant.account) });
  });

  // getShop is public: Etsy's OpenAPI document gives it the api_key security only, no OAuth scope, so a bearer is
  // neither needed nor read here.
  app.get('/v3/application/shops/:shopId', async (request, reply) => {
    countCall(context, 'etsy', 'shop');
    if (!hasApiKey(request, reply)) return reply;
    const shopId = (request.params as { shopId: string }).shopId;
    const account = /^[0-9]{1,9}$/.test(shopId) ? Number(shopId) - shopIdOf(0) : 0;
    if (account < 1 || account > 999_999) return reply.code(404).send({ error: 'Shop not found' });
    // Every sandbox shop sells in US dollars, as its receipts and listings are priced (present.ts's money); where it
    // is and ships from are its country (shop-setup.ts: the US, or Germany for the consent page's `empty-eu`).
    const { country } = shopSetups(context).of(shopIdOf(account));
    return reply.send({
      shop_id: shopIdOf(account),
      shop_name: `Sandbox Etsy Shop ${account}`,
      user_id: userIdOf(account),
      currency_code: 'USD',
      shop_location_country_iso: country,
      shipping_from_country_iso: country,
    });
  });
}
