/**
 * The Amazon Ads simulator (platforms.md §4, DESIGN §6), one instance per region as Amazon has (§4.1): LWA's grant
 * page and redirect back, LWA's token endpoint, and `GET /v2/profiles` answering with the region's profiles only. A
 * code or token is good only in the region it was granted in. NA is served at `/sandbox/amazon-ads`, EU and FE under
 * `/eu` and `/fe` of it.
 */
import type { FastifyInstance } from 'fastify';
import { AMAZON_REGIONS, type AmazonRegion } from '../../domain/index.js';
import { firstValues } from '../../lib/params.js';
import { SANDBOX_MARKETPLACES } from '../amazon-marketplaces.js';
import { type ConsentOption, consentChoice, renderConsentPage, renderSandboxError } from '../consent-page.js';
import { consented, countCall, SANDBOX_CLIENTS, type SandboxContext } from '../context.js';
import type { FaultAnswers } from '../faults.js';
import { createLwaSimulator, deniedParams, type LwaSimulator, redirectBack, sandboxSellerId } from '../lwa/simulator.js';

type Params = Record<string, string | undefined>;
const CLIENT = SANDBOX_CLIENTS.amazonAds;
const NAME = 'Amazon Ads';
const KNOWN_SCOPES = ['advertising::campaign_management', 'advertising::test:create_account', 'profile'];

/**
 * The profiles of a sandbox account in a region, in the shape of `GET /v2/profiles` (platforms.md §4.4). An account
 * granted with `profiles=none` on the consent form advertises nowhere: an empty list.
 */
export function sandboxProfiles(account: number, region: AmazonRegion = 'NA', withProfiles = true) {
  if (!withProfiles) return [];
  const regionIndex = AMAZON_REGIONS.indexOf(region);
  // Odd account numbers advertise in both of the region's marketplaces, even ones in the first.
  return SANDBOX_MARKETPLACES[region].slice(0, account % 2 === 1 ? 2 : 1).map((marketplace, index) => ({
    profileId: 1_400_000_000_000_000 + account * 100 + regionIndex * 10 + index,
    countryCode: marketplace.adsCountryCode,
    currencyCode: marketplace.currency,
    dailyBudget: 100,
    timezone: marketplace.timezone,
    accountInfo: {
      marketplaceStringId: marketplace.id,
      id: sandboxSellerId(account),
      type: 'seller',
      name: `Sandbox Amazon Seller ${account}`,
      validPaymentMethod: true,
    },
  }));
}

/** An account that advertises nowhere in the region: its profile list is empty. */
const PROFILES_OPTION: ConsentOption = {
  name: 'profiles',
  label: 'Advertising profiles',
  values: [
    ['', "The account's profiles in this region"],
    ['none', 'None: the account does not advertise in this region'],
  ],
};

