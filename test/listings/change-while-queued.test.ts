/**
 * A change that lands while a listing's job is about to run is never lost (PostgreSQL only: it takes two transactions
 * at once, which the embedded database runs one after another). A listing holds one waiting job at a time (pg-boss's
 * `stately` policy): a change committed while that job waits queues nothing more, since the waiting job will read it.
 * But a job can start between the change's send and its commit, and read the product as it was: the change's own
 * send was dropped as a duplicate, and the job delivers the earlier version. The orders bench met it as an Etsy listing
 * left one unit over its pool after a burst (the platform's own count of a sale undone by a write that read the pool
 * before the sale was recorded). The job that settles a listing a newer change has moved on from queues the next.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LISTING_QUEUE } from '../../src/core/listings/listing-work.js';
import { databaseKinds } from '../helpers/database.js';
import { etsySeller, publishMug } from '../helpers/listings.js';
import { call, createTestApp, runDueJobs, type TestApp, within } from '../helpers/test-app.js';

describe('a change committed while the listing job it joined starts', {
  skip: !databaseKinds().includes('postgres') && 'PostgreSQL only: TEST_DATABASE_URL is not set',
}, () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp('postgres', { listen: true });
    Object.assign(t.deps.sandbox.etsyLimits, { perSecond: 1_000_000, perDay: 1_000_000_000 });
  });
  after(() => t.close());

  test('is delivered by a job of its own, and the platform ends at the newest quantity', async () => {
    const me = await etsySeller(t, '631');
    const { productId, id } = await publishMug(t, me, 'RACE');
    await runDueJobs(t, LISTING_QUEUE);
    const listing = async () => (await call(t, 'GET', `/listings/${id}`, me.as)).json().data;
    assert.equal((await listing()).status, 'active');
    const onShop = async () => {
      const held = (await (await fetch(`${t.deps.config.appUrl}/sandbox/etsy/accounts/${me.account}/listings`)).json()) as {
        skus: { sku: string; quantity: number }[];
      }[];
      return held[0]?.skus.find((s) => s.sku === 'RACE-W')?.quantity;
    };
    assert.equal(await onShop(), 4);

    const variants = (quantity: number) => [
      { sku: 'RACE-W', option_values: { Color: 'White' }, price: '18.00', quantity },
      { sku: 'RACE-B', option_values: { Color: 'Blue' }, price: '19.50', quantity: 2 },
    ];
    // The first change queues the listing's job, which waits.
    const first = await call(t, 'PATCH', `/products/${productId}`, { ...me.as, body: { variants: variants(3) } });
    assert.equal(first.statusCode, 200, first.body);

    // The second is made in a transaction held open while that job starts: its send finds the job waiting and adds
    // nothing; the job reads the product as committed (3) and delivers it; its settling waits for this transaction.
    let running: Promise<unknown> | undefined;
    await t.database.db.transaction(async (tx) => {
      await t.deps.products.updateIn(
        tx,
        me.workspace.id,
        productId,
        { variants: variants(1) },
        {},
        { userId: me.user.id, ipAddress: null },
      );
      running = t.deps.jobs.runReady(LISTING_QUEUE);
      await within(10_000, async () => (await onShop()) === 3);
    });
    await running;

    // What the second change left to do is done by the next job, not lost.
    await runDueJobs(t, LISTING_QUEUE);
    assert.equal(await onShop(), 1);
    const settled = await listing();
    assert.equal(settled.sync_status, 'synced');
    assert.deepEqual(
      settled.variants.map((v: { sku: string; quantity: number }) => [v.sku, v.quantity]),
      [
        ['RACE-W', 1],
        ['RACE-B', 2],
      ],
    );
  });
});
