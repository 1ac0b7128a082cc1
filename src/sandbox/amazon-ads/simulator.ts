/**
 * The Amazon Ads simulator (platforms.md §4, DESIGN §6), one instance per region as Amazon has (§4.1): LWA's grant
 * page and redirect back, LWA's token endpoint, and `GET /v2/profiles` answering with the region's profiles only. A
 * code or token is good only in the region it was granted in. NA is served at `/sandbox/amazon-ads`, EU and FE under
 * `/eu` and `/fe` of it.
 *
 * Campaign management and reporting (listings.md §4, DESIGN §13; ads-api.ts and the files it registers):
 * - Every `/sp/*` and `/reporting/*` call: `Amazon-Advertising-API-ClientId` the sandbox client (else 401 `{code:
 *   'UNAUTHORIZED', details: 'Invalid Amazon-Advertising-API-ClientId'}`), `Authorization: Bearer` an access token of
 *   this region whose grant was not revoked (else 401), `Amazon-Advertising-API-Scope` one of the account's profiles in
 *   this region (400 when missing, 403 otherwise); then the profile's token bucket (429 `{code: '429', details: 'Too
 *   Many Requests'}` with `Retry-After`), then the vendor media type as Content-Type (415) and in Accept (406; no Accept
 *   takes any). Faults: `POST /sandbox/faults {track: 'amazon-ads', endpoint: 'advertising' | 'reports'}`.
 * - Sponsored Products v3 (sp-api.ts): campaigns, ad groups, product ads and keywords per profile, in memory per
 *   running sandbox (sp-store.ts: `adsStoreOf(context)`, `adsHeld(context, profileId)`, and `GET
 *   /sandbox/amazon-ads/state?profile_id=`). Create, update and delete answer 207 item by item; delete archives, and
 *   archived is final. Budgets and bids within the marketplace's bounds (sp-bounds.ts).
 * - Reporting v3 (reporting.ts): the advertised-product report only, PROCESSING at the first look and COMPLETED at the
 *   next, its file at an S3-like presigned link (report-files.ts) with figures made deterministically from the ad id and
 *   the day (metrics.ts).
 * ASSUMPTIONs (each said where it is made): the `{code, details}` words of the gateway's refusals and of a revoked
 * grant's 401; 10 calls a second per profile with a burst of 10 (Amazon's limits are dynamic); budgets other than the
 * US dollar's and bid maxima other than the US dollar's; the 128- and 255-character names; the error type of an asin
 * on a seller profile (otherError) and of a keyword in an AUTO campaign (entityStateError); a SKU or keyword repeated
 * in an ad group refused as duplicateValueError; a list without stateFilter answering every state; startDate
 * defaulting to today in UTC; the reporting answer media types accepted; links lasting an hour; clickThroughRate as a
 * fraction. Sandbox limits (not Amazon's): only spAdvertisedProduct, DAILY, GZIP_JSON, no report filters; reports
 * never FAIL; a SKU is not checked against the seller's listings.
 */
import type { FastifyInstance } from 'fastify';
import type { AmazonRegion } from '../../domain/index.js';
import { firstValues } from '../../lib/params.js';
import { type ConsentOption, consentChoice, renderConsentPage, renderSandboxError } from '../consent-page.js';
import { consented, countCall, SANDBOX_CLIENTS, type SandboxContext } from '../context.js';
import { createLwaSimulator, deniedParams, type LwaSimulator, redirectBack } from '../lwa/simulator.js';
import { registerAmazonAdsApi } from './ads-api.js';
import { sandboxProfiles } from './profiles.js';
import { ADS_FAULT_ANSWERS, adsError } from './sp-errors.js';

export { sandboxProfiles } from './profiles.js';

type Params = Record<string, string | undefined>;
const CLIENT = SANDBOX_CLIENTS.amazonAds;
const NAME = 'Amazon Ads';
const KNOWN_SCOPES = ['advertising::campaign_management', 'advertising::test:create_account', 'profile'];

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
  const track = `/amazon-ads${region === 'NA' ? '' : `/${region.toLowerCase()}`}`;
  const base = `/sandbox${track}`;
  registerAmazonAdsApi(app, context, region, lwa, `${context.sandboxUrl}${track}`);

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

  app.get('/v2/profiles', async (request, reply) => {
    countCall(context, 'amazon-ads', 'identity');
    if (await context.faults.apply('amazon-ads', 'identity', reply, ADS_FAULT_ANSWERS)) return reply;
    if (request.headers['amazon-advertising-api-clientid'] !== CLIENT.clientId)
      return reply.code(401).send(adsError('UNAUTHORIZED', 'Invalid Amazon-Advertising-API-ClientId'));
    const bearer = /^Bearer (\S+)$/.exec(String(request.headers.authorization ?? ''));
    const grant = bearer ? lwa.readAccessToken(bearer[1]!) : null;
    if (grant === null || grant.region !== region)
      return reply.code(401).send(adsError('UNAUTHORIZED', 'Not authorized to access this advertiser'));
    return reply.send(sandboxProfiles(grant.account, region, grant.claims.profiles !== false));
  });
}

/** One LWA for the three regions: a code or token carries the region it was granted in, and each region's endpoints check it. */
export function createAmazonAdsLwa(context: SandboxContext): LwaSimulator {
  return createLwaSimulator(context, { track: 'amazon-ads', clientId: CLIENT.clientId, clientSecret: CLIENT.clientSecret });
}