export function registerAmazonAdsSimulator(app: FastifyInstance, context: SandboxContext, region: AmazonRegion, lwa: LwaSimulator) {
  const registered = context.callbackUrl('amazon-ads');
  const base = `/sandbox/amazon-ads${region === 'NA' ? '' : `/${region.toLowerCase()}`}`;

  /** An unknown client or a return URL not on the Allowed Return URLs list gets an error page, never a redirect (RFC 6749 §4.1.2.1). */
  const pageProblem = (p: Params) => {
    if (p.client_id !== CLIENT.clientId) return 'Unknown client_id.';
    if (p.redirect_uri !== registered) return "The redirect_uri is not one of the security profile's Allowed Return URLs.";
    return null;
  };
  /** Other problems go back to the client as RFC 6749 errors. */
  const redirectedProblem = (p: Params): Params | null => {
    if (p.response_type !== 'code')
      return { error: 'unsupported_response_type', error_description: 'response_type must be code', state: p.state };
    const scopes = (p.scope ?? '').split(' ').filter(Boolean);
    if (scopes.length === 0 || scopes.some((s) => !KNOWN_SCOPES.includes(s)))
      return { error: 'invalid_scope', error_description: 'An unknown scope was requested', state: p.state };
    return null;
  };

  app.get('/authorize', async (request, reply) => {
    countCall(context, 'amazon-ads', 'authorize');
    const query = request.query as Params;
    const problem = pageProblem(query);
    if (problem) return reply.code(400).type('text/html').send(renderSandboxError(NAME, problem));
    const refused = redirectedProblem(query);
    if (refused) return reply.redirect(redirectBack(query.redirect_uri!, refused), 302);
    const params = firstValues(query);
    return reply.type('text/html').send(
      renderConsentPage({
        platformName: NAME,
        appName: 'Storelink',
        access: query.scope!.split(' ').filter(Boolean),
        action: `${base}/authorize`,
        params,
        options: [PROFILES_OPTION],
      }),
    );
  });

  app.post('/authorize', async (request, reply) => {
    countCall(context, 'amazon-ads', 'consent');
    const form = (request.body ?? {}) as Params;
    const choice = consentChoice(reply, NAME, form, pageProblem(form));
    if (!choice) return reply;
    if (choice.decision === 'allow') consented(context, 'amazon-ads', choice.account);
    const { account } = choice;
    const refused = redirectedProblem(form);
    if (refused) return reply.redirect(redirectBack(form.redirect_uri!, refused), 302);
    if (form.decision === 'deny') return reply.redirect(redirectBack(form.redirect_uri!, deniedParams(form.state)), 302);
    const code = lwa.issueCode({
      account,
      redirectUri: form.redirect_uri!,
      fail: form.decision === 'fail',
      region,
      claims: { profiles: form.profiles !== 'none' },
    });
    return reply.redirect(redirectBack(form.redirect_uri!, { code, scope: form.scope, state: form.state }), 302);
  });

  lwa.registerTokenEndpoint(app, region);

  /** The error classes a test can ask for (src/sandbox/faults.ts), in the Ads API's `{code, details}` (UNCONFIRMED, below). */
  const PROFILE_FAULT_ANSWERS: FaultAnswers = {
    error: { code: 'INTERNAL_ERROR', details: 'Internal server error' },
    refused: { status: 401, body: { code: 'UNAUTHORIZED', details: 'Not authorized to access this advertiser' } },
    misconfigured: { status: 401, body: { code: 'UNAUTHORIZED', details: 'Invalid Amazon-Advertising-API-ClientId' } },
    passing: { status: 503, body: { code: 'SERVICE_UNAVAILABLE', details: 'Service unavailable' } },
    throttled: { status: 429, body: { code: '429', details: 'Too Many Requests' } },
  };
  // The Ads API's error body (`{code, details}`) follows third-party SDKs; no primary source was retrieved (UNCONFIRMED).
  app.get('/v2/profiles', async (request, reply) => {
    countCall(context, 'amazon-ads', 'identity');
    if (await context.faults.apply('amazon-ads', 'identity', reply, PROFILE_FAULT_ANSWERS)) return reply;
    if (request.headers['amazon-advertising-api-clientid'] !== CLIENT.clientId)
      return reply.code(401).send({ code: 'UNAUTHORIZED', details: 'Invalid Amazon-Advertising-API-ClientId' });
    const bearer = /^Bearer (\S+)$/.exec(String(request.headers.authorization ?? ''));
    const grant = bearer ? lwa.readAccessToken(bearer[1]!) : null;
    if (grant === null || grant.region !== region)
      return reply.code(401).send({ code: 'UNAUTHORIZED', details: 'Not authorized to access this advertiser' });
    return reply.send(sandboxProfiles(grant.account, region, grant.claims.profiles !== false));
  });
}

/** One LWA for the three regions: a code or token carries the region it was granted in, and each region's endpoints check it. */
export function createAmazonAdsLwa(context: SandboxContext): LwaSimulator {
  return createLwaSimulator(context, { track: 'amazon-ads', clientId: CLIENT.clientId, clientSecret: CLIENT.clientSecret });
}
