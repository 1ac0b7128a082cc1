/**
 * The sandbox Amazon Ads holds requests to Sponsored Products v3's and reporting v3's rules (listings.md §4, DESIGN §13),
 * driven over HTTP as a platform client calls them, with no adapter code: the headers every call needs, 207 answers item
 * by item, the marketplaces' bounds, lists, changes, archiving, throttling, faults, and the asynchronous report whose
 * figures are the same each time it is asked. Titles name what Amazon does not document as an ASSUMPTION.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { setAmazonAdsRateLimit } from '../../../src/sandbox/amazon-ads/rate-limits.js';
import { type AdsCaller, adsCall, adsHeld, adsProfile, adsToken, type RegionPrefix } from '../../helpers/ads-sandbox.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';

const DAY_MS = 86_400_000;
const COLUMNS = [
  'date',
  'campaignId',
  'campaignName',
  'adGroupId',
  'adId',
  'advertisedSku',
  'advertisedAsin',
  'impressions',
  'clicks',
  'cost',
  'purchases1d',
  'purchases7d',
  'purchases14d',
  'purchases30d',
  'sales7d',
  'unitsSoldClicks7d',
  'costPerClick',
  'clickThroughRate',
];

let t: TestApp;
before(async () => {
  t = await createTestApp('pglite');
});
after(() => t.close());
beforeEach(() => {
  // The throttling has a test of its own; the others must not wait on a clock that does not move.
  setAmazonAdsRateLimit(t.deps.sandbox, 1_000_000);
  t.deps.sandbox.faults.clear();
});

const today = () => t.clock.now().toISOString().slice(0, 10);
const dayOffset = (days: number) => new Date(t.clock.now().getTime() + days * DAY_MS).toISOString().slice(0, 10);

async function caller(account: number, prefix: RegionPrefix = '', index = 0): Promise<AdsCaller> {
  return { token: await adsToken(t, account, prefix), profile: adsProfile(account, prefix, index), prefix };
}

const campaign = (name: string, budget = 10, targetingType = 'AUTO') => ({
  name,
  targetingType,
  state: 'ENABLED',
  budget: { budgetType: 'DAILY', budget },
});

/** Creates one entity and answers its id. */
async function made(who: AdsCaller, path: string, key: string, idField: string, item: object): Promise<string> {
  const answer = await adsCall(t, who, 'POST', path, { [key]: [item] });
  assert.equal(answer.statusCode, 207, answer.body);
  const success = answer.json()[key].success;
  assert.equal(success.length, 1, answer.body);
  return success[0][idField] as string;
}

/** A campaign with one ad group and a product ad per SKU. */
async function advertised(
  who: AdsCaller,
  name: string,
  options: { budget?: number; bid?: number; skus?: string[]; targeting?: string } = {},
) {
  const campaignId = await made(who, '/sp/campaigns', 'campaigns', 'campaignId', campaign(name, options.budget ?? 10, options.targeting));
  const adGroupId = await made(who, '/sp/adGroups', 'adGroups', 'adGroupId', {
    campaignId,
    name: `${name} group`,
    defaultBid: options.bid ?? 0.5,
    state: 'ENABLED',
  });
  const adIds: string[] = [];
  for (const sku of options.skus ?? [`${name}-SKU`])
    adIds.push(await made(who, '/sp/productAds', 'productAds', 'adId', { campaignId, adGroupId, sku, state: 'ENABLED' }));
  return { campaignId, adGroupId, adIds };
}

/** The first error of item `index` in a 207 answer's `key`. */
function itemError(
  body: Record<string, { error: { index: number; errors: { errorType: string; errorValue: Record<string, any> }[] }[] }>,
  key: string,
  index: number,
) {
  const item = body[key]!.error.find((entry) => entry.index === index);
  assert.ok(item, `item ${index} was refused: ${JSON.stringify(body)}`);
  const first = item.errors[0]!;
  return { type: first.errorType, ...first.errorValue[first.errorType] };
}

