/**
 * Listings kept true live with the job workers running, as a server runs them (issue 36, item 10): the clock follows
 * the real one, pg-boss wakes each site's turn when it is due, and a seller's edits on the sandbox Etsy (title, stock,
 * state; price is as stock, tested in live-listings.test.ts) show in GET /listings/{id} within 60 s of the wall clock, nothing driven by hand after the first sweep.
 * The delays, from each edit to the API showing it, are printed as a TAP diagnostic with their p50 and p99.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { databaseKinds } from '../helpers/database.js';
import { etsySeller, publishMug } from '../helpers/listings.js';
import { call, createTestApp, type TestApp, within } from '../helpers/test-app.js';

const WITHIN_MS = 60_000;

interface Shown {
  status: string;
  sync_status: string;
  external_id: string | null;
  differences: { field: string; platform: string | null }[];
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

for (const kind of databaseKinds()) {
  describe(`listings kept true live, workers running [${kind}]`, () => {
    let t: TestApp;
    let ticking: NodeJS.Timeout;
    before(async () => {
      t = await createTestApp(kind, { listen: true, workers: true });
      // The test clock follows the wall clock: the jobs' times and the sandbox's are the server's own.
      ticking = setInterval(() => t.clock.set(new Date()), 50);
      Object.assign(t.deps.sandbox.etsyLimits, { perSecond: 1_000_000, perDay: 1_000_000_000 });
    });
    after(async () => {
      clearInterval(ticking);
      await t.close();
    });

    test('Etsy: an edit of title, stock and state on etsy.com shows within the minute, the workers alone reading the shop', async (context) => {
      const me = await etsySeller(t, '7701');
      const { id } = await publishMug(t, me, 'WORK1');
      const shown = async (): Promise<Shown> => (await call(t, 'GET', `/listings/${id}`, me.as)).json().data;
      await within(30_000, async () => (await shown()).sync_status === 'synced', { pollMs: 100 });
      const externalId = (await shown()).external_id!;
      // The minute's sweep, at once rather than at the next minute: the site's turns start.
      await t.deps.listingChanges.sweep();

      const edits: [unknown, (listing: Shown) => boolean][] = [
        [{ title: 'Renamed on Etsy, workers' }, (l) => l.differences.some((d) => d.field === 'title')],
        [{ skus: [{ sku: 'WORK1-B', quantity: 6 }] }, (l) => l.differences.some((d) => d.platform === '6')],
        [{ state: 'inactive' }, (l) => l.status === 'inactive'],
      ];
      const delays: number[] = [];
      for (const [edit, seen] of edits) {
        // Any moment of a turn's 15 s.
        await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 15_000)));
        const response = await fetch(`${t.deps.config.appUrl}/sandbox/etsy/accounts/${me.account}/listings/${externalId}`, {
          method: 'PATCH',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(edit),
        });
        assert.equal(response.status, 200, await response.text());
        delays.push(Math.round(await within(WITHIN_MS, async () => seen(await shown()), { pollMs: 100 })));
      }
      // Each state is read every 30 s: an edit shows within that and a read.
      assert.ok(Math.max(...delays) <= 35_000, JSON.stringify(delays));
      context.diagnostic(
        `Etsy with workers: ${delays.length} edits shown after ${delays.join(', ')} ms (wall clock); p50 ${percentile(delays, 50)} ms, p99 ${percentile(delays, 99)} ms`,
      );
    });
  });
}
