/**
 * The stock pool's promise under concurrency (DESIGN §14): however often, however concurrently and in whatever order
 * the views of an order arrive (a poll and a notification at once, two instances reading the same site, a job run
 * again), each line takes stock once, a cancellation gives back exactly what was taken once, and the pool ends at
 * start − held. Driven through the intake, the one way every read takes an order in; on PostgreSQL two instances share
 * the database, so the races are real.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import * as listingsRepo from '../../src/db/listings.repo.js';
import * as ordersRepo from '../../src/db/orders.repo.js';
import * as sitesRepo from '../../src/db/sites.repo.js';
import type { OrderStatus } from '../../src/domain/index.js';
import type { PlatformOrder } from '../../src/platforms/contracts/orders.js';
import { connectEtsySite } from '../helpers/connect.js';
import { databaseKinds, selectRows } from '../helpers/database.js';
import { call, createTestApp, registerUser, type TestApp, within } from '../helpers/test-app.js';

const at = (seconds: number) => new Date(Date.UTC(2026, 10, 28, 12, 0, seconds));

/** A view of order `id` in `status`, its lines `[line id, sku, quantity]`, as the platform changed it at `seconds`. */
function view(id: string, status: OrderStatus, lines: [string, string, number][], seconds = 0): PlatformOrder {
  return {
    externalId: id,
    status,
    platformStatus: status,
    currency: 'USD',
    total: '10.00',
    placedAt: at(0),
    updatedAt: at(seconds),
    externalUrl: null,
    lines: lines.map(([externalId, sku, quantity]) => ({ externalId, sku, quantity, price: '5.00', externalListingId: null })),
  };
}

