/**
 * One pool across Etsy, TikTok Shop and Amazon (DESIGN §14, issue 33 item 6): 100 sandbox sales of one sku placed at
 * once on the three platforms (Etsy and TikTok Shop notify, Amazon is read by polling), then ten of them cancelled. The
 * pool ends exactly at start − sold + cancelled, each line is counted once, and nothing the pool could cover is
 * marked oversold. The sku is sold as an item each platform lists outside Storelink: the pool follows the sku, whatever
 * listing sold it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setAmazonSellerRateLimit } from '../../src/sandbox/amazon-seller/listings-rate-limits.js';
import { setTikTokShopRateLimit } from '../../src/sandbox/tiktok-shop/product-store.js';
import { connectAmazonSellerSite, connectEtsySite, connectTikTokShopSite } from '../helpers/connect.js';
import { databaseKinds } from '../helpers/database.js';
import { call, createTestApp, registerUser, type TestApp, within } from '../helpers/test-app.js';

const START = 120;
const SALES = 100;
const CANCELLED = 10;
const PLATFORMS = ['etsy', 'tiktok-shop', 'amazon-seller'] as const;

interface Order {
  id: number;
  site_id: number;
  external_id: string;
  status: string;
  lines: { quantity: number; stock_taken: number; stock_returned: number; issues: unknown[] }[];
}

for (const kind of databaseKinds()) {
  describe(`one pool across the three platforms [${kind}]`, () => {
    let t: TestApp;
    let base: string;
    before(async () => {
      t = await createTestApp(kind, { listen: true, workers: true });
      base = t.deps.config.appUrl;
      Object.assign(t.deps.sandbox.etsyLimits, { perSecond: 1_000_000, perDay: 1_000_000_000 });
      setTikTokShopRateLimit(t.deps.sandbox, 1_000_000);
      setAmazonSellerRateLimit(t.deps.sandbox, 1_000_000);
    });
    after(() => t.close());

    test(`${SALES} sales of one sku at once on Etsy, TikTok Shop and Amazon, then ${CANCELLED} cancelled: the pool ends at start − sold + cancelled`, async () => {
      const user = await registerUser(t);
      const as = { token: user.session, workspace: user.workspace.id };
      const account = '611';
      const sites = {
        etsy: await connectEtsySite(t, user, account),
        'tiktok-shop': await connectTikTokShopSite(t, user, account),
        'amazon-seller': await connectAmazonSellerSite(t, user, account),
      };
      const body = { title: 'The last mugs', currency: 'USD', variants: [{ sku: 'POOL-1', price: '10.00', quantity: START }] };
      const created = await call(t, 'POST', '/products', { ...as, body });
      assert.equal(created.statusCode, 201, created.body);
      const productId = created.json().data.id;

      const sandbox = (platform: string, path: string, payload?: object) =>
        fetch(`${base}/sandbox/${platform}/accounts/${account}/orders${path}`, {
          method: 'POST',
          ...(payload ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) } : {}),
        });
      const placed = await Promise.all(
        Array.from({ length: SALES }, async (_, i) => {
          const platform = PLATFORMS[i % 3]!;
          const response = await sandbox(platform, '', { lines: [{ sku: 'POOL-1', quantity: 1 }] });
          assert.equal(response.status, 201, await response.clone().text());
          return { platform, id: ((await response.json()) as { id: string }).id };
        }),
      );

      // Page by page until a short one: a page's total is counted beside its rows, so while a read commits orders it
      // may count more than the rows held, and a total-bound loop would ask for empty pages for ever.
      const orders = async (): Promise<Order[]> => {
        const all: Order[] = [];
        for (let page = 1; ; page++) {
          const answer = (await call(t, 'GET', `/orders?per_page=100&page=${page}`, as)).json();
          all.push(...answer.data);
          if (answer.data.length < 100) return all;
        }
      };
      /** Reads every site now (Amazon has no notification; Etsy's cancellations come by polling) until `done`. */
      const readUntil = (done: (all: Order[]) => boolean) =>
        within(
          60_000,
          async () => {
            if (done(await orders())) return true;
            for (const site of Object.values(sites)) await call(t, 'POST', `/sites/${site}/orders/sync`, as);
            return false;
          },
          { pollMs: 500 },
        );

      await readUntil((all) => all.length === SALES);
      const all = await orders();
      assert.equal(new Set(all.map((o) => `${o.site_id}:${o.external_id}`)).size, SALES, 'each order recorded once');
      const lines = all.flatMap((o) => o.lines);
      assert.equal(lines.length, SALES, 'one line a sale (a unit each: TikTok Shop sells a line per unit)');
      assert.ok(
        lines.every((l) => l.quantity === 1 && l.stock_taken === 1 && l.issues.length === 0),
        'each line took its unit once, none oversold',
      );
      const quantity = async () => (await call(t, 'GET', `/products/${productId}`, as)).json().data.quantity;
      assert.equal(await quantity(), START - SALES);
      assert.deepEqual(
        Object.fromEntries(Object.entries(sites).map(([platform, site]) => [platform, all.filter((o) => o.site_id === site).length])),
        { etsy: 34, 'tiktok-shop': 33, 'amazon-seller': 33 },
      );

      // Ten cancelled on their platforms, some on each.
      const cancelled = placed.slice(0, CANCELLED);
      for (const { platform, id } of cancelled) assert.equal((await sandbox(platform, `/${id}/cancel`)).status, 204);
      await readUntil((now) => now.filter((o) => o.status === 'cancelled').length === CANCELLED);
      assert.equal(await quantity(), START - SALES + CANCELLED);
      const returned = (await orders()).flatMap((o) => o.lines).reduce((sum, l) => sum + l.stock_returned, 0);
      assert.equal(returned, CANCELLED, 'each cancellation gave back its unit once');

      const movements: { reason: string }[] = [];
      for (let page = 1; page <= 2; page++)
        movements.push(...(await call(t, 'GET', `/products/stock-movements?per_page=100&page=${page}&sku=POOL-1`, as)).json().data);
      const count = (reason: string) => movements.filter((m) => m.reason === reason).length;
      assert.deepEqual([count('order'), count('cancellation')], [SALES, CANCELLED]);
    });
  });
}
