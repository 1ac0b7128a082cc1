/**
 * GET /overview (issue 37, item 3): each site's listings counted by status and sync status, the listings that need
 * fixing (rejected, in error, sync failed) with their issues, and the oversold orders; scoped to the workspace, and
 * refused like every request without a bearer or with another's workspace.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { databaseKinds, selectRows } from '../helpers/database.js';
import { FORBIDDEN, UNAUTHENTICATED } from '../helpers/fixtures.js';
import { etsySeller, publishMug } from '../helpers/listings.js';
import { call, createTestApp, registerUser, type TestApp } from '../helpers/test-app.js';

const REJECTED = [
  { severity: 'error', code: 'prohibited', message: 'The title has a prohibited word.', field: 'title', source: 'platform' },
];

for (const kind of databaseKinds()) {
  describe(`workspace overview [${kind}]`, () => {
    let t: TestApp;

    before(async () => {
      t = await createTestApp(kind, { listen: true });
    });
    after(async () => {
      await t?.close();
    });

    test('an empty workspace has no sites, nothing to fix and no oversold order', async () => {
      const user = await registerUser(t);
      const answer = await call(t, 'GET', '/overview', { token: user.session, workspace: user.workspace.id });
      assert.equal(answer.statusCode, 200);
      assert.deepEqual(answer.json(), { success: true, data: { sites: [], listings_to_fix: { total: 0, shown: [] }, oversold_orders: 0 } });
    });

    test('without a bearer it is 401, with a workspace not the caller’s 403', async () => {
      const user = await registerUser(t);
      const stranger = await registerUser(t);
      const none = await call(t, 'GET', '/overview', { workspace: user.workspace.id });
      assert.deepEqual([none.statusCode, none.json()], [401, UNAUTHENTICATED]);
      const foreign = await call(t, 'GET', '/overview', { token: stranger.session, workspace: user.workspace.id });
      assert.deepEqual([foreign.statusCode, foreign.json()], [403, FORBIDDEN]);
    });

    test('counts each site’s listings by status and sync, lists those to fix with their issues, and counts oversold orders', async () => {
      const me = await etsySeller(t, '3711');
      const active = await publishMug(t, me, 'OV-ACTIVE');
      const rejected = await publishMug(t, me, 'OV-REJECTED');
      const failing = await publishMug(t, me, 'OV-FAILING');
      const gone = await publishMug(t, me, 'OV-GONE');
      const db = t.database.db;
      // The states the listing jobs would reach, set directly: this test is about what the overview reads.
      await db.execute(sql`update listings set status = 'active', sync_status = 'synced' where id = ${active.id}`);
      await db.execute(
        sql`update listings set status = 'rejected', sync_status = 'synced', issues = ${JSON.stringify(REJECTED)}::jsonb where id = ${rejected.id}`,
      );
      await db.execute(sql`update listings set status = 'active', sync_status = 'failed' where id = ${failing.id}`);
      await db.execute(sql`update listings set status = 'deleted', sync_status = 'synced' where id = ${gone.id}`);
      const [order] = await selectRows<{ id: number }>(
        t.database,
        sql`
          insert into orders (workspace_id, site_id, platform_id, external_id, status, platform_status, currency, placed_at, platform_updated_at)
          values (${me.workspace.id}, ${me.site}, 1, 'OV-1', 'open', 'paid', 'USD', now(), now()) returning id`,
      );
      const oversold = [{ severity: 'error', code: 'oversold', message: 'Sold 3 with 1 in stock.', field: null, source: 'storelink' }];
      await db.execute(sql`
        insert into order_lines (order_id, workspace_id, site_id, external_id, position, sku, quantity, stock_taken, issues)
        values (${order!.id}, ${me.workspace.id}, ${me.site}, 'OV-1-1', 0, 'OV-ACTIVE', 3, 1, ${JSON.stringify(oversold)}::jsonb)`);
      // Another workspace's listing in error is not this one's.
      const stranger = await etsySeller(t, '3712');
      const theirs = await publishMug(t, stranger, 'OV-THEIRS');
      await db.execute(sql`update listings set status = 'error' where id = ${theirs.id}`);

      const answer = await call(t, 'GET', '/overview', me.as);
      assert.equal(answer.statusCode, 200, answer.body);
      const data = answer.json().data;
      assert.equal(data.sites.length, 1);
      assert.deepEqual(data.sites[0], {
        id: me.site,
        name: data.sites[0].name,
        platform: 'etsy',
        platform_id: 1,
        status: 'connected',
        listings: {
          total: 3,
          by_status: { pending: 0, in_review: 0, active: 2, inactive: 0, rejected: 1, error: 0 },
          by_sync: { synced: 2, syncing: 0, failed: 1 },
        },
      });
      assert.equal(data.listings_to_fix.total, 2);
      assert.deepEqual(
        data.listings_to_fix.shown.map((l: { id: number; status: string; sync_status: string }) => [l.id, l.status, l.sync_status]).sort(),
        [
          [rejected.id, 'rejected', 'synced'],
          [failing.id, 'active', 'failed'],
        ].sort(),
      );
      const shownRejected = data.listings_to_fix.shown.find((l: { id: number }) => l.id === rejected.id);
      assert.deepEqual(shownRejected.issues, REJECTED);
      assert.equal(shownRejected.site_id, me.site);
      assert.equal(shownRejected.product_id, rejected.productId);
      assert.equal(data.oversold_orders, 1);

      // Cancelled, the order is no longer an alert.
      await db.execute(sql`update orders set status = 'cancelled' where id = ${order!.id}`);
      assert.equal((await call(t, 'GET', '/overview', me.as)).json().data.oversold_orders, 0);
    });
  });
}
