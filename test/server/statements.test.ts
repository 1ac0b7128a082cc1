/**
 * The statements Drizzle builds for this service's two drivers (src/db/database.ts, withoutTypeHints): no type hint is
 * looked up for their parameters, which node-postgres and PGlite send untyped, and what the statements say and carry is
 * what Drizzle's own dialect builds. Should a Drizzle release rename the look-up, the first test fails, rather than the
 * service silently paying for it again.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PgDialect } from 'drizzle-orm/pg-core';
import { auditEvents, orders } from '../../src/db/schema.js';
import { createTestDatabase, databaseKinds, type TestDatabase } from '../helpers/database.js';

for (const kind of databaseKinds()) {
  describe(`the statements Drizzle builds [${kind}]`, () => {
    let database: TestDatabase;
    before(async () => {
      database = await createTestDatabase(kind);
    });
    after(() => database.close());

    /** An insert whose parameters Drizzle's dialect types: JSON, timestamps, a numeric. */
    const insert = () => {
      const at = new Date(Date.UTC(2026, 11, 6));
      const audit = database.db.insert(auditEvents).values({
        workspaceId: 1,
        actorUserId: null,
        action: 'order.recorded',
        subjectType: 'order',
        subjectId: 1,
        ipAddress: null,
        details: { site: 'Shop' },
        createdAt: at,
      });
      const order = database.db.insert(orders).values({
        workspaceId: 1,
        siteId: 1,
        platformId: 1,
        externalId: 'R1',
        status: 'pending',
        platformStatus: 'open',
        currency: 'USD',
        total: '10.00',
        placedAt: at,
        platformUpdatedAt: at,
        externalUrl: null,
        history: false,
        createdAt: at,
        updatedAt: at,
      });
      return [audit.getSQL(), order.getSQL()];
    };

    test("no parameter's type hint is looked up; Drizzle's own dialect still has the look-up", () => {
      assert.equal(typeof PgDialect.prototype.prepareTyping, 'function');
      const dialect = (database.db as unknown as { dialect: PgDialect }).dialect;
      const drizzles = new PgDialect();
      for (const statement of insert()) {
        const built = dialect.sqlToQuery(statement);
        const typed = drizzles.sqlToQuery(statement);
        // Drizzle's dialect names a type for some of them (json, timestamp, decimal) …
        assert.ok(typed.typings?.some((typing) => typing !== 'none'));
        // … this service's looks none up, and the statement and its parameters are the same.
        assert.ok(built.typings?.every((typing) => typing === 'none'));
        assert.equal(built.sql, typed.sql);
        assert.deepEqual(built.params, typed.params);
      }
    });
  });
}