describe('Amazon Ads simulator: calling conventions', () => {
  test("every call needs the sandbox client id, a bearer of the region and one of the account's profiles in the Scope header", async () => {
    const who = await caller(31);
    const list = (headers: Record<string, string | undefined>, as = who) => adsCall(t, as, 'POST', '/sp/campaigns/list', {}, headers);
    assert.equal((await list({})).statusCode, 200);
    const wrongClient = await list({ 'amazon-advertising-api-clientid': 'someone-else' });
    assert.equal(wrongClient.statusCode, 401);
    assert.deepEqual(wrongClient.json(), { code: 'UNAUTHORIZED', details: 'Invalid Amazon-Advertising-API-ClientId' });
    assert.equal((await list({ authorization: 'Bearer Atza|forged' })).statusCode, 401);
    assert.equal((await list({ authorization: undefined })).statusCode, 401);
    const euToken = await adsToken(t, 31, '/eu');
    assert.equal((await list({ authorization: `Bearer ${euToken}` })).statusCode, 401, "a token of another region's grant");
    const missing = await list({ 'amazon-advertising-api-scope': undefined });
    assert.equal(missing.statusCode, 400);
    assert.match(missing.json().details, /Scope/);
    const foreign = await list({ 'amazon-advertising-api-scope': adsProfile(32) });
    assert.equal(foreign.statusCode, 403, "another account's profile");
    assert.deepEqual(Object.keys(foreign.json()).sort(), ['code', 'details']);
    assert.equal((await list({ 'amazon-advertising-api-scope': adsProfile(31, '/eu') })).statusCode, 403, 'a profile of another region');
    assert.equal((await list({}, { ...who, profile: adsProfile(31, '', 1) })).statusCode, 200, "the account's second marketplace (CA)");
  });

  test("ASSUMPTION: a revoked grant's access token is refused at once (401)", async () => {
    const who = await caller(33);
    const revoked = await t.app.inject({ method: 'POST', url: '/sandbox/revoke', payload: { track: 'amazon-ads', account: 33 } });
    assert.equal(revoked.statusCode, 204);
    const answer = await adsCall(t, who, 'POST', '/sp/campaigns/list', {});
    assert.equal(answer.statusCode, 401);
    assert.equal(answer.json().code, 'UNAUTHORIZED');
  });

  test("the entity's vendor media type is required as Content-Type (415) and must be acceptable (406)", async () => {
    const who = await caller(35);
    const body = { campaigns: [campaign('media')] };
    for (const contentType of [undefined, 'application/json', 'application/vnd.spAdGroup.v3+json', 'text/plain']) {
      const refused = await adsCall(t, who, 'POST', '/sp/campaigns', body, { 'content-type': contentType });
      assert.equal(refused.statusCode, 415, String(contentType));
      assert.equal(refused.json().code, 'UNSUPPORTED_MEDIA_TYPE');
    }
    const notAcceptable = await adsCall(t, who, 'POST', '/sp/campaigns', body, { accept: 'application/json' });
    assert.equal(notAcceptable.statusCode, 406);
    assert.deepEqual(Object.keys(notAcceptable.json()).sort(), ['code', 'details']);
    assert.equal(adsHeld(t, who.profile).campaigns.length, 0, 'nothing refused was made');
    const withCharset = await adsCall(t, who, 'POST', '/sp/campaigns', body, {
      'content-type': 'application/vnd.spCampaign.v3+json; charset=utf-8',
    });
    assert.equal(withCharset.statusCode, 207, withCharset.body);
    const anyAnswer = await adsCall(t, who, 'POST', '/sp/campaigns/list', {}, { accept: '*/*' });
    assert.equal(anyAnswer.statusCode, 200);
  });

  test('more than 1000 items in one call is refused whole (400), and so is a body without its list', async () => {
    const who = await caller(37);
    const many = Array.from({ length: 1001 }, (_, i) => campaign(`bulk ${i}`));
    const refused = await adsCall(t, who, 'POST', '/sp/campaigns', { campaigns: many });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.json().details, /1000/);
    assert.equal((await adsCall(t, who, 'POST', '/sp/campaigns', {})).statusCode, 400);
    assert.equal(adsHeld(t, who.profile).campaigns.length, 0);
  });
});

