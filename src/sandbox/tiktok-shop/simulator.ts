/**
 * The TikTok Shop simulator (DESIGN §6): the service_id authorization page, GET token calls answering TikTok's
 * `{code, message, data, request_id}` envelope with absolute expiries, and Get Authorized Shops checking its query, the
 * request signature (with the simulator's own signer), the timestamp window, the content type and the
 * `x-tts-access-token` header, and answering every shop the seller authorized. The consent page's choices: the
 * seller's market (the US first and the default, the UK, or one shop of a seller local to Germany), how many shops the
 * seller authorizes, and whether they already hold products made outside Storelink (stock.ts). The product API (product-api.ts) and the Order API (orders.ts) share one product
 * store: a sale takes its units from the shop's products.
 */
import type { FastifyInstance } from 'fastify';
import { firstValues } from '../../lib/params.js';
import { type ConsentOption, renderConsentPage, renderSandboxError } from '../consent-page.js';
import { consented, countCall, isRevoked, readConsent, SANDBOX_CLIENTS, type SandboxContext } from '../context.js';
import type { FaultAnswers } from '../faults.js';
import { ERRORS, type TikTokError, unexpectedParameter } from './errors.js';
import { notifyRevocations } from './notifications.js';
import {
  claimsOf,
  createReplies,
  type Grant,
  grantOf,
  inspectToken as inspectTokenOf,
  mediaTypeOf,
  rawQueryOf,
  TOKEN_PREFIX,
  timestampErrorOf,
} from './open-api.js';
import { registerTikTokShopOrders } from './orders.js';
import { registerTikTokShopProductApi } from './product-api.js';
import { PRE_APPROVED_REASONS, type PreApprovedReason } from './product-store.js';
import { registerTikTokShopSandboxRoutes } from './sandbox-routes.js';
import { DEFAULT_MARKET, LOCAL_MARKETS, MARKETS, MAX_SHOPS, type Market, sandboxShops } from './shops.js';
import { hasValidSign } from './signature.js';
import { LARGE_STOCK, STOCK_CHOICES, type StockChoice } from './stock.js';

type Params = Record<string, string | undefined>;
const CLIENT = SANDBOX_CLIENTS.tiktokShop;
const TRACK = 'tiktok-shop';
const CODE_TTL_MS = 30 * 60_000;
const ACCESS_TTL_MS = 7 * 24 * 3600_000;
// The real refresh lifetime is not documented; the authorization is commonly reported to last about a year.
const REFRESH_TTL_MS = 365 * 24 * 3600_000;
/** Get Authorized Shops, relative to the Open API base, as TikTok documents it (platforms.md §2.6). */
const SHOPS_PATH = '/authorization/202309/shops';

/** Scopes the sandbox app has enabled; only `seller.authorization.info` is a key confirmed by the docs. */
const SCOPES = [
  ['seller.authorization.info', 'Shop Authorized Information'],
  ['seller.product.basic', 'Product Basic'],
  ['seller.order.info', 'Order Information'],
  ['seller.fulfillment.basic', 'Fulfillment Basic'],
] as const;

/** The query Get Authorized Shops takes: `app_key`, `sign` and `timestamp`, and no `shop_cipher` (platforms.md §2.6). */
const SHOPS_QUERY: ReadonlySet<string> = new Set(['app_key', 'sign', 'timestamp']);

/** The sandbox's choice of how many shops the seller authorizes; the field is optional and absent means one. */
const SHOPS_OPTION: ConsentOption = {
  name: 'shops',
  label: 'Shops the sandbox seller authorizes',
  values: Array.from({ length: MAX_SHOPS }, (_, index) => {
    const count = String(index + 1);
    return [count, index === 0 ? '1 shop' : `${count} shops, each in another country`] as const;
  }),
};

/**
 * The sandbox's choice of the seller's market: its (first) shop is there and sells in its currency. The US is first
 * and the default (a form without the field, or with it empty), so a newcomer's dollar products fit; the UK's seller
 * may have more shops, one in each further country; Germany's is a seller local to the EU with one shop, whose
 * categories ask for the EU's responsible person and manufacturer (categories.ts).
 */
