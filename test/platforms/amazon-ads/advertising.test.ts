/**
 * Amazon Ads' Sponsored Products v3 and reporting v3 as the adapter speaks them (listings.md §4), against recorded
 * answers: the headers of every call, 207 Multi-Status read per item, the classes of failure, the report's 425, and
 * the report file fetched without Amazon's headers.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { createAmazonAdsAdvertisingAdapter } from '../../../src/platforms/amazon-ads/advertising.js';
import { readMultiStatus, readReportRows, readReportStatus, SP } from '../../../src/platforms/amazon-ads/sponsored-products.js';
import { PlatformError } from '../../../src/platforms/contracts/errors.js';
import type { PlatformAnswer } from '../../../src/platforms/http.js';
import { createManualClock } from '../../helpers/clock.js';
import { fakeHttp } from '../../helpers/platform-http.js';

const REGIONS = {
  NA: { authorizeUrl: 'https://na.example/ap/oa', tokenUrl: 'https://na.example/token', apiUrl: 'https://ads-na.example' },
  EU: { authorizeUrl: 'https://eu.example/ap/oa', tokenUrl: 'https://eu.example/token', apiUrl: 'https://ads-eu.example' },
  FE: { authorizeUrl: 'https://fe.example/ap/oa', tokenUrl: 'https://fe.example/token', apiUrl: 'https://ads-fe.example' },
};

function adapterAnswering(...answers: PlatformAnswer[]) {
  const { http, sent } = fakeHttp(...answers);
  const adapter = createAmazonAdsAdvertisingAdapter(
    { clientId: 'amzn1.application-oa2-client.x', clientSecret: 's', regions: REGIONS },
    { http, clock: createManualClock(new Date('2026-11-26T12:00:00Z')) },
  );
  return { adapter, sent };
}
const CALL = { accessToken: 'Atza|token', profileId: '1400000000000100', region: 'EU' as const };

test("a campaign is created in the profile's region with the client id, bearer, scope and vendor media type", async () => {
  const { adapter, sent } = adapterAnswering({
    status: 207,
    body: { campaigns: { success: [{ campaignId: '3141592653', index: 0 }], error: [] } },
  });
  const id = await adapter.createCampaign(CALL, { name: 'WC-4 auto', targeting: 'auto', dailyBudget: 10, state: 'enabled' });
  assert.equal(id, '3141592653');
  assert.equal(sent[0]!.url, 'https://ads-eu.example/sp/campaigns');
  assert.deepEqual(sent[0]!.init.headers, {
    'Amazon-Advertising-API-ClientId': 'amzn1.application-oa2-client.x',
    authorization: 'Bearer Atza|token',
    'Amazon-Advertising-API-Scope': '1400000000000100',
    'content-type': 'application/vnd.spCampaign.v3+json',
    accept: 'application/vnd.spCampaign.v3+json',
  });
  assert.deepEqual(sent[0]!.init.json, {
    campaigns: [{ name: 'WC-4 auto', targetingType: 'AUTO', state: 'ENABLED', budget: { budgetType: 'DAILY', budget: 10 } }],
  });
});

test("a 207 is read per item: the ads Amazon made are kept, and its refusal of one SKU is that SKU's issue in its words", async () => {
  const { adapter } = adapterAnswering({
    status: 207,
    body: {
      productAds: {
        success: [{ adId: 11, index: 1 }],
        error: [
          {
            index: 0,
            errors: [
              { errorType: 'entityNotFoundError', errorValue: { entityNotFoundError: { reason: 'NOT_FOUND', message: 'SKU not found' } } },
            ],
          },
        ],
      },
    },
  });
  const made = await adapter.createProductAds(CALL, { campaignId: '1', adGroupId: '2', skus: ['A', 'B'], state: 'enabled' });
  assert.deepEqual(made.adIds, { B: '11' });
  assert.deepEqual(
    made.refused.map((issue) => [issue.field, issue.message, issue.source]),
    [['sku:A', 'SKU not found', 'platform']],
  );
});

test('a refused campaign is its issue; 401 is the seller’s grant unless it names the client id; 429 and 5xx pass', async () => {
  const range = {
    status: 207,
    body: {
      campaigns: { error: [{ index: 0, errors: [{ errorType: 'rangeError', errorValue: { rangeError: { reason: 'TOO_LOW' } } }] }] },
    },
  };
  const { ids, refused } = readMultiStatus(SP.campaigns, range.status, range.body, () => 'daily_budget');
  assert.equal(ids.size, 0);
  assert.deepEqual(
    refused?.issues.map((issue) => [issue.field, issue.message]),
    [['daily_budget', 'rangeError: TOO_LOW']],
  );
  const failure = (status: number, body: unknown) => {
    try {
      readMultiStatus(SP.campaigns, status, body, () => '');
    } catch (error) {
      return error instanceof PlatformError ? error.reason : 'other';
    }
    return 'none';
  };
  assert.equal(failure(401, { code: 'UNAUTHORIZED', details: 'Not authorized to access this advertiser' }), 'rejected');
  assert.equal(failure(401, { code: 'UNAUTHORIZED', details: 'Invalid Amazon-Advertising-API-ClientId' }), 'misconfigured');
  assert.equal(failure(429, { code: '429', details: 'Too Many Requests' }), 'unavailable');
  assert.equal(failure(502, null), 'unavailable');
  assert.equal(failure(415, { code: '415', details: 'Unsupported media type' }), 'misconfigured');
});

test('a report asked twice is the one under way (425); its file is read from the presigned URL without Amazon’s headers', async () => {
  const duplicate = { code: '425', detail: 'The Request is a duplicate of : 0b2a61e4-6ee6-4d1b-9c39-59a2c1b3e0a1' };
  const rows = [
    { date: '2026-11-25', adId: 11, impressions: 120, clicks: 4, cost: 1.23, purchases7d: 1, sales7d: 19.5 },
    { date: '2026-11-25', campaignId: 1 },
  ];
  const { adapter, sent } = adapterAnswering(
    { status: 425, body: duplicate },
    {
      status: 200,
      body: { reportId: '0b2a61e4-6ee6-4d1b-9c39-59a2c1b3e0a1', status: 'COMPLETED', url: 'https://s3.example/r?X-Amz-Signature=abc' },
    },
    { status: 200, body: gzipSync(JSON.stringify(rows)) },
  );
  const id = await adapter.requestReport(CALL, { from: '2026-11-13', to: '2026-11-26' });
  assert.equal(id, '0b2a61e4-6ee6-4d1b-9c39-59a2c1b3e0a1');
  assert.deepEqual((sent[0]!.init.json as { configuration: { reportTypeId: string } }).configuration.reportTypeId, 'spAdvertisedProduct');
  const status = await adapter.reportStatus(CALL, id);
  assert.deepEqual(status, { status: 'completed', url: 'https://s3.example/r?X-Amz-Signature=abc' });
  const read = await adapter.downloadReport('https://s3.example/r?X-Amz-Signature=abc', undefined);
  assert.deepEqual(read, [{ date: '2026-11-25', adId: '11', impressions: 120, clicks: 4, cost: 1.23, orders: 1, sales: 19.5 }]);
  assert.equal(sent[2]!.init.headers, undefined, 'no Authorization, client id or scope goes to the file host');
  assert.deepEqual(readReportStatus(200, { status: 'PROCESSING' }), { status: 'pending' });
  assert.deepEqual(readReportStatus(200, { status: 'FAILED', failureReason: 'Internal' }), { status: 'failed', reason: 'Internal' });
  assert.deepEqual(readReportRows([]), []);
});
