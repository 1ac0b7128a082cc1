/**
 * A change to an advertising that lands while its job is about to run is never lost (PostgreSQL only: it takes two
 * transactions at once, which the embedded database runs one after another). As with a listing
 * (test/listings/change-while-queued.test.ts): the change's send finds the advertising's job waiting and adds none,
 * the job starts before the change commits and brings Amazon to what was before it, and the job that records it
 * queues the next.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ADVERTISING_QUEUE } from '../../src/core/advertising/advertising-work.js';
import { updateAdvertising } from '../../src/db/advertising.repo.js';
import { setAmazonAdsRateLimit } from '../../src/sandbox/amazon-ads/rate-limits.js';
import { setAmazonSellerRateLimit } from '../../src/sandbox/amazon-seller/listings-rate-limits.js';
import { adsHeld } from '../helpers/ads-sandbox.js';
import { advertisedListing } from '../helpers/advertising.js';
import { databaseKinds } from '../helpers/database.js';
import { call, createTestApp, runDueJobs, type TestApp, within } from '../helpers/test-app.js';

describe('a change to an advertising committed while the job it joined starts', {
  skip: !databaseKinds().includes('postgres') && 'PostgreSQL only: TEST_DATABASE_URL is not set',
}, () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp('postgres', { listen: true });
    setAmazonSellerRateLimit(t.deps.sandbox, 1_000_000);
    setAmazonAdsRateLimit(t.deps.sandbox, 1_000_000);
  });
  after(() => t.close());

  test('is brought to Amazon by a job of its own', async () => {
    const { me, id, profile } = await advertisedListing(t, '951', 'ADR');
    const advertising = async () => (await call(t, 'GET', `/listings/${id}/advertising`, me.as)).json().data;
    const campaignState = () => adsHeld(t, profile).campaigns[0]?.state;
    assert.equal(campaignState(), 'ENABLED');
    const adId = (await advertising()).id as number;

    // The seller pauses it: its job waits.
    const paused = await call(t, 'PATCH', `/listings/${id}/advertising`, { ...me.as, body: { state: 'paused' } });
    assert.equal(paused.statusCode, 202, paused.body);

    // And resumes it in a transaction held open while that job starts, written as the service writes a change
    // (advertising.service.ts: the row `syncing`, its job sent in the same transaction): the send finds the job waiting
    // and adds nothing; the job reads the pause and pauses the product ads (then its next save of the row waits for
    // this transaction, and it pauses the campaign once it commits).
    let running: Promise<unknown> | undefined;
    await t.database.db.transaction(async (tx) => {
      const row = await updateAdvertising(tx, adId, { wants: 'enabled', syncStatus: 'syncing' }, t.clock.now());
      await t.deps.jobs.send(ADVERTISING_QUEUE, { advertisingId: adId }, { tx, singletonKey: String(adId), group: `ads:${row.siteId}` });
      running = t.deps.jobs.runReady(ADVERTISING_QUEUE);
      await within(10_000, async () => adsHeld(t, profile).productAds.every((ad) => ad.state === 'PAUSED'));
    });
    await running;

    await runDueJobs(t, ADVERTISING_QUEUE);
    assert.equal(campaignState(), 'ENABLED');
    const settled = await advertising();
    assert.equal(settled.state, 'enabled');
    assert.equal(settled.sync_status, 'synced');
  });
});
