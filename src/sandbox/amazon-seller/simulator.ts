/**
 * The Amazon seller simulator (platforms.md §3, DESIGN §6), one instance per region: Seller Central's consent page at
 * its real path `/apps/authorize/consent` (and at `/authorize`, DESIGN §6's contract) with the redirect back, the
 * Sellers API's `getMarketplaceParticipations` on the region's SP-API host, and (NA's instance only) LWA's token
 * endpoint, which serves every region as `api.amazon.com` does. NA is served at `/sandbox/amazon-seller`, EU and FE
 * under `/eu` and `/fe` of it. The listing APIs are served from listings-api.ts (DESIGN §10), the Orders API and the
 * buyer's side from orders.ts (DESIGN §14), the Notifications API from notifications.ts. Amazon's order notifications
 * (ORDER_CHANGE) go to an SQS queue, never to an HTTP endpoint: the sandbox's queue is served once, at NA's base
 * (`/sqs/`, sqs.ts), as AWS's own endpoint would be, for every region's destinations.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AmazonRegion } from '../../domain/index.js';
import { firstValues } from '../../lib/params.js';
import { SANDBOX_MARKETPLACES } from '../amazon-marketplaces.js';
import { type ConsentOption, consentChoice, renderConsentPage, renderSandboxError } from '../consent-page.js';
import { consented, countCall, SANDBOX_CLIENTS, type SandboxContext } from '../context.js';
import type { FaultAnswers } from '../faults.js';
import { createLwaSimulator, deniedParams, GRANTLESS_SCOPES, type LwaSimulator, redirectBack, sandboxSellerId } from '../lwa/simulator.js';
import { registerAmazonListingsApi } from './listings-api.js';
import { DENIED, tokenRefusal } from './listings-guard.js';
import { LARGE_STOCK, STOCK_CHOICES, type StockChoice } from './listings-stock.js';
import { registerAmazonNotificationsApi } from './notifications.js';
import { registerAmazonOrdersApi, registerAmazonOrdersSandbox } from './orders.js';
import { registerSandboxSqs } from './sqs.js';

type Params = Record<string, string | undefined>;
const CLIENT = SANDBOX_CLIENTS.amazonSeller;
const NAME = 'Amazon Seller Central';

/** The store name of a sandbox seller account. */
export function sandboxStoreName(account: number): string {
  return `Sandbox Amazon Store ${account}`;
}

/** SP-API's error answer (`{errors: [{code, message, details}]}`). */
const spApiError = (code: string, message: string) => ({ errors: [{ code, message, details: '' }] });

/**
 * The sandbox's choice of the account's existing listings: `stocked` and `stocked-large` give it listings made outside
 * Storelink in the region's first marketplace (listings-stock.ts), to try an import. Optional; absent (or empty) is an
 * account without listings.
 */
const LISTINGS_OPTION: ConsentOption = {
  name: 'listings',
  label: "The sandbox seller's existing listings",
  values: [
    ['', 'No listings yet'],
    ['stocked', '6 listings made outside Storelink (to try an import)'],
    ['stocked-large', `${6 + LARGE_STOCK} listings (more than searchListingsItems pages through)`],
  ],
};
const LISTINGS_CHOICES: readonly string[] = ['', ...STOCK_CHOICES];

/** The error classes a test can ask for on the Sellers API (src/sandbox/faults.ts), in SP-API's error shape. */
const IDENTITY_FAULT_ANSWERS: FaultAnswers = {
  error: spApiError('InternalFailure', 'We encountered an internal error. Please try again.'),
  refused: { status: 403, body: tokenRefusal(false) },
  misconfigured: { status: 403, body: spApiError('Unauthorized', DENIED) },
  passing: { status: 503, body: spApiError('ServiceUnavailable', 'Service temporarily unavailable.') },
  throttled: { status: 429, body: spApiError('QuotaExceeded', 'You exceeded your quota for the requested resource.') },
};

