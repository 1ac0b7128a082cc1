/**
 * The sandbox Amazon Ads as a platform client calls it, with no adapter code: an access token through the LWA consent
 * and token endpoint of a region, then calls with the Ads headers (client id, bearer, profile scope, the entity's vendor
 * media type as Content-Type and Accept); and what a profile holds there (src/sandbox/amazon-ads/sp-store.ts), read as a
 * test asserts "the campaign is PAUSED on Amazon".
 */
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { type AdsHeld, adsHeld as heldOnSandbox } from '../../src/sandbox/amazon-ads/sp-store.js';
import { SANDBOX_CLIENTS } from '../../src/sandbox/context.js';
import { injectForm, type TestApp } from './test-app.js';

const ADS = SANDBOX_CLIENTS.amazonAds;
const REGIONS = { '': 0, '/eu': 1, '/fe': 2 } as const;
export type RegionPrefix = keyof typeof REGIONS;

/** What a profile holds on the sandbox Amazon Ads: its campaigns, ad groups, product ads and keywords, oldest first. */
export function adsHeld(t: TestApp, profileId: string | number): AdsHeld {
  return heldOnSandbox(t.deps.sandbox, profileId);
}

/** A sandbox account's profile id: `index` 0 is the region's first marketplace (US, UK, JP), 1 its second (odd accounts only). */
export const adsProfile = (account: number, prefix: RegionPrefix = '', index = 0) =>
  String(1_400_000_000_000_000 + account * 100 + REGIONS[prefix] * 10 + index);

/** An access token of the account, granted and redeemed in the region of `prefix` ('' is NA). */
export async function adsToken(t: TestApp, account: number, prefix: RegionPrefix = ''): Promise<string> {
  const redirectUri = t.deps.sandbox.callbackUrl('amazon-ads');
  const consent = await injectForm(t, `/sandbox/amazon-ads${prefix}/authorize`, {
    client_id: ADS.clientId,
    scope: 'advertising::campaign_management',
    response_type: 'code',
    redirect_uri: redirectUri,
    state: 'ads-state',
    decision: 'allow',
    account: String(account),
  });
  assert.equal(consent.statusCode, 302, consent.body);
  const code = new URL(consent.headers.location as string).searchParams.get('code')!;
  const token = await injectForm(t, `/sandbox/amazon-ads${prefix}/auth/o2/token`, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    client_id: ADS.clientId,
    client_secret: ADS.clientSecret,
  });
  assert.equal(token.statusCode, 200, token.body);
  return token.json().access_token as string;
}

/** The vendor media type of a path: the entity's for `/sp/<entities>…`, reporting's create request for `/reporting/…`. */
export function mediaOf(path: string): string {
  if (path.startsWith('/reporting/')) return 'application/vnd.createasyncreportrequest.v3+json';
  const entity = { campaigns: 'spCampaign', adGroups: 'spAdGroup', productAds: 'spProductAd', keywords: 'spKeyword' }[path.split('/')[2]!];
  return `application/vnd.${entity}.v3+json`;
}

export interface AdsCaller {
  token: string;
  profile: string;
  prefix?: RegionPrefix;
}

/** A call with every Ads header; `headers` replaces or (with undefined) removes some. */
export function adsCall(
  t: TestApp,
  who: AdsCaller,
  method: 'GET' | 'POST' | 'PUT',
  path: string,
  body?: unknown,
  headers: Record<string, string | undefined> = {},
): Promise<LightMyRequestResponse> {
  const media = mediaOf(path);
  const all: Record<string, string | undefined> = {
    'amazon-advertising-api-clientid': ADS.clientId,
    authorization: `Bearer ${who.token}`,
    'amazon-advertising-api-scope': who.profile,
    ...(body === undefined ? {} : { 'content-type': media }),
    accept: media,
    ...headers,
  };
  const sent = Object.fromEntries(Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined));
  return t.app.inject({
    method,
    url: `/sandbox/amazon-ads${who.prefix ?? ''}${path}`,
    headers: sent,
    ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}
