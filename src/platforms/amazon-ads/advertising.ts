/**
 * Amazon Ads' advertising capability (listings.md §4): Sponsored Products v3 in the profile of a listing's
 * marketplace, and the advertised-product report. Calls go to the Ads host of the profile's region.
 */
import { gunzipSync } from 'node:zlib';
import type { Clock } from '../../lib/clock.js';
import type { AdsCall, AdvertisingAdapter } from '../contracts/advertising.js';
import { PlatformError } from '../contracts/errors.js';
import { type PlatformAnswer, type PlatformHttp, readAnswer } from '../http.js';
import { adBoundsOf } from './bounds.js';
import type { AmazonAdsConfig } from './connect.js';
import { profileInMarketplace } from './profiles.js';
import {
  adsHeaders,
  REPORT_MEDIA,
  readList,
  readMultiStatus,
  readReportCreated,
  readReportRows,
  readReportStatus,
  reportRequest,
  SP,
  type SpEntity,
  toAmazonState,
} from './sponsored-products.js';

/** Pages a list is read for at most: Storelink lists what one listing made, a handful of entities. */
const LIST_PAGES_MAX = 10;

export function createAmazonAdsAdvertisingAdapter(config: AmazonAdsConfig, deps: { http: PlatformHttp; clock: Clock }) {
  async function send(call: AdsCall, method: 'GET' | 'POST' | 'PUT', path: string, media: string, json?: unknown): Promise<PlatformAnswer> {
    await call.beforeCall?.();
    const headers = adsHeaders({ clientId: config.clientId, accessToken: call.accessToken, profileId: call.profileId, media });
    return deps.http.request(`${config.regions[call.region].apiUrl}${path}`, {
      method,
      headers,
      ...(json === undefined ? {} : { json }),
      ...(call.signal ? { signal: call.signal } : {}),
    });
  }

  /** Creates items of one entity in one call; the ids by index, or the whole batch's refusals thrown after. */
  async function create(call: AdsCall, entity: SpEntity, items: unknown[], labelOf: (index: number) => string) {
    const answer = await send(call, 'POST', entity.path, entity.media, { [entity.key]: items });
    const { ids, refused } = readAnswer(answer, (status, body) => readMultiStatus(entity, status, body, labelOf));
    return { ids, refused };
  }

  async function createOne(call: AdsCall, entity: SpEntity, item: unknown, label: string): Promise<string> {
    const { ids, refused } = await create(call, entity, [item], () => label);
    if (refused) throw refused;
    const id = ids.get(0);
    if (!id) throw new PlatformError('unavailable', `Amazon Ads answered the ${entity.key} without an id`);
    return id;
  }

  async function update(call: AdsCall, entity: SpEntity, items: unknown[], label: string): Promise<void> {
    const answer = await send(call, 'PUT', entity.path, entity.media, { [entity.key]: items });
    const { refused } = readAnswer(answer, (status, body) => readMultiStatus(entity, status, body, () => label));
    if (refused) throw refused;
  }

  /** Every entity a filter finds, following `nextToken`. */
  async function list(call: AdsCall, entity: SpEntity, filter: Record<string, unknown>) {
    const found: ReturnType<typeof readList>['items'] = [];
    let nextToken: string | null = null;
    for (let page = 0; page < LIST_PAGES_MAX; page++) {
      const body: Record<string, unknown> = { ...filter, ...(nextToken ? { nextToken } : {}) };
      const answer = await send(call, 'POST', `${entity.path}/list`, entity.media, body);
      const read = readAnswer(answer, (status, answerBody) => readList(entity, status, answerBody));
      found.push(...read.items);
      nextToken = read.nextToken;
      if (!nextToken) break;
    }
    return found;
  }

  const money = (value: number) => Math.round(value * 100) / 100;

  return {
    bounds: adBoundsOf,
    profileFor: profileInMarketplace,
    async campaignNamed(call, name) {
      const found = await list(call, SP.campaigns, { nameFilter: { queryTermMatchType: 'EXACT_MATCH', include: [name] } });
      // Archived campaigns keep their names; the one to take up again is the live one.
      const match = found.find((campaign) => campaign.raw.name === name && campaign.state !== 'archived');
      return match ? { id: match.id, state: match.state } : null;
    },
    createCampaign: (call, campaign) =>
      createOne(
        call,
        SP.campaigns,
        {
          name: campaign.name,
          targetingType: campaign.targeting === 'auto' ? 'AUTO' : 'MANUAL',
          state: toAmazonState(campaign.state),
          budget: { budgetType: 'DAILY', budget: money(campaign.dailyBudget) },
        },
        'daily_budget',
      ),
    async adGroupsOf(call, campaignId) {
      const found = await list(call, SP.adGroups, { campaignIdFilter: { include: [campaignId] } });
      return found.map(({ id, state }) => ({ id, state }));
    },
    createAdGroup: (call, adGroup) =>
      createOne(
        call,
        SP.adGroups,
        { campaignId: adGroup.campaignId, name: adGroup.name, defaultBid: money(adGroup.defaultBid), state: toAmazonState(adGroup.state) },
        'default_bid',
      ),
    async productAdsOf(call, adGroupId) {
      const found = await list(call, SP.productAds, { adGroupIdFilter: { include: [adGroupId] } });
      return found.map(({ id, state, raw }) => ({ id, state, sku: String(raw.sku ?? '') }));
    },
    async createProductAds(call, ads) {
      const state = toAmazonState(ads.state);
      const items = ads.skus.map((sku) => ({ campaignId: ads.campaignId, adGroupId: ads.adGroupId, sku, state }));
      const { ids, refused } = await create(call, SP.productAds, items, (index) => `sku:${ads.skus[index] ?? ''}`);
      // The ads Amazon made are kept even when others were refused: the listing is advertised by the SKUs it can be.
      return { adIds: Object.fromEntries([...ids].map(([index, id]) => [ads.skus[index]!, id])), refused: refused?.issues ?? [] };
    },
    async keywordsOf(call, adGroupId) {
      const found = await list(call, SP.keywords, { adGroupIdFilter: { include: [adGroupId] } });
      return found.map(({ id, state, raw }) => ({
        id,
        state,
        text: String(raw.keywordText ?? ''),
        matchType: String(raw.matchType ?? ''),
      }));
    },
    async createKeywords(call, input) {
      const items = input.keywords.map((keyword) => ({
        campaignId: input.campaignId,
        adGroupId: input.adGroupId,
        keywordText: keyword.text,
        matchType: keyword.matchType.toUpperCase(),
        bid: money(keyword.bid),
        state: 'ENABLED',
      }));
      const { ids, refused } = await create(call, SP.keywords, items, (index) => `targeting.keywords.${index}`);
      if (refused) throw refused;
      return [...ids.values()];
    },
    updateCampaign: (call, campaignId, change) =>
      update(
        call,
        SP.campaigns,
        [
          {
            campaignId,
            ...(change.dailyBudget === undefined ? {} : { budget: { budgetType: 'DAILY', budget: money(change.dailyBudget) } }),
            ...(change.state ? { state: toAmazonState(change.state) } : {}),
          },
        ],
        change.dailyBudget === undefined ? 'state' : 'daily_budget',
      ),
    updateAdGroup: (call, adGroupId, change) =>
      update(
        call,
        SP.adGroups,
        [
          {
            adGroupId,
            ...(change.defaultBid === undefined ? {} : { defaultBid: money(change.defaultBid) }),
            ...(change.state ? { state: toAmazonState(change.state) } : {}),
          },
        ],
        change.defaultBid === undefined ? 'state' : 'default_bid',
      ),
    async updateProductAds(call, adIds, state) {
      if (adIds.length === 0) return;
      await update(
        call,
        SP.productAds,
        adIds.map((adId) => ({ adId, state: toAmazonState(state) })),
        'state',
      );
    },
    async archiveCampaign(call, campaignId) {
      const answer = await send(call, 'POST', `${SP.campaigns.path}/delete`, SP.campaigns.media, {
        campaignIdFilter: { include: [campaignId] },
      });
      const { refused } = readAnswer(answer, (status, body) => readMultiStatus(SP.campaigns, status, body, () => 'state'));
      // A campaign archived already (by the seller on Amazon, or by an earlier run whose answer was lost) is archived.
      if (refused && !refused.issues.every((issue) => /archiv|not.?found/i.test(issue.message))) throw refused;
    },
    async requestReport(call, range) {
      const answer = await send(call, 'POST', '/reporting/reports', REPORT_MEDIA, reportRequest(range));
      return readAnswer(answer, readReportCreated);
    },
    async reportStatus(call, reportId) {
      const answer = await send(call, 'GET', `/reporting/reports/${encodeURIComponent(reportId)}`, REPORT_MEDIA);
      return readAnswer(answer, readReportStatus);
    },
    async downloadReport(url, signal) {
      // A presigned URL carries its own signature: an Authorization header beside it is refused (and would leak the token).
      const answer = await deps.http.request(url, { method: 'GET', read: 'bytes', ...(signal ? { signal } : {}) });
      if (answer.status !== 200)
        throw new PlatformError('unavailable', `The Amazon Ads report file could not be downloaded (HTTP ${answer.status})`);
      let rows: unknown;
      try {
        rows = JSON.parse(gunzipSync(answer.body as Buffer).toString('utf8'));
      } catch {
        throw new PlatformError('unavailable', 'The Amazon Ads report file is not gzipped JSON');
      }
      return readReportRows(rows);
    },
  } satisfies AdvertisingAdapter;
}