const MARKET_OPTION: ConsentOption = {
  name: 'market',
  label: "The sandbox seller's market",
  values: [
    ['US', 'United States: shops sell in USD (more shops: one in each further country, cross-border)'],
    ['GB', 'United Kingdom: shops sell in GBP (more shops: one in each further country, cross-border)'],
    ['DE', 'Germany, EU: one local shop selling in EUR (the EU asks for a responsible person and a manufacturer)'],
  ],
};

/**
 * The sandbox's choice of what the authorized shops already sell: `shop=stocked` gives each shop six products made
 * outside Storelink, `stocked-large` 256 (stock.ts), to try an import. The field is optional; absent (or empty) is shops
 * as they are. Named `shop`, as Etsy's consent page names the same choice.
 */
const STOCK_OPTION: ConsentOption = {
  name: 'shop',
  label: 'Products the sandbox shops already sell',
  values: [
    ['', 'The shops have no products yet'],
    ['stocked', 'Each shop already has 6 products (to try an import)'],
    ['stocked-large', `Each shop already has ${6 + LARGE_STOCK} products`],
  ],
};
const STOCK_FIELD_VALUES: readonly string[] = ['', ...STOCK_CHOICES];

/**
 * The sandbox's choice of a scope the seller refuses at consent (TikTok lets a seller untick a package): its calls then
 * answer 105005. Optional; absent (or empty) grants every scope.
 */
const REFUSE_OPTION: ConsentOption = {
  name: 'refuse',
  label: 'A permission the sandbox seller refuses',
  values: [
    ['', 'None: every permission is granted'],
    ['seller.product.basic', 'Product Basic (product calls answer 105005)'],
  ],
};
const REFUSABLE: readonly string[] = ['', 'seller.product.basic'];

/**
 * The sandbox's choice of a prerequisite the seller's shops still lack (listings.md §2.2, [T6]): a product that passes
 * its audit then stays `PENDING` with `audit.status` `PRE_APPROVED` and this reason, not for sale, until the sandbox's
 * `POST /sandbox/tiktok-shop/accounts/{account}/prerequisites/complete` says the seller completed it. Optional; absent
 * (or empty) is a shop that lacks nothing. Each consent sets it anew.
 */
const PENDING_OPTION: ConsentOption = {
  name: 'pending',
  label: 'A prerequisite the sandbox shops still lack',
  values: [
    ['', 'None: products that pass review go on sale'],
    ['KYC_PENDING', "The seller's identity verification (KYC_PENDING)"],
    ['RESTRICTED_CATEGORY_PENDING', "The category's permission (RESTRICTED_CATEGORY_PENDING)"],
  ],
};
const PENDING_VALUES: readonly string[] = ['', ...PRE_APPROVED_REASONS];