for (const kind of databaseKinds()) {
  describe(`each line takes stock once [${kind}]`, () => {
    let t: TestApp;
    /** A second instance on the same database (PostgreSQL), or the same one (PGlite: one process per database). */
    let other: TestApp;
    before(async () => {
      t = await createTestApp(kind, { listen: true });
      other = kind === 'postgres' ? await createTestApp(kind, { database: t.database }) : t;
    });
    after(async () => {
      if (other !== t) await other.close();
      await t.close();
    });

    /** A workspace with a connected sandbox Etsy shop (its orders counting from long before `at(0)`), and products of these stocks. */
    async function shopWith(stock: Record<string, number>) {
      const user = await registerUser(t);
      const as = { token: user.session, workspace: user.workspace.id };
      const siteId = await connectEtsySite(t, user, String(500 + Math.floor(Math.random() * 400)));
      await t.database.db.execute(sql`update sites set orders_from = '2020-01-01' where id = ${siteId}`);
      for (const [sku, quantity] of Object.entries(stock)) {
        const body = { title: `Product ${sku}`, currency: 'USD', variants: [{ sku, price: '5.00', quantity }] };
        assert.equal((await call(t, 'POST', '/products', { ...as, body })).statusCode, 201);
      }
      const site = (await sitesRepo.findSite(t.database.db, user.workspace.id, siteId))!;
      const pool = async () =>
        Object.fromEntries(
          (
            await selectRows<{ sku: string; quantity: number }>(
              t.database,
              sql`select sku, quantity from product_variants where workspace_id = ${user.workspace.id} order by sku`,
            )
          ).map((row) => [row.sku, Number(row.quantity)]),
        );
      const lines = () =>
        selectRows<{ external_id: string; stock_taken: number; stock_returned: number }>(
          t.database,
          sql`select external_id, stock_taken, stock_returned from order_lines where site_id = ${siteId} order by external_id`,
        );
      const movements = async (reason: string) =>
        (
          await selectRows<{ n: number }>(
            t.database,
            sql`select count(*)::int as n from stock_movements where workspace_id = ${user.workspace.id} and reason = ${reason}`,
          )
        )[0]!.n;
      return { site, pool, lines, movements };
    }

    /**
     * Records every view at once, `size` to a call (as a burst of notifications, or a page of a poll, is taken in one
     * transaction), half the calls on each instance.
     */
    const recordAll = (site: sitesRepo.SiteRow, views: PlatformOrder[], size = 1) => {
      const calls = Array.from({ length: Math.ceil(views.length / size) }, (_, i) => views.slice(i * size, i * size + size));
      return Promise.all(calls.map((batch, i) => (i % 2 ? other : t).deps.orderIntake.record(site, batch)));
    };

    test('the same order twenty times at once takes its lines once; the oversold one takes what the pool had', async () => {
      const { site, pool, lines, movements } = await shopWith({ 'ONCE-A': 5, 'ONCE-B': 1 });
      const paid = view('R1', 'open', [
        ['T1', 'ONCE-A', 2],
        ['T2', 'ONCE-B', 3],
      ]);
      await recordAll(
        site,
        Array.from({ length: 20 }, () => paid),
      );
      assert.deepEqual(await pool(), { 'ONCE-A': 3, 'ONCE-B': 0 });
      assert.deepEqual(
        (await lines()).map((l) => [l.external_id, l.stock_taken, l.stock_returned]),
        [
          ['T1', 2, 0],
          ['T2', 1, 0],
        ],
      );
      assert.equal(await movements('order'), 2);
      const [orders] = await selectRows<{ n: number }>(t.database, sql`select count(*)::int as n from orders where site_id = ${site.id}`);
      assert.equal(orders?.n, 1);
      // Written first as though the pool covered the sale, the intake that found it short was rolled back and made
      // again: the order was audited once, its short line as oversold.
      const audits = await selectRows<{ stock_taken: number }>(
        t.database,
        sql`select (details->>'stock_taken')::int as stock_taken from audit_events
            where action = 'order.recorded' and (details->>'site_id')::int = ${site.id}`,
      );
      assert.deepEqual(audits, [{ stock_taken: 3 }]);
      assert.deepEqual(
        (
          await selectRows<{ issues: { code: string }[] }>(
            t.database,
            sql`select issues from order_lines where site_id = ${site.id} and external_id = 'T2'`,
          )
        ).map((l) => l.issues.map((i) => i.code)),
        [['oversold']],
      );

      // Cancelled, twenty times at once: exactly what was taken goes back, once.
      const cancelled = { ...paid, status: 'cancelled' as const, platformStatus: 'canceled', updatedAt: at(60) };
      await recordAll(
        site,
        Array.from({ length: 20 }, () => cancelled),
        3,
      );
      assert.deepEqual(await pool(), { 'ONCE-A': 5, 'ONCE-B': 1 });
      assert.deepEqual(
        (await lines()).map((l) => [l.stock_taken, l.stock_returned]),
        [
          [2, 2],
          [1, 1],
        ],
      );
      assert.equal(await movements('cancellation'), 2);
      // An older view, arriving late, changes nothing.
      await recordAll(site, [paid, paid]);
      assert.deepEqual(await pool(), { 'ONCE-A': 5, 'ONCE-B': 1 });
    });

    test("a line's product and variant are checked as its transaction commits, not as it is written", async () => {
      const { site, lines } = await shopWith({ 'LATE-A': 5 });
      // The order, with a line of a sku the catalogue does not hold (no product, no variant).
      await t.deps.orderIntake.record(site, [view('L1', 'open', [['LT1', 'NO-SUCH-SKU', 1]])]);
      const [order] = await selectRows<{ id: number }>(t.database, sql`select id from orders where site_id = ${site.id}`);
      const gone = { productId: 2_000_000_000, variantId: 2_000_000_000 };
      let written = false;
      await assert.rejects(
        t.database.db.transaction(async (tx) => {
          await ordersRepo.insertLines(tx, [
            {
              orderId: Number(order!.id),
              workspaceId: site.workspaceId,
              siteId: site.id,
              externalId: 'LT2',
              position: 1,
              sku: 'LATE-A',
              ...gone,
              quantity: 1,
              price: '5.00',
              externalListingId: null,
            },
          ]);
          // Written without a check (the intake writes its lines before it locks their stock: migration 0034)...
          written = true;
        }),
        // ...and refused at the commit.
        (error: unknown) => /foreign key/i.test(String((error as { cause?: unknown }).cause ?? error)),
      );
      assert.equal(written, true);
      assert.deepEqual(
        (await lines()).map((l) => l.external_id),
        ['LT1'],
      );
    });

    test('a page of thirty orders, new or cancelled, costs the statements of one order', async () => {
      const { site, pool, lines } = await shopWith({ 'PAGE-A': 100, 'PAGE-B': 100 });
      const statementsOf = async (views: PlatformOrder[]) => {
        const before = t.queries.count;
        await t.deps.orderIntake.record(site, views);
        return t.queries.count - before;
      };
      const order = (n: number, status: OrderStatus, seconds: number) =>
        view(
          `P${n}`,
          status,
          [
            [`P${n}-1`, 'PAGE-A', 1],
            [`P${n}-2`, 'PAGE-B', 2],
          ],
          seconds,
        );
      const page = (status: OrderStatus, seconds: number) => Array.from({ length: 30 }, (_, i) => order(i + 1, status, seconds));
      // The intake holds the products' stock from its first move to its commit: a sale on another channel waits that
      // long, so no statement is made once per order.
      const one = await statementsOf([order(0, 'open', 0)]);
      assert.equal(await statementsOf(page('open', 0)), one);
      assert.deepEqual(await pool(), { 'PAGE-A': 69, 'PAGE-B': 38 });
      const oneBack = await statementsOf([order(0, 'cancelled', 60)]);
      assert.equal(await statementsOf(page('cancelled', 60)), oneBack);
      assert.deepEqual(await pool(), { 'PAGE-A': 100, 'PAGE-B': 100 });
      const held = await lines();
      assert.equal(held.length, 62);
      assert.ok(held.every((l) => l.stock_taken > 0 && l.stock_returned === l.stock_taken));
      const [cancelled] = await selectRows<{ n: number }>(
        t.database,
        sql`select count(*)::int as n from orders where site_id = ${site.id} and status = 'cancelled' and platform_updated_at = ${at(60).toISOString()}`,
      );
      assert.equal(cancelled?.n, 31);
    });

    // PostgreSQL only: it holds one transaction open while another runs, which the embedded database runs in turn.
    if (kind === 'postgres')
      test('an order read again as it was recorded, or shipped, waits for no other intake of its products', async () => {
        const { site, pool } = await shopWith({ 'SEEN-A': 5 });
        const paid = view('R1', 'open', [['T1', 'SEEN-A', 2]]);
        await t.deps.orderIntake.record(site, [paid]);
        assert.deepEqual(await pool(), { 'SEEN-A': 3 });
        const settled = (promise: Promise<string>) => {
          const state: { answer?: string } = {};
          void promise.then((answer) => void (state.answer = answer));
          return state;
        };
        /** The intake's answer, or 'still waiting after 3 s' when it waits on the lock. */
        const unlessWaiting = (view: PlatformOrder) =>
          Promise.race([
            other.deps.orderIntake.record(site, [view]),
            new Promise<string>((resolve) => setTimeout(() => resolve('still waiting after 3 s'), 3_000)),
          ]);
        let cancelled: { answer?: string } = {};
        // Another intake of the product (here: its pool locked as an intake locks it) holds it for a while.
        await t.database.db.transaction(async (tx) => {
          await tx.execute(sql`select id from products where workspace_id = ${site.workspaceId} for update`);
          // Amazon's search after a burst, or a poll, reads the order again as it is: nothing to lock, nothing to wait for.
          assert.equal(await unlessWaiting(paid), 'order R1: 1 unchanged; 0 taken, 0 given back');
          // Shipped, it moves no stock either, and locks none.
          assert.equal(
            await unlessWaiting({ ...paid, status: 'shipped', updatedAt: at(30) }),
            'order R1: 1 updated; 0 taken, 0 given back',
          );
          // A view that moves the pool does wait: the lock is real.
          cancelled = settled(other.deps.orderIntake.record(site, [{ ...paid, status: 'cancelled', updatedAt: at(60) }]));
          await new Promise((resolve) => setTimeout(resolve, 300));
          assert.equal(cancelled.answer, undefined);
        });
        await within(5_000, async () => cancelled.answer !== undefined);
        assert.equal(cancelled.answer, 'order R1: 1 updated; 0 taken, 2 given back');
        assert.deepEqual(await pool(), { 'SEEN-A': 5 });
      });

    // PostgreSQL only, as above.
    if (kind === 'postgres')
      test('an intake locks, moves and counts its stock in one statement, once every other choice is made', async () => {
        const { site, pool } = await shopWith({ 'HOLD-A': 5, 'HOLD-B': 5 });
        // HOLD-A is listed on the shop, its first publish still on its way: the sale retargets it.
        const [product] = await selectRows<{ id: number }>(
          t.database,
          sql`select product_id as id from product_variants where workspace_id = ${site.workspaceId} and sku = 'HOLD-A'`,
        );
        const listing = await listingsRepo.insertListing(
          t.database.db,
          {
            workspaceId: site.workspaceId,
            siteId: site.id,
            productId: Number(product!.id),
            platformId: site.platformId,
            categoryId: '1',
            currency: 'USD',
            targetVersion: 1,
          },
          at(0),
        );
        const sale = view('H1', 'open', [
          ['HT1', 'HOLD-A', 2],
          ['HT2', 'HOLD-B', 1],
        ]);
        let recorded: Promise<string> | undefined;
        let waiting: string[] = [];
        try {
          // Another channel's sale of the products holds their pools (locked as an intake locks them).
          await t.database.db.transaction(async (tx) => {
            await tx.execute(sql`select id from products where workspace_id = ${site.workspaceId} order by id for update`);
            t.queries.seen = [];
            recorded = other.deps.orderIntake.record(site, [sale]);
            await new Promise((resolve) => setTimeout(resolve, 300));
            waiting = [...t.queries.seen];
          });
          assert.match(waiting.at(-1) ?? '', /storelink_take_stock/, 'what waits for the pools is the statement that moves them');
          assert.equal(await recorded, 'order H1: 1 recorded; 3 taken, 0 given back');
          // Once it has the pools, the intake checks their answer, queues the listings' work and commits: nothing more
          // is locked, moved, counted or retargeted one by one.
          const held = (t.queries.seen ?? []).slice(waiting.length);
          assert.deepEqual(
            held.filter((query) => /for update|storelink_move_stock|storelink_retarget_listings|update "(products|listings)"/i.test(query)),
            [],
          );
          // The take retargeted the listing itself: at its product's new version, and its work queued.
          const [target] = await selectRows<{ target_version: number; version: number; sync_status: string; jobs: number }>(
            t.database,
            sql`select l.target_version, p.version, l.sync_status,
                  (select count(*)::int from pgboss.job j where j.name = 'listing-work' and (j.data->>'listingId')::int = l.id) as jobs
                from listings l join products p on p.id = l.product_id where l.id = ${listing.id}`,
          );
          assert.deepEqual(
            { ...target, target_version: Number(target!.target_version), version: Number(target!.version) },
            { target_version: 2, version: 2, sync_status: 'syncing', jobs: 1 },
          );
          // Its lines, its order's event and its audit entry were written before it waited: held from the take to the
          // commit are the listings' work alone.
          assert.deepEqual(
            held.filter((query) => /insert into "(order_lines|audit_events|webhook_deliveries)"/i.test(query)),
            [],
          );
          assert.ok(
            waiting.some((query) => /insert into "order_lines"/i.test(query)),
            'the lines are inserted before the stock is taken',
          );
          assert.deepEqual(await pool(), { 'HOLD-A': 3, 'HOLD-B': 4 });
        } finally {
          t.queries.seen = undefined;
        }
      });

    test('any interleaving of any views of a few orders, one or several to a call, ends with the pool at start − held, and held within what was sold', async () => {
      const START = 6;
      const status = fc.constantFrom<OrderStatus>('pending', 'open', 'shipped', 'cancelled');
      // An order's views: its lines' quantities may only fall (partial cancellations), its status moves on.
      const order = fc.record({
        lines: fc.array(fc.tuple(fc.constantFrom('P-A', 'P-B'), fc.integer({ min: 1, max: 4 })), { minLength: 1, maxLength: 3 }),
        views: fc.array(fc.tuple(status, fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 3, maxLength: 3 })), {
          minLength: 1,
          maxLength: 4,
        }),
      });
      let run = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(order, { minLength: 1, maxLength: 3 }),
          fc.integer({ min: 0, max: 1_000 }),
          fc.integer({ min: 1, max: 5 }),
          async (orders, seed, size) => {
            run += 1;
            const { site, pool, lines } = await shopWith({ 'P-A': START, 'P-B': START });
            const views = orders.flatMap((o, k) => {
              let cut = o.lines.map(([, quantity]) => quantity);
              let over = false;
              return o.views.map(([drawn, lowered], n) => {
                cut = cut.map((q, i) => Math.min(q, lowered[i] ?? q));
                // A cancelled order stays cancelled, as on every platform.
                over ||= drawn === 'cancelled';
                const s = over ? 'cancelled' : drawn;
                return view(
                  `R${run}-${k}`,
                  s,
                  o.lines.map(([sku], i) => [`T${run}-${k}-${i}`, sku, cut[i]!]),
                  n,
                );
              });
            });
            // Shuffled by the seed, each view sent twice, `size` views to a call (one order's views may share one).
            const shuffled = [...views, ...views].sort(
              (a, b) => ((a.updatedAt.getTime() + seed) % 7) - ((b.updatedAt.getTime() + seed) % 7),
            );
            await recordAll(site, shuffled, size);
            const held = await lines();
            for (const line of held) assert.ok(line.stock_returned >= 0 && line.stock_returned <= line.stock_taken, JSON.stringify(line));
            // Each line holds what its newest view still sells, as far as what it took covers it.
            const newest = new Map<string, { status: OrderStatus; quantity: number }>();
            for (const v of views) for (const l of v.lines) newest.set(l.externalId, { status: v.status, quantity: l.quantity });
            for (const line of held) {
              const last = newest.get(line.external_id)!;
              const holds = last.status === 'cancelled' ? 0 : Math.min(line.stock_taken, last.quantity);
              assert.equal(line.stock_taken - line.stock_returned, holds, JSON.stringify({ line, last }));
            }
            const skuOf = new Map(views.flatMap((v) => v.lines.map((l) => [l.externalId, l.sku!])));
            const expected = { 'P-A': START, 'P-B': START };
            for (const line of held) expected[skuOf.get(line.external_id) as 'P-A' | 'P-B'] -= line.stock_taken - line.stock_returned;
            assert.deepEqual(await pool(), expected);
          },
        ),
        { numRuns: 12 },
      );
    });
  });
}
