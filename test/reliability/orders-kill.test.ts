/**
 * Orders read across a kill -9 (DESIGN §14, issue 33 item 6), on both databases: buyers place 50 orders in a sandbox
 * Etsy shop (P, a process of its own that lives through the test), each telling the service (W) by ORDER_PAID; W is
 * killed -9 while it takes them in and pushes the new quantities to the products' listings on a second shop, and is
 * restarted on the same database. The notifications sent while W was down are lost, as a platform's would be: the next
 * read finds their orders. In the end every order is recorded once, each line took its unit once, the pool is exactly
 * start − sold, and every listing of the second shop holds it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { databaseKinds } from '../helpers/database.js';
import { json, productWithImage, startWorld } from '../helpers/kill-world.js';
import { within } from '../helpers/test-app.js';

const SALES = 50;
const START = 50;
/** The sandbox's large shop lists ITEM-0001 … with (n mod 10) + 1 units each (src/sandbox/etsy/stock.ts). */
const SKUS = 10;
const sku = (n: number) => `ITEM-${String(n).padStart(4, '0')}`;

for (const kind of databaseKinds()) {
  describe(`orders across a kill -9 [${kind}]`, () => {
    test(`${SALES} sales taken in while the service is killed -9: each taken once, the pool at start − sold`, {
      timeout: 240_000,
    }, async () => {
      const world = await startWorld(kind, '31', { shop: 'stocked-large' });
      const { servers, auth, site } = world;
      try {
        // The shop's skus in the catalogue, each listed on a second shop (Etsy takes images as files).
        const second = await world.connect('etsy', '32');
        for (let n = 1; n <= SKUS; n += 10) {
          await Promise.all(
            Array.from({ length: 10 }, async (_, k) => {
              const body = { title: `Item ${n + k}`, currency: 'USD', variants: [{ sku: sku(n + k), price: '10.00', quantity: START }] };
              const product = await productWithImage(servers.W!, auth, body);
              const listing = { product_id: product, category_id: '1011', attributes: { 200: '1' } };
              assert.equal((await json(servers.W!, 'POST', `/sites/${second.site}/listings`, auth, listing)).status, 202);
            }),
          );
        }
        const held = async () =>
          Object.fromEntries((await second.shop()).filter((l) => l.state === 'active').map((l) => [l.skus[0]?.sku, l.skus[0]?.quantity]));
        await within(60_000, async () => Object.keys(await held()).length === SKUS, { pollMs: 200 });
        // One unit a sale, as far as each listing of the shop has units.
        const plan = Array.from({ length: SKUS }, (_, i) => Array.from({ length: ((i + 1) % 10) + 1 }, () => sku(i + 1)))
          .flat()
          .slice(0, SALES);
        assert.equal(plan.length, SALES);
        const sold = new Map<string, number>();
        const buy = async (what: string) => {
          const response = await fetch(`${servers.P!.url}/sandbox/etsy/accounts/31/orders`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ lines: [{ sku: what, quantity: 1 }] }),
          });
          assert.equal(response.status, 201, await response.clone().text());
          sold.set(what, (sold.get(what) ?? 0) + 1);
        };
        const total = async () => (await json(servers.W!, 'GET', '/orders?per_page=1', auth)).json.meta.total as number;

        const buying = (async () => {
          for (let i = 0; i < plan.length; i += 10) await Promise.all(plan.slice(i, i + 10).map(buy));
        })();
        // Midway through taking them in.
        await within(60_000, async () => (await total()) >= 15, { pollMs: 20 });
        await world.killAndRestart();
        const atKill = await total();
        await buying;

        const took = await within(
          120_000,
          async () => {
            if ((await total()) === SALES) return true;
            await json(servers.W!, 'POST', `/sites/${site}/orders/sync`, auth);
            return false;
          },
          { pollMs: 1_000 },
        );
        process.stdout.write(`[${kind}] killed with ${atKill} of ${SALES} orders in; all in ${Math.round(took)} ms after the restart\n`);

        const orders = [];
        for (let page = 1; page <= Math.ceil(SALES / 50); page++)
          orders.push(...(await json(servers.W!, 'GET', `/orders?per_page=50&page=${page}`, auth)).json.data);
        assert.equal(new Set(orders.map((o: { external_id: string }) => o.external_id)).size, SALES, 'each order recorded once');
        const lines = orders.flatMap((o: { lines: { sku: string; stock_taken: number; quantity: number }[] }) => o.lines);
        assert.equal(lines.length, SALES);
        assert.ok(
          lines.every((l) => l.quantity === 1 && l.stock_taken === 1),
          JSON.stringify(lines.filter((l) => l.stock_taken !== 1)),
        );
        const products = (await json(servers.W!, 'GET', '/products?per_page=100', auth)).json.data as {
          sku: string;
          quantity: number;
        }[];
        assert.deepEqual(
          Object.fromEntries(products.map((p) => [p.sku, p.quantity])),
          Object.fromEntries(Array.from({ length: SKUS }, (_, i) => [sku(i + 1), START - (sold.get(sku(i + 1)) ?? 0)])),
        );
        // The second shop's listings hold the pool, pushed across the kill.
        const pool = Object.fromEntries(Array.from({ length: SKUS }, (_, i) => [sku(i + 1), START - (sold.get(sku(i + 1)) ?? 0)]));
        const holds = async () => {
          try {
            assert.deepEqual(await held(), pool);
            return true;
          } catch {
            return false;
          }
        };
        // A push in flight at the kill is run again once pg-boss expires it (three deadlines of 3 s, at least 30 s); one
        // whose calls timed out on a loaded machine waits for its back-off.
        const pushed = await within(180_000, holds, { pollMs: 250 }).catch(() => null);
        assert.deepEqual(await held(), pool);
        process.stdout.write(`[${kind}] the second shop held the pool ${Math.round(pushed!)} ms after the orders were in\n`);
        const movements = [];
        for (let page = 1; page <= 2; page++)
          movements.push(...(await json(servers.W!, 'GET', `/products/stock-movements?per_page=100&page=${page}`, auth)).json.data);
        assert.equal(movements.filter((m: { reason: string }) => m.reason === 'order').length, SALES, 'one movement a sale');
      } finally {
        await world.close();
      }
    });
  });
}