export function registerTikTokShopSimulator(app: FastifyInstance, context: SandboxContext) {
  const { tokens, clock, faults } = context;
  const callback = context.callbackUrl(TRACK);
  notifyRevocations(context);

  const { requestId, envelope, fail, answer } = createReplies(clock);
  const products = registerTikTokShopProductApi(app, context);
  registerTikTokShopOrders(app, context, products.store);
  registerTikTokShopSandboxRoutes(app, context);
  /** The error classes a test can ask for (src/sandbox/faults.ts), in TikTok's codes. */
  const faultAnswers = (endpoint: 'token' | 'identity'): FaultAnswers => ({
    error: answer(ERRORS.internal).body,
    refused: endpoint === 'token' ? answer(ERRORS.noAuthRecord) : answer(ERRORS.expiredAccessToken),
    misconfigured: answer(ERRORS.invalidAppKey),
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
        options: [SHOPS_OPTION, MARKET_OPTION, STOCK_OPTION, REFUSE_OPTION, PENDING_OPTION],
      }),
    );
  });

  app.post('/authorize', async (request, reply) => {
    countCall(context, TRACK, 'consent');
    const form = firstValues(request.body);
    const choice = readConsent(form);
    const shops = shopCountOf(form.shops);
    const market = marketOf(form.market);
    const stock = form.shop ?? '';
    const refuse = form.refuse ?? '';
    const pending = form.pending ?? '';
    // A seller local to an EU market has the one shop there.
    const lone = market === null || !(LOCAL_MARKETS as readonly string[]).includes(market) || shops === 1;
    if (
      form.service_id !== CLIENT.serviceId ||
      !choice ||
      shops === null ||
      market === null ||
      !lone ||
      !STOCK_FIELD_VALUES.includes(stock) ||
      !REFUSABLE.includes(refuse) ||
      !PENDING_VALUES.includes(pending)
    ) {
      return reply
        .code(400)
        .type('text/html')
        .send(
          renderSandboxError(
            'TikTok Shop',
            `service_id must be the app's, decision allow, deny or fail, account a number, shops 1 to ${MAX_SHOPS}, market one of ${MARKETS.join(', ')} (${LOCAL_MARKETS.join(', ')} with one shop) or left out, shop one of ${STOCK_CHOICES.join(', ')} or left out, refuse seller.product.basic or left out, and pending one of ${PRE_APPROVED_REASONS.join(', ')} or left out.`,
          ),
        );
    }
    const back = new URL(callback);
    // `state` is echoed only when the link carried one (App Store installs carry none).
    const state: Record<string, string> = form.state !== undefined ? { state: form.state } : {};
    if (choice.decision === 'deny') {
      back.search = new URLSearchParams({ code: 'null', error: 'auth_denied', ...state }).toString();
    } else {
      const grant: Grant = { account: choice.account, shops, market, refused: refuse ? [refuse] : [] };
      if (choice.decision === 'allow') {
        consented(context, TRACK, choice.account);
        products.store.authorized(choice.account, sandboxShops(choice.account, shops, market)[0]!.id);
      }
      if (choice.decision === 'allow' && stock !== '') products.stock(grant, stock as StockChoice);
      if (choice.decision === 'allow') products.lack(grant, (pending || null) as PreApprovedReason | null);
      const code = tokens.issue(
        'tiktok-code',
        { n: tokens.nonce(), ...claimsOf(grant), f: choice.decision === 'fail' },
        new Date(clock.nowMs() + CODE_TTL_MS),
      );
      back.search = new URLSearchParams({ code, ...state }).toString();
    }
    return reply.redirect(back.toString(), 302);
  });

  /** Both tokens for a grant; the refresh token keeps the authorization's expiry across refreshes. */
  const issueTokens = (grant: Grant, refreshExpiresAt: Date) => {
    const now = clock.now();
    const accessExpiresAt = new Date(
      now.getTime() + (context.accessTokenTtlSeconds === null ? ACCESS_TTL_MS : context.accessTokenTtlSeconds * 1000),
    );
    const claims = claimsOf(grant);
    return envelope({
      access_token: TOKEN_PREFIX + tokens.issue('tiktok-access', claims, accessExpiresAt),
      access_token_expire_in: Math.floor(accessExpiresAt.getTime() / 1000),
      refresh_token: TOKEN_PREFIX + tokens.issue('tiktok-refresh', { ...claims, n: tokens.nonce() }, refreshExpiresAt),
      refresh_token_expire_in: Math.floor(refreshExpiresAt.getTime() / 1000),
      open_id: `70107360${String(grant.account).padStart(11, '0')}`,
      seller_name: `Sandbox TikTok Seller ${grant.account}`,
      seller_base_region: grant.market,
      user_type: 0,
      granted_scopes: SCOPES.map(([key]) => key).filter((key) => !grant.refused.includes(key)),
    });
  };
  const inspectToken = (kind: string, raw: string | undefined) => inspectTokenOf(tokens, clock, kind, raw);
  const clientError = (query: Params): TikTokError | null => {
    if (query.app_key !== CLIENT.appKey) return ERRORS.invalidAppKey;
    return query.app_secret === CLIENT.appSecret ? null : ERRORS.invalidAppSecret;
  };

  app.get('/api/v2/token/get', async (request, reply) => {
    countCall(context, TRACK, 'token');
    if (await faults.apply(TRACK, 'token', reply, faultAnswers('token'))) return reply;
    const query = firstValues(request.query);
    const refused = clientError(query);
    if (refused) return fail(reply, refused);
    if (query.grant_type !== 'authorized_code') return fail(reply, ERRORS.invalidGrantType('authorized_code'));
    const now = clock.now();
    const code = tokens.read('tiktok-code', query.auth_code ?? '', now);
    if (!code || !tokens.useOnce(String(code.n), new Date(Number(code.x)), now) || code.f === true) return fail(reply, ERRORS.noAuthRecord);
    return reply.send(issueTokens(grantOf(code), new Date(now.getTime() + REFRESH_TTL_MS)));
  });

  // Whether a refresh rotates the refresh token is UNCONFIRMED (platforms.md §2.4): here each refresh issues a new
  // one with the same expiry, and the old one stays valid until then.
  app.get('/api/v2/token/refresh', async (request, reply) => {
    countCall(context, TRACK, 'refresh');
    if (await faults.apply(TRACK, 'token', reply, faultAnswers('token'))) return reply;
    const query = firstValues(request.query);
    const refused = clientError(query);
    if (refused) return fail(reply, refused);
    if (query.grant_type !== 'refresh_token') return fail(reply, ERRORS.invalidGrantType('refresh_token'));
    const refresh = inspectToken('tiktok-refresh', query.refresh_token);
    if (!refresh || isRevoked(context, TRACK, refresh.grant.account)) return fail(reply, ERRORS.noAuthRecord);
    if (refresh.expired) return fail(reply, ERRORS.refreshTokenExpired);
    return reply.send(issueTokens(refresh.grant, new Date(Number(refresh.claims.x))));
  });

  /** Why a Get Authorized Shops request is refused, or null: its query, its signature, then its content type. */
  const shopsRequestError = (url: string, headers: Record<string, unknown>, query: Params): TikTokError | null => {
    const unexpected = Object.keys(query).find((key) => !SHOPS_QUERY.has(key));
    if (unexpected !== undefined) return unexpectedParameter(unexpected);
    if (query.app_key !== CLIENT.appKey) return ERRORS.invalidAppKey;
    if (!query.sign) return ERRORS.missingSign;
    const timestampError = timestampErrorOf(query.timestamp, Math.floor(clock.nowMs() / 1000));
    if (timestampError) return timestampError;
    const contentType = typeof headers['content-type'] === 'string' ? headers['content-type'] : undefined;
    if (!hasValidSign({ path: SHOPS_PATH, rawQuery: rawQueryOf(url), body: '', contentType }, CLIENT.appSecret)) return ERRORS.invalidSign;
    if (mediaTypeOf(contentType) !== 'application/json') return ERRORS.contentType;
    return null;
  };

  app.get(SHOPS_PATH, async (request, reply) => {
    countCall(context, TRACK, 'identity');
    if (await faults.apply(TRACK, 'identity', reply, faultAnswers('identity'))) return reply;
    const refused = shopsRequestError(request.url, request.headers, firstValues(request.query));
    if (refused) return fail(reply, refused);
    const header = request.headers['x-tts-access-token'];
    const access = inspectToken('tiktok-access', typeof header === 'string' ? header : undefined);
    if (!access) return fail(reply, ERRORS.invalidAccessToken);
    if (access.expired) return fail(reply, ERRORS.expiredAccessToken);
    const { account, shops, market } = access.grant;
    const data = { shops: sandboxShops(account, shops, market) };
    return reply.send({ code: 0, message: 'Success', request_id: requestId(), data });
  });
}

/** The market a consent form asks for: the US when absent or empty, null for one the sandbox has not. */
function marketOf(value: string | undefined): Market | null {
  if (value === undefined || value === '') return DEFAULT_MARKET;
  return MARKETS.find((market) => market === value) ?? null;
}

/** The number of shops a consent form asks for: 1 when absent or empty, null for anything but 1 to MAX_SHOPS. */
function shopCountOf(value: string | undefined): number | null {
  if (value === undefined || value === '') return 1;
  return /^[1-9]$/.test(value) && Number(value) <= MAX_SHOPS ? Number(value) : null;
}
