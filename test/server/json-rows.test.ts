/**
 * Rows inserted from one JSON document (src/db/json-rows.ts, the order intake's orders, lines and audit entries) are
 * stored as Drizzle's own insert stores them: every kind of column the intake writes (text with quotes and non-Latin
 * letters, a null, a numeric, a timestamp to the millisecond, a boolean, json with nesting), and each serial key the
 * sequence's next; a column left out takes the schema's default. A row that leaves out a column with no default is
 * refused before anything is sent.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { selectRows } from '../../src/db/json-rows.js';
import { insertLines, insertOrders } from '../../src/db/orders.repo.js';
import { auditEvents, orderLines, orders, sites, workspaces } from '../../src/db/schema.js';
import { createTestDatabase, databaseKinds, type TestDatabase } from '../helpers/database.js';

for (const kind of databaseKinds()) {
  describe(`rows inserted from one JSON document [${kind}]`, () => {
    let database: TestDatabase;
    let workspaceId: number;
    let siteId: number;
    before(async () => {
      database = await createTestDatabase(kind);
      const [workspace] = await database.db.insert(workspaces).values({ name: 'Shop' }).returning();
      workspaceId = workspace!.id;
      const [site] = await database.db
        .insert(sites)
        .values({ workspaceId, platformId: 1, platform: 'etsy', name: 'Shop', externalId: '1001' })
        .returning();
      siteId = site!.id;
    });
    after(() => database.close());

    const at = new Date(Date.UTC(2026, 11, 6, 14, 3, 50, 123));
    const order = (externalId: string, over: Partial<typeof orders.$inferInsert> = {}) => ({
      workspaceId,
      siteId,
      platformId: 1,
      externalId,
      status: 'open' as const,
      platformStatus: 'Paid "at once" — été',
      currency: 'GBP',
      total: '1234.50',
      placedAt: at,
      platformUpdatedAt: new Date(at.getTime() + 1),
      externalUrl: null,
      history: true,
      ...over,
    });
    /** A row as stored, without the keys and times a database gives. */
    const stored = <T extends { id: number }>(row: T) => {
      const { id: _id, ...rest } = row as T & { createdAt?: unknown; updatedAt?: unknown };
      return rest;
    };

    test('orders and their lines are stored as Drizzle stores the same rows', async () => {
      const [viaDrizzle] = await database.db
        .insert(orders)
        .values({ ...order('R-1'), issues: [], createdAt: at, updatedAt: at })
        .returning();
      const [viaDocument] = await insertOrders(database.db, [order('R-2')], at);
      assert.deepEqual(stored(viaDocument!), { ...stored(viaDrizzle!), externalId: 'R-2' });
      assert.equal(viaDocument!.id, viaDrizzle!.id + 1, "the serial key is the sequence's next");
      const [again] = await database.db.select().from(orders).where(eq(orders.id, viaDocument!.id));
      assert.deepEqual(again, viaDocument, 'what the insert answered is what was stored');

      const line = (orderId: number, externalId: string) => ({
        orderId,
        workspaceId,
        siteId,
        externalId,
        position: 0,
        sku: "MUG-'W'",
        productId: null,
        variantId: null,
        externalListingId: '77',
        quantity: 3,
        price: '9.99',
        stockTaken: 2,
        issues: [
          { severity: 'error' as const, code: 'oversold', message: 'Sold 3 with 2 in stock.', field: null, source: 'storelink' as const },
        ],
      });
      const [lineViaDrizzle] = await database.db.insert(orderLines).values(line(viaDrizzle!.id, 'L-1')).returning();
      const [lineViaDocument] = await insertLines(database.db, [line(viaDocument!.id, 'L-2')]);
      assert.deepEqual(stored(lineViaDocument!), { ...stored(lineViaDrizzle!), orderId: viaDocument!.id, externalId: 'L-2' });
      assert.equal(lineViaDocument!.stockReturned, 0);
    });

    test('an order already recorded is left, and only the new one answered', async () => {
      const answered = await insertOrders(database.db, [order('R-2', { total: '1.00' }), order('R-3', { total: null })], at);
      assert.deepEqual(
        answered.map((row) => [row.externalId, row.total]),
        [['R-3', null]],
      );
    });

    test('a row that leaves a column out is refused before anything is sent', async () => {
      const before = await database.db.select().from(auditEvents);
      assert.throws(
        () =>
          selectRows(auditEvents, [
            { workspaceId, action: 'order.recorded', subjectType: 'order', subjectId: 1, ipAddress: null, details: {}, createdAt: at },
          ]),
        /audit_events\.actor_user_id: every row gives every column/,
      );
      assert.throws(
        () =>
          selectRows(auditEvents, [
            {
              id: 5,
              workspaceId,
              actorUserId: null,
              action: 'order.recorded',
              subjectType: 'order',
              subjectId: 1,
              ipAddress: null,
              details: {},
              createdAt: at,
            },
          ]),
        /audit_events\.id: a serial key is the sequence's to give/,
      );
      assert.deepEqual(await database.db.select().from(auditEvents), before);
    });
  });
}
