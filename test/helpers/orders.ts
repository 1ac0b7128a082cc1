/** What the orders tests share: asking for a site's orders to be read now, and waiting until a read has finished. */
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { ORDERS_READ_QUEUE } from '../../src/core/orders/order-reads.js';
import { selectRows } from './database.js';
import { call, type TestApp, within } from './test-app.js';

/** POST /sites/{site}/orders/sync as `as`, then waits until a read of the site has finished since. */
export async function syncOrders(t: TestApp, as: { token: string; workspace: number }, site: number): Promise<void> {
  const finished = async () =>
    (
      await selectRows<{ n: number }>(
        t.database,
        sql`select count(*)::int as n from pgboss.job where name = ${ORDERS_READ_QUEUE} and state = 'completed' and (data->>'siteId')::int = ${site}`,
      )
    )[0]!.n;
  const before = await finished();
  assert.equal((await call(t, 'POST', `/sites/${site}/orders/sync`, as)).statusCode, 202);
  await within(10_000, async () => (await finished()) > before);
}