describe('Amazon Ads simulator: Sponsored Products v3', () => {
  test('a batch answers 207 item by item: the good items are made while the others are refused with their error type and reason', async () => {
    const who = await caller(41);
    await made(who, '/sp/campaigns', 'campaigns', 'campaignId', campaign('Taken'));
    const answer = await adsCall(
      t,
      who,
      'POST',
      '/sp/campaigns',
      {
        campaigns: [
          campaign('Fresh'),
          campaign('Taken'),
          { targetingType: 'AUTO', state: 'ENABLED', budget: { budgetType: 'DAILY', budget: 5 } },
          campaign('x'.repeat(129)),
          { ...campaign('Odd'), targetingType: 'SOMETIMES' },
          campaign('Cheap', 0.5),
        ],
      },
      { prefer: 'return=representation' },
    );
    assert.equal(answer.statusCode, 207);
    const body = answer.json();
    assert.deepEqual(
      body.campaigns.success.map((s: { index: number }) => s.index),
      [0],
    );
    const fresh = body.campaigns.success[0];
    assert.match(fresh.campaignId, /^[0-9]{15}$/);
    assert.deepEqual(fresh.campaign, {
      campaignId: fresh.campaignId,
      name: 'Fresh',
      targetingType: 'AUTO',
      state: 'ENABLED',
      budget: { budgetType: 'DAILY', budget: 10 },
      startDate: today(),
      dynamicBidding: { strategy: 'LEGACY_FOR_SALES', placementBidding: [] },
    });
    assert.deepEqual(itemError(body, 'campaigns', 1), {
      type: 'duplicateValueError',
      reason: 'NAME_NOT_UNIQUE',
      cause: { location: '$.campaigns[1].name', trigger: 'Taken' },
      message: 'A campaign with this name already exists',
    });
    assert.equal(itemError(body, 'campaigns', 2).type, 'missingValueError');
    assert.equal(itemError(body, 'campaigns', 2).cause.location, '$.campaigns[2].name');
    assert.equal(itemError(body, 'campaigns', 3).reason, 'TOO_LONG');
    assert.equal(itemError(body, 'campaigns', 4).reason, 'INVALID_ENUM_VALUE');
    const cheap = itemError(body, 'campaigns', 5);
    assert.deepEqual([cheap.type, cheap.reason, cheap.lowerLimit], ['rangeError', 'TOO_LOW', '1']);
    assert.deepEqual(
      adsHeld(t, who.profile).campaigns.map((c) => c.name),
      ['Taken', 'Fresh'],
    );
    const plain = await adsCall(t, who, 'POST', '/sp/campaigns', { campaigns: [campaign('Plain')] });
    assert.deepEqual(Object.keys(plain.json().campaigns.success[0]).sort(), ['campaignId', 'index'], 'no entity without Prefer');
  });

  test("budgets and bids are held to the marketplace's bounds: 1 USD and 0.02 USD in the US, 100 JPY and 2 JPY in Japan", async () => {
    const us = await caller(43);
    const jp = await caller(43, '/fe');
    const budgetOf = async (who: AdsCaller, budget: number) => {
      const answer = await adsCall(t, who, 'POST', '/sp/campaigns', { campaigns: [campaign(`budget ${budget}`, budget)] });
      return answer.json().campaigns.success.length === 1 ? 'ok' : itemError(answer.json(), 'campaigns', 0).reason;
    };
    assert.equal(await budgetOf(us, 50), 'ok');
    assert.equal(await budgetOf(jp, 50), 'TOO_LOW');
    assert.equal(await budgetOf(jp, 100), 'ok');
    assert.equal(await budgetOf(us, 1_000_001), 'TOO_HIGH');
    assert.equal(await budgetOf(jp, 21_000_000), 'ok');

    const bidOf = async (who: AdsCaller, campaignId: string, defaultBid: number) => {
      const answer = await adsCall(t, who, 'POST', '/sp/adGroups', {
        adGroups: [{ campaignId, name: `bid ${defaultBid}`, defaultBid, state: 'ENABLED' }],
      });
      return answer.json().adGroups.success.length === 1 ? 'ok' : itemError(answer.json(), 'adGroups', 0).reason;
    };
    const usCampaign = await made(us, '/sp/campaigns', 'campaigns', 'campaignId', campaign('us bids'));
    const jpCampaign = await made(jp, '/sp/campaigns', 'campaigns', 'campaignId', campaign('jp bids', 1000));
    assert.equal(await bidOf(us, usCampaign, 0.01), 'TOO_LOW');
    assert.equal(await bidOf(us, usCampaign, 1), 'ok');
    assert.equal(await bidOf(us, usCampaign, 1000.01), 'TOO_HIGH');
    assert.equal(await bidOf(jp, jpCampaign, 1), 'TOO_LOW');
    assert.equal(await bidOf(jp, jpCampaign, 2), 'ok');
    assert.equal(await bidOf(jp, jpCampaign, 100_001), 'TOO_HIGH');
  });

  test('ad groups, product ads and keywords need a campaign (and an ad group of it) in the profile: entityNotFoundError', async () => {
    const us = await caller(45);
    const ca = await caller(45, '', 1);
    const { campaignId, adGroupId } = await advertised(us, 'Parent');
    const other = await advertised(us, 'Other');
    const elsewhere = await advertised(ca, 'Canadian');
    const answer = await adsCall(t, us, 'POST', '/sp/productAds', {
      productAds: [
        { campaignId: '399999999999999', adGroupId, sku: 'A', state: 'ENABLED' },
        { campaignId, adGroupId: other.adGroupId, sku: 'B', state: 'ENABLED' },
        { campaignId: elsewhere.campaignId, adGroupId: elsewhere.adGroupId, sku: 'C', state: 'ENABLED' },
        { campaignId, adGroupId, sku: 'D', state: 'ENABLED' },
      ],
    });
    const body = answer.json();
    assert.deepEqual(
      body.productAds.success.map((s: { index: number }) => s.index),
      [3],
    );
    const unknown = itemError(body, 'productAds', 0);
    assert.deepEqual([unknown.type, unknown.entityType, unknown.entityId], ['entityNotFoundError', 'CAMPAIGN', '399999999999999']);
    assert.equal(itemError(body, 'productAds', 1).entityType, 'AD_GROUP', 'an ad group of another campaign');
    assert.equal(itemError(body, 'productAds', 2).entityType, 'CAMPAIGN', "another profile's campaign");
    const group = await adsCall(t, us, 'POST', '/sp/adGroups', {
      adGroups: [{ campaignId: '1', name: 'g', defaultBid: 1, state: 'ENABLED' }],
    });
    assert.equal(itemError(group.json(), 'adGroups', 0).type, 'entityNotFoundError');
  });

  test("ASSUMPTION: a seller profile advertises by sku; an asin (a vendor's) is refused as an otherError", async () => {
    const who = await caller(47);
    const { campaignId, adGroupId } = await advertised(who, 'Seller', { skus: [] });
    const answer = await adsCall(t, who, 'POST', '/sp/productAds', {
      productAds: [
        { campaignId, adGroupId, asin: 'B0CATAL001', state: 'ENABLED' },
        { campaignId, adGroupId, sku: 'MUG-1', state: 'ENABLED' },
      ],
    });
    const body = answer.json();
    assert.deepEqual(
      body.productAds.success.map((s: { index: number }) => s.index),
      [1],
    );
    assert.equal(itemError(body, 'productAds', 0).cause.location, '$.productAds[0].asin');
    const held = adsHeld(t, who.profile).productAds;
    assert.deepEqual(
      held.map((ad) => ad.sku),
      ['MUG-1'],
    );
    assert.match(held[0]!.asin, /^B0[0-9A-Z]{8}$/);
  });

  test('keywords go only into MANUAL campaigns, with text of at most 10 words and 80 characters', async () => {
    const who = await caller(49);
    const auto = await advertised(who, 'Auto');
    const manual = await advertised(who, 'Manual', { targeting: 'MANUAL' });
    const keyword = (where: { campaignId: string; adGroupId: string }, keywordText: string, extra: object = {}) => ({
      campaignId: where.campaignId,
      adGroupId: where.adGroupId,
      keywordText,
      matchType: 'EXACT',
      state: 'ENABLED',
      ...extra,
    });
    const answer = await adsCall(t, who, 'POST', '/sp/keywords', {
      keywords: [
        keyword(auto, 'walnut coasters'),
        keyword(manual, 'walnut coasters', { bid: 0.6 }),
        keyword(manual, 'one two three four five six seven eight nine ten eleven'),
        keyword(manual, 'x'.repeat(81)),
        keyword(manual, '   '),
        keyword(manual, 'mugs', { matchType: 'FUZZY' }),
        keyword(manual, 'cheap mugs', { bid: 0.01 }),
        keyword(manual, 'stoneware mug', { matchType: 'PHRASE' }),
      ],
    });
    const body = answer.json();
    assert.deepEqual(
      body.keywords.success.map((s: { index: number }) => s.index),
      [1, 7],
    );
    const inAuto = itemError(body, 'keywords', 0);
    assert.deepEqual([inAuto.type, inAuto.reason], ['entityStateError', 'PARENT_ENTITY_FORBIDS_CREATION']);
    assert.deepEqual([itemError(body, 'keywords', 2).type, itemError(body, 'keywords', 2).reason], ['malformedValueError', 'TOO_LONG']);
    assert.equal(itemError(body, 'keywords', 3).reason, 'TOO_LONG');
    assert.equal(itemError(body, 'keywords', 4).reason, 'BLANK');
    assert.equal(itemError(body, 'keywords', 5).reason, 'INVALID_ENUM_VALUE');
    assert.equal(itemError(body, 'keywords', 6).reason, 'TOO_LOW');
    assert.deepEqual(
      adsHeld(t, who.profile).keywords.map((k) => [k.keywordText, k.matchType, k.bid]),
      [
        ['walnut coasters', 'EXACT', 0.6],
        ['stoneware mug', 'PHRASE', undefined],
      ],
    );
  });

  test('lists select by ids, exact name and state, count totalResults, and page with maxResults and nextToken', async () => {
    const who = await caller(51);
    const first = await advertised(who, 'List one', { skus: ['L1', 'L2'] });
    const second = await advertised(who, 'List two');
    await adsCall(t, who, 'PUT', '/sp/campaigns', { campaigns: [{ campaignId: second.campaignId, state: 'PAUSED' }] });
    const list = async (path: string, body: object) => {
      const answer = await adsCall(t, who, 'POST', path, body);
      assert.equal(answer.statusCode, 200, answer.body);
      return answer.json();
    };
    const byName = await list('/sp/campaigns/list', { nameFilter: { queryTermMatchType: 'EXACT_MATCH', include: ['List two'] } });
    assert.deepEqual(
      byName.campaigns.map((c: { campaignId: string }) => c.campaignId),
      [second.campaignId],
    );
    assert.equal(byName.totalResults, 1);
    assert.deepEqual(Object.keys(byName.campaigns[0]).sort(), [
      'budget',
      'campaignId',
      'dynamicBidding',
      'name',
      'startDate',
      'state',
      'targetingType',
    ]);
    assert.equal(
      (await list('/sp/campaigns/list', { nameFilter: { queryTermMatchType: 'EXACT_MATCH', include: ['List'] } })).totalResults,
      0,
    );
    const enabled = await list('/sp/campaigns/list', { stateFilter: { include: ['ENABLED'] } });
    assert.deepEqual(
      enabled.campaigns.map((c: { campaignId: string }) => c.campaignId),
      [first.campaignId],
    );
    const byId = await list('/sp/campaigns/list', { campaignIdFilter: { include: [first.campaignId] } });
    assert.equal(byId.campaigns[0].name, 'List one');
    const groups = await list('/sp/adGroups/list', { campaignIdFilter: { include: [second.campaignId] } });
    assert.deepEqual(
      groups.adGroups.map((g: { adGroupId: string }) => g.adGroupId),
      [second.adGroupId],
    );
    const ads = await list('/sp/productAds/list', { adGroupIdFilter: { include: [first.adGroupId] } });
    assert.deepEqual(
      ads.productAds.map((a: { sku: string }) => a.sku),
      ['L1', 'L2'],
    );
    const page = await list('/sp/productAds/list', { adGroupIdFilter: { include: [first.adGroupId] }, maxResults: 1 });
    assert.equal(page.productAds.length, 1);
    assert.equal(page.totalResults, 2);
    const next = await list('/sp/productAds/list', {
      adGroupIdFilter: { include: [first.adGroupId] },
      maxResults: 1,
      nextToken: page.nextToken,
    });
    assert.equal(next.productAds[0].sku, 'L2');
    assert.equal(next.nextToken, undefined);
    const malformed = await adsCall(t, who, 'POST', '/sp/campaigns/list', { campaignIdFilter: { include: 'x' } });
    assert.equal(malformed.statusCode, 400);
  });

  test('PUT changes state, budget and bids, which the list and the held state show', async () => {
    const who = await caller(53);
    const { campaignId, adGroupId, adIds } = await advertised(who, 'Changing', { targeting: 'MANUAL' });
    const keywordId = await made(who, '/sp/keywords', 'keywords', 'keywordId', {
      campaignId,
      adGroupId,
      keywordText: 'walnut',
      matchType: 'BROAD',
      bid: 0.4,
      state: 'ENABLED',
    });
    const put = (path: string, key: string, item: object) =>
      adsCall(t, who, 'PUT', path, { [key]: [item] }, { prefer: 'return=representation' });
    const changed = await put('/sp/campaigns', 'campaigns', { campaignId, state: 'PAUSED', budget: { budgetType: 'DAILY', budget: 25.5 } });
    assert.equal(changed.statusCode, 207);
    assert.equal(changed.json().campaigns.success[0].campaign.state, 'PAUSED');
    await put('/sp/adGroups', 'adGroups', { adGroupId, defaultBid: 0.75 });
    await put('/sp/productAds', 'productAds', { adId: adIds[0], state: 'PAUSED' });
    await put('/sp/keywords', 'keywords', { keywordId, bid: 0.9 });
    const held = adsHeld(t, who.profile);
    assert.deepEqual([held.campaigns[0]!.state, held.campaigns[0]!.budget.budget], ['PAUSED', 25.5]);
    assert.equal(held.adGroups[0]!.defaultBid, 0.75);
    assert.equal(held.productAds[0]!.state, 'PAUSED');
    assert.equal(held.keywords[0]!.bid, 0.9);
    const tooHigh = await put('/sp/adGroups', 'adGroups', { adGroupId, defaultBid: 5000 });
    assert.equal(itemError(tooHigh.json(), 'adGroups', 0).reason, 'TOO_HIGH');
    const unknown = await put('/sp/productAds', 'productAds', { adId: '312345678901234', state: 'ENABLED' });
    assert.equal(itemError(unknown.json(), 'productAds', 0).entityType, 'PRODUCT_AD');
    const viaState = await put('/sp/campaigns', 'campaigns', { campaignId, state: 'ARCHIVED' });
    assert.equal(itemError(viaState.json(), 'campaigns', 0).reason, 'INVALID_ENUM_VALUE', 'archiving is /delete');
  });

  test('delete archives a campaign; archived is final, its ad groups are frozen, and its name is free again', async () => {
    const who = await caller(55);
    const { campaignId, adGroupId } = await advertised(who, 'Ending');
    const deleted = await adsCall(t, who, 'POST', '/sp/campaigns/delete', { campaignIdFilter: { include: [campaignId] } });
    assert.equal(deleted.statusCode, 207);
    assert.deepEqual(deleted.json().campaigns.success, [{ campaignId, index: 0 }]);
    assert.equal(adsHeld(t, who.profile).campaigns[0]!.state, 'ARCHIVED');
    const revived = await adsCall(t, who, 'PUT', '/sp/campaigns', { campaigns: [{ campaignId, state: 'ENABLED' }] });
    const refusal = itemError(revived.json(), 'campaigns', 0);
    assert.deepEqual([refusal.type, refusal.reason], ['entityStateError', 'ARCHIVED_ENTITY_CANNOT_BE_MODIFIED']);
    assert.match(refusal.message, /archived/);
    const again = await adsCall(t, who, 'POST', '/sp/campaigns/delete', { campaignIdFilter: { include: [campaignId] } });
    assert.equal(itemError(again.json(), 'campaigns', 0).reason, 'ARCHIVED_ENTITY_CANNOT_BE_MODIFIED');
    const child = await adsCall(t, who, 'PUT', '/sp/adGroups', { adGroups: [{ adGroupId, state: 'PAUSED' }] });
    assert.equal(itemError(child.json(), 'adGroups', 0).reason, 'PARENT_ARCHIVED_FORBIDS_UPDATES');
    const newChild = await adsCall(t, who, 'POST', '/sp/adGroups', {
      adGroups: [{ campaignId, name: 'late', defaultBid: 1, state: 'ENABLED' }],
    });
    assert.equal(itemError(newChild.json(), 'adGroups', 0).reason, 'PARENT_ENTITY_FORBIDS_CREATION');
    await made(who, '/sp/campaigns', 'campaigns', 'campaignId', campaign('Ending'));
    assert.deepEqual(
      adsHeld(t, who.profile).campaigns.map((c) => c.state),
      ['ARCHIVED', 'ENABLED'],
    );
    const adDeleted = await adsCall(t, who, 'POST', '/sp/adGroups/delete', { adGroupIdFilter: { include: ['398765432109876'] } });
    assert.equal(itemError(adDeleted.json(), 'adGroups', 0).type, 'entityNotFoundError');
  });

  test('ASSUMPTION: each profile has a bucket of 10 calls refilled at 10 a second; an empty one answers 429 with Retry-After', async () => {
    const who = await caller(57);
    const neighbour = await caller(57, '', 1);
    setAmazonAdsRateLimit(t.deps.sandbox, 1);
    const list = (as: AdsCaller) => adsCall(t, as, 'POST', '/sp/campaigns/list', {});
    for (let i = 0; i < 10; i++) assert.equal((await list(who)).statusCode, 200, `call ${i + 1}`);
    const throttled = await list(who);
    assert.equal(throttled.statusCode, 429);
    assert.equal(throttled.headers['retry-after'], '1');
    assert.deepEqual(throttled.json(), { code: '429', details: 'Too Many Requests' });
    assert.equal((await list(neighbour)).statusCode, 200, "another profile's bucket is its own");
    t.clock.advance(200);
    assert.equal((await list(who)).statusCode, 200, 'two tenths of a second give two calls');
    assert.equal((await list(who)).statusCode, 200);
    assert.equal((await list(who)).statusCode, 429);
  });

  test("faults on `advertising` and `reports` answer in the Ads API's words; a ghost makes the campaign and answers 500; calls are counted", async () => {
    const who = await caller(59);
    const callsOf = (endpoint: string) => t.deps.sandbox.calls.get(`amazon-ads:${endpoint}`) ?? 0;
    const before = callsOf('sp-campaigns');
    const fault = (endpoint: string, kind: string, extra: object = {}) =>
      t.app.inject({ method: 'POST', url: '/sandbox/faults', payload: { track: 'amazon-ads', endpoint, fault: kind, ...extra } });
    assert.equal((await fault('advertising', 'throttled', { retry_after: 7 })).statusCode, 204);
    const throttled = await adsCall(t, who, 'POST', '/sp/campaigns', { campaigns: [campaign('Faulted')] });
    assert.equal(throttled.statusCode, 429);
    assert.equal(throttled.headers['retry-after'], '7');
    assert.deepEqual(throttled.json(), { code: '429', details: 'Too Many Requests' });
    assert.equal((await fault('advertising', 'ghost')).statusCode, 204);
    const ghost = await adsCall(t, who, 'POST', '/sp/campaigns', { campaigns: [campaign('Ghost')] });
    assert.equal(ghost.statusCode, 500);
    assert.deepEqual(ghost.json(), { code: 'INTERNAL_ERROR', details: 'Internal server error' });
    assert.deepEqual(
      adsHeld(t, who.profile).campaigns.map((c) => c.name),
      ['Ghost'],
    );
    assert.equal((await fault('advertising', 'none')).statusCode, 204);
    assert.equal((await fault('reports', 'refused')).statusCode, 204);
    const refused = await adsCall(t, who, 'GET', '/reporting/reports/00000000-0000-4000-8000-000000000000');
    assert.equal(refused.statusCode, 401);
    assert.equal(refused.json().code, 'UNAUTHORIZED');
    assert.equal((await fault('reports', 'ghost')).statusCode, 400, 'reports only read or ask, so they cannot ghost');
    assert.equal(callsOf('sp-campaigns'), before + 2);
    const counted = (await t.app.inject({ method: 'GET', url: '/sandbox/calls' })).json();
    assert.ok(counted['amazon-ads:report-status'] >= 1);
  });

  test('the sandbox shows what a profile holds at GET /sandbox/amazon-ads/state, as adsHeld does', async () => {
    const who = await caller(61);
    await advertised(who, 'Shown');
    const answer = await t.app.inject({ method: 'GET', url: `/sandbox/amazon-ads/state?profile_id=${who.profile}` });
    assert.equal(answer.statusCode, 200);
    assert.deepEqual(answer.json(), JSON.parse(JSON.stringify(adsHeld(t, who.profile))));
    assert.equal(answer.json().productAds[0].sku, 'Shown-SKU');
    assert.equal((await t.app.inject({ method: 'GET', url: '/sandbox/amazon-ads/state' })).statusCode, 400);
  });
});