/** The region's simulator; `lwa` is shared by the three, so a code from any region's consent is redeemed at one token URL. */
export function registerAmazonSellerSimulator(app: FastifyInstance, context: SandboxContext, region: AmazonRegion, lwa: LwaSimulator) {
  const registered = context.callbackUrl('amazon-seller');
  const base = `/sandbox/amazon-seller${region === 'NA' ? '' : `/${region.toLowerCase()}`}`;
  const listings = registerAmazonListingsApi(app, context, region, lwa);
  registerAmazonOrdersApi(app, context, region, lwa);
  registerAmazonNotificationsApi(app, context, region, lwa);
  if (region === 'NA') {
    registerAmazonOrdersSandbox(app, context);
    registerSandboxSqs(app, context);
  }

  /**
   * Seller Central shows an error page and never redirects for an unknown app or redirect URI. The sandbox app is
   * published: `version=beta` is for Draft apps only (platforms.md §3.1); what Amazon does with it on a published app
   * is not documented, and the simulator refusing it is an ASSUMPTION.
   */
  const requestProblem = (p: Params) => {
    if (p.application_id !== CLIENT.appId) return 'Unknown application_id.';
    // An omitted redirect_uri means the first registered one (platforms.md §3.1).
    if (p.redirect_uri !== undefined && p.redirect_uri !== registered)
      return 'MD5101: the redirect_uri does not match a registered redirect URI.';
    if (p.version !== undefined) return 'version=beta is only for apps in Draft; this app is published.';
    if (!p.state) return 'state is required.';
    if (p.listings !== undefined && !LISTINGS_CHOICES.includes(p.listings))
      return `listings must be one of ${STOCK_CHOICES.join(', ')} or left out.`;
    return null;
  };

  const consentPage = (path: string) => async (request: FastifyRequest, reply: FastifyReply) => {
    countCall(context, 'amazon-seller', 'authorize');
    const query = request.query as Params;
    const problem = requestProblem(query);
    if (problem) return reply.code(400).type('text/html').send(renderSandboxError(NAME, problem));
    const params = firstValues(query);
    const access = [`Selling Partner API access to your seller account in the ${region} region, for the roles the app is registered with`];
    return reply.type('text/html').send(
      renderConsentPage({
        platformName: NAME,
        appName: 'Storelink',
        access,
        action: `${base}${path}`,
        params,
        options: [LISTINGS_OPTION],
      }),
    );
  };

  const consent = async (request: FastifyRequest, reply: FastifyReply) => {
    countCall(context, 'amazon-seller', 'consent');
    const form = (request.body ?? {}) as Params;
    const choice = consentChoice(reply, NAME, form, requestProblem(form));
    if (!choice) return reply;
    if (choice.decision === 'allow') consented(context, 'amazon-seller', choice.account);
    const { account } = choice;
    const redirectUri = form.redirect_uri ?? registered;
    // ASSUMPTION: Amazon does not document what Cancel sends back (platforms.md §3.2); the simulator sends RFC 6749's refusal.
    if (form.decision === 'deny') return reply.redirect(redirectBack(redirectUri, deniedParams(form.state)), 302);
    if (form.decision === 'allow' && STOCK_CHOICES.includes(form.listings as StockChoice))
      listings.stock(account, form.listings as StockChoice);
    // Not a hybrid (MWS) app, so no mws_auth_token.
    const code = lwa.issueCode({ account, redirectUri, fail: form.decision === 'fail', region });
    return reply.redirect(
      redirectBack(redirectUri, { state: form.state, selling_partner_id: sandboxSellerId(account), spapi_oauth_code: code }),
      302,
    );
  };

  for (const path of ['/apps/authorize/consent', '/authorize']) {
    app.get(path, consentPage(path));
    app.post(path, consent);
  }

  /**
   * Sellers API getMarketplaceParticipations: the access token in `x-amz-access-token`; a token granted in another
   * region is refused, as the regional endpoints each serve their own region's authorizations.
   */
  app.get('/sellers/v1/marketplaceParticipations', async (request, reply) => {
    countCall(context, 'amazon-seller', 'identity');
    if (await context.faults.apply('amazon-seller', 'identity', reply, IDENTITY_FAULT_ANSWERS)) return reply;
    const token = String(request.headers['x-amz-access-token'] ?? '');
    const grant = lwa.readAccessToken(token);
    if (!grant || grant.region !== region) return reply.code(403).send(tokenRefusal(lwa.isExpiredAccessToken(token)));
    return reply.send({
      payload: SANDBOX_MARKETPLACES[region].map((marketplace) => ({
        marketplace: {
          id: marketplace.id,
          countryCode: marketplace.countryCode,
          name: marketplace.name,
          defaultCurrencyCode: marketplace.currency,
          defaultLanguageCode: 'en_US',
          domainName: `www.${marketplace.name.toLowerCase()}`,
        },
        participation: { isParticipating: true, hasSuspendedListings: false },
        storeName: sandboxStoreName(grant.account),
      })),
    });
  });
}

/** The LWA half every region shares: one token endpoint for all, at NA's base. */
export function createAmazonSellerLwa(context: SandboxContext): LwaSimulator {
  return createLwaSimulator(context, {
    track: 'amazon-seller',
    clientId: CLIENT.lwaClientId,
    clientSecret: CLIENT.lwaClientSecret,
    grantlessScopes: GRANTLESS_SCOPES,
  });
}
