/**
 * Jobs sent outside a transaction at the same time go to the database together (docs/background-jobs.md): a burst of
 * platform notifications, each queuing an order's read, costs a few inserts rather than one each. Every job is still
 * stored, each sender learns of its own insert's failure, and the jobs of one insert share its transaction's time
 * (pg-boss's `created_on`), which is how these tests see how many inserts there were. Both databases.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createJobs, type Jobs } from '../../src/lib/jobs.js';
import { createTestDatabase, databaseKinds, type TestDatabase } from '../helpers/database.js';

const QUEUE = 'gathering-test';

for (const kind of databaseKinds()) {
  describe(`jobs sent together [${kind}]`, () => {
    let database: TestDatabase;
    let jobs: Jobs;

    before(async () => {
      database = await createTestDatabase(kind);
      jobs = createJobs({ connection: database.jobsConnection, soleProcess: database.kind === 'pglite', onError: () => {} });
      // Stately, as the platform queues are: one job of a singleton key waits at a time. No worker is started: what was
      // sent stays in the queue to be counted.
      jobs.define<{ n: number }>({
        name: QUEUE,
        options: { policy: 'stately', retryLimit: 0 },
        work: {},
        handler: async () => 'done',
        worker: 'test',
      });
      await jobs.start();
    });
    after(async () => {
      await jobs.stop(5_000);
      await database.close();
    });

    /** Job `n` of a test's `run`, keyed as a platform job is (a stately queue holds one waiting job of a key). */
    const job = (run: string, n: number) => ({ data: { run, n }, singletonKey: `${run}-${n}` });

    /** The queue's jobs of this test (`data.run`): each one's `n`, and how many inserts (transaction times) made them. */
    async function stored(run: string): Promise<{ ns: number[]; inserts: number }> {
      const rows = (await database.db.execute(
        sql`select (data->>'n')::int as n, created_on from pgboss.job where name = ${QUEUE} and data->>'run' = ${run}`,
      )) as unknown as { rows: { n: number; created_on: Date }[] };
      return {
        ns: rows.rows.map((row) => row.n).sort((a, b) => a - b),
        inserts: new Set(rows.rows.map((row) => new Date(row.created_on).getTime())).size,
      };
    }

    test('200 jobs sent at once are all stored, in one insert rather than 200', async () => {
      const sends = Array.from({ length: 200 }, (_, n) => jobs.sendMany(QUEUE, [job('burst', n)]));
      await Promise.all(sends);
      const { ns, inserts } = await stored('burst');
      assert.deepEqual(
        ns,
        Array.from({ length: 200 }, (_, n) => n),
      );
      // Sent before the first could go, all wait for one insert.
      assert.equal(inserts, 1);
    });

    test('jobs sent while an insert is on its way go together in the next', async () => {
      const first = jobs.sendMany(QUEUE, [job('waves', 0)]);
      // The first insert is on its way after a turn of the event loop; these 100 come while it is.
      await new Promise((resolve) => setImmediate(resolve));
      const rest = Array.from({ length: 100 }, (_, n) => jobs.sendMany(QUEUE, [job('waves', n + 1)]));
      await Promise.all([first, ...rest]);
      const { ns, inserts } = await stored('waves');
      assert.equal(ns.length, 101);
      assert.ok(inserts <= 2, `${inserts} inserts`);
    });

    test('a job sent again by its singleton key while the first is waiting is stored once', async () => {
      const twice = [7, 7, 8].map((n) => jobs.sendMany(QUEUE, [job('twice', n)]));
      await Promise.all(twice);
      assert.deepEqual((await stored('twice')).ns, [7, 8]);
    });

    test("one sent alone is stored at once, and an insert's failure reaches the senders it took, not the next", async () => {
      await jobs.sendMany(QUEUE, [job('alone', 1)]);
      assert.deepEqual((await stored('alone')).ns, [1]);

      // Data that cannot be written as JSON fails the insert that takes it, and the job sent beside it.
      const circular: Record<string, unknown> = { run: 'failed', n: 2 };
      circular.self = circular;
      const results = await Promise.allSettled([
        jobs.sendMany(QUEUE, [job('failed', 1)]),
        jobs.sendMany(QUEUE, [{ data: circular, singletonKey: 'failed-2' }]),
      ]);
      assert.deepEqual(
        results.map((result) => result.status),
        ['rejected', 'rejected'],
      );
      assert.deepEqual((await stored('failed')).ns, []);

      await jobs.sendMany(QUEUE, [job('after', 3)]);
      assert.deepEqual((await stored('after')).ns, [3]);
    });
  });
}