describe('Amazon Ads simulator: reporting v3', () => {
  const reportBody = (startDate: string, endDate: string, extra: object = {}) => ({
    name: `advertised products ${startDate} to ${endDate}`,
    startDate,
    endDate,
    configuration: {
      adProduct: 'SPONSORED_PRODUCTS',
      groupBy: ['advertiser'],
      columns: COLUMNS,
      reportTypeId: 'spAdvertisedProduct',
      timeUnit: 'DAILY',
      format: 'GZIP_JSON',
      ...extra,
    },
  });
  const fileUrl = (url: string) => {
    const parsed = new URL(url);
    return parsed.pathname + parsed.search;
  };
  /** Asks for the report, reads its status until COMPLETED (two reads), answers its url. */
  async function completed(who: AdsCaller, body: object): Promise<string> {
    const created = await adsCall(t, who, 'POST', '/reporting/reports', body);
    assert.equal(created.statusCode, 200, created.body);
    const { reportId } = created.json();
    const statuses: string[] = [];
    let url = '';
    for (let look = 0; look < 2; look++) {
      const status = await adsCall(t, who, 'GET', `/reporting/reports/${reportId}`);
      assert.equal(status.statusCode, 200, status.body);
      statuses.push(status.json().status);
      url = status.json().url ?? '';
    }
    assert.deepEqual(statuses, ['PROCESSING', 'COMPLETED']);
    return url;
  }
  async function rowsAt(url: string): Promise<Record<string, any>[]> {
    const file = await t.app.inject({ method: 'GET', url: fileUrl(url) });
    assert.equal(file.statusCode, 200, file.body);
    return JSON.parse(gunzipSync(file.rawPayload).toString('utf8'));
  }

  test('a report is PENDING when asked, PROCESSING at the first look and COMPLETED at the next, with a link to its gzipped rows', async () => {
    const who = await caller(71);
    const { adIds, campaignId } = await advertised(who, 'Reported');
    const body = reportBody(today(), today());
    const created = await adsCall(t, who, 'POST', '/reporting/reports', body);
    assert.equal(created.statusCode, 200, created.body);
    const report = created.json();
    assert.match(report.reportId, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(report.status, 'PENDING');
    assert.deepEqual([report.name, report.startDate, report.endDate], [body.name, body.startDate, body.endDate]);
    assert.deepEqual(report.configuration, body.configuration);
    assert.ok(report.createdAt && report.updatedAt);
    assert.equal(report.url, undefined);

    const duplicate = await adsCall(t, who, 'POST', '/reporting/reports', body);
    assert.equal(duplicate.statusCode, 425);
    assert.deepEqual(duplicate.json(), { code: '425', detail: `The Request is a duplicate of : ${report.reportId}` });

    const processing = (await adsCall(t, who, 'GET', `/reporting/reports/${report.reportId}`)).json();
    assert.equal(processing.status, 'PROCESSING');
    assert.equal((await adsCall(t, who, 'POST', '/reporting/reports', body)).statusCode, 425, 'still not finished');
    const done = (await adsCall(t, who, 'GET', `/reporting/reports/${report.reportId}`)).json();
    assert.equal(done.status, 'COMPLETED');
    assert.ok(done.url.startsWith(`${t.deps.sandbox.sandboxUrl}/amazon-ads/report-files/${report.reportId}?`), done.url);
    assert.match(done.url, /X-Amz-Signature=[0-9a-f]{64}/);
    assert.ok(Date.parse(done.urlExpiresAt) > t.clock.now().getTime());

    const file = await t.app.inject({ method: 'GET', url: fileUrl(done.url) });
    assert.equal(file.statusCode, 200);
    assert.equal(file.headers['content-type'], 'application/octet-stream');
    assert.equal(file.headers['content-encoding'], undefined, 'the bytes are the gzip itself');
    assert.equal(done.fileSize, file.rawPayload.length);
    const rows = JSON.parse(gunzipSync(file.rawPayload).toString('utf8'));
    assert.equal(rows.length, 1);
    assert.deepEqual(Object.keys(rows[0]), COLUMNS);
    assert.deepEqual(
      [rows[0].date, rows[0].adId, rows[0].campaignId, rows[0].advertisedSku],
      [today(), Number(adIds[0]), Number(campaignId), 'Reported-SKU'],
    );
    assert.equal(String(rows[0].adId), adIds[0], 'ids are numbers, exactly');

    assert.equal(
      (await adsCall(t, who, 'POST', '/reporting/reports', body)).statusCode,
      200,
      'once finished, the same request makes a new report',
    );
    const stranger = await caller(73);
    assert.equal((await adsCall(t, stranger, 'GET', `/reporting/reports/${report.reportId}`)).statusCode, 404, "another profile's report");
  });

  test('figures are the same for the same query, consistent, zero from the day an ad was paused, and absent before it was made', async () => {
    const real = t.clock.now();
    const madeAt = new Date(Date.UTC(real.getUTCFullYear(), real.getUTCMonth(), real.getUTCDate() - 5, 10));
    t.clock.set(madeAt);
    const who = await caller(75);
    // A budget of 2 dollars with a 1.50 bid: the budget caps most days.
    const { campaignId, adIds } = await advertised(who, 'Figures', { budget: 2, bid: 1.5, skus: ['F-1', 'F-2'] });
    const [kept, paused] = adIds as [string, string];
    t.clock.set(new Date(madeAt.getTime() + 3 * DAY_MS));
    const later = await caller(75);
    const put = await adsCall(t, later, 'PUT', '/sp/productAds', { productAds: [{ adId: paused, state: 'PAUSED' }] });
    assert.equal(put.json().productAds.success.length, 1);
    t.clock.set(new Date(madeAt.getTime() + 5 * DAY_MS));
    const now = await caller(75);
    const body = reportBody(dayOffset(-7), today());
    const rows = await rowsAt(await completed(now, body));

    const created = madeAt.toISOString().slice(0, 10);
    const pausedOn = dayOffset(-2);
    assert.equal(rows.length, 12, 'two ads, six days each');
    assert.ok(rows.every((row) => row.date >= created && row.date <= today()));
    for (const row of rows) {
      assert.equal(row.campaignId, Number(campaignId));
      assert.ok(row.clicks <= row.impressions, JSON.stringify(row));
      assert.ok(row.purchases1d <= row.purchases7d && row.purchases7d <= row.purchases14d, JSON.stringify(row));
      assert.ok(row.purchases14d <= row.purchases30d && row.purchases30d <= row.clicks, JSON.stringify(row));
      assert.ok(row.cost <= row.clicks * 1.5 + 1e-9, 'a click never costs more than the bid');
      assert.match(String(row.cost), /^[0-9]+(\.[0-9]{1,2})?$/, 'money in cents');
      const dark = String(row.adId) === paused && row.date >= pausedOn;
      if (dark) assert.deepEqual([row.impressions, row.clicks, row.cost, row.purchases7d, row.sales7d], [0, 0, 0, 0, 0]);
      else assert.ok(row.impressions > 0, JSON.stringify(row));
    }
    const dates = [...new Set(rows.map((row) => row.date as string))];
    for (const date of dates) {
      const spent = rows.filter((row) => row.date === date).reduce((sum, row) => sum + row.cost, 0);
      assert.ok(spent <= 2 + 1e-9, `${date} cost ${spent}, above the daily budget`);
    }
    const prices = rows.filter((row) => String(row.adId) === kept && row.purchases7d > 0).map((row) => row.sales7d / row.purchases7d);
    assert.ok(
      prices.every((price) => Math.abs(price - prices[0]!) < 0.01),
      `one price per ad: ${prices}`,
    );

    const again = await rowsAt(await completed(now, body));
    assert.deepEqual(again, rows, 'the same query answers the same figures');
  });

  test('money in yen is whole', async () => {
    const who = await caller(77, '/fe');
    await advertised(who, 'Yen', { budget: 5000, bid: 60 });
    const rows = await rowsAt(await completed(who, reportBody(today(), today())));
    assert.equal(rows.length, 1);
    assert.ok(Number.isInteger(rows[0]!.cost) && Number.isInteger(rows[0]!.sales7d), JSON.stringify(rows[0]));
    assert.ok(rows[0]!.impressions > 0);
  });

  test("the file is read as S3's presigned URL is: an Authorization header is S3's 400 InvalidArgument, a wrong signature its 403", async () => {
    const who = await caller(79);
    await advertised(who, 'Presigned');
    const url = await completed(who, reportBody(today(), today()));
    const withBearer = await t.app.inject({ method: 'GET', url: fileUrl(url), headers: { authorization: `Bearer ${who.token}` } });
    assert.equal(withBearer.statusCode, 400);
    assert.match(withBearer.headers['content-type'] as string, /xml/);
    assert.match(withBearer.body, /<Code>InvalidArgument<\/Code><Message>Only one auth mechanism allowed;/);
    assert.ok(!withBearer.body.includes(who.token), 'the bearer is not echoed');
    const forged = fileUrl(url).replace(/X-Amz-Signature=[0-9a-f]{4}/, 'X-Amz-Signature=0000');
    const wrong = await t.app.inject({ method: 'GET', url: forged });
    assert.equal(wrong.statusCode, 403);
    assert.match(wrong.body, /<Code>SignatureDoesNotMatch<\/Code>/);
    t.clock.advance(3601_000);
    const expired = await t.app.inject({ method: 'GET', url: fileUrl(url) });
    assert.equal(expired.statusCode, 403);
    assert.match(expired.body, /<Code>AccessDenied<\/Code><Message>Request has expired/);
  });

  test('requests over 31 days, starting more than 95 days back, ending before they start, or with unknown columns are refused (400)', async () => {
    const who = await caller(81);
    const refused = async (body: object, words: RegExp) => {
      const answer = await adsCall(t, who, 'POST', '/reporting/reports', body);
      assert.equal(answer.statusCode, 400, answer.body);
      assert.equal(answer.json().code, '400');
      assert.match(answer.json().detail, words);
    };
    await refused(reportBody(dayOffset(-31), today()), /31 days/);
    await refused(reportBody(dayOffset(-96), dayOffset(-90)), /95 days/);
    await refused(reportBody(today(), dayOffset(-1)), /before startDate/);
    await refused(reportBody('2026-02-30', today()), /YYYY-MM-DD/);
    await refused(reportBody(today(), today(), { columns: ['date', 'adId', 'roas'] }), /invalid values: \(roas\)/);
    await refused(
      reportBody(today(), today(), { reportTypeId: 'spCampaigns', groupBy: ['campaign'] }),
      /sandbox makes only the spAdvertisedProduct/,
    );
    const widest = await adsCall(t, who, 'POST', '/reporting/reports', reportBody(dayOffset(-30), today()));
    assert.equal(widest.statusCode, 200, '31 days, today included');
    const oldest = await adsCall(t, who, 'POST', '/reporting/reports', reportBody(dayOffset(-95), dayOffset(-90)));
    assert.equal(oldest.statusCode, 200, '95 days back');
    const wrongType = await adsCall(t, who, 'POST', '/reporting/reports', reportBody(today(), today()), {
      'content-type': 'application/json',
    });
    assert.equal(wrongType.statusCode, 415);
  });
});
