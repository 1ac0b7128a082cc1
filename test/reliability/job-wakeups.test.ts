/**
 * The job engine's workers are woken rather than polled (docs/background-jobs.md): a job ready at once runs when its
 * transaction commits, one due later runs when it comes due, and a failed one when its retry delay is over, each well
 * before the look that finds what no notification reaches. And what the engine asks of its database at rest: on
 * PostgreSQL, where any number of instances share the queues and one may die holding jobs, pg-boss's upkeep pass (the
 * monitor that fails an expired job into its retry) runs every 10 s. On PGlite the one process sends every job itself,
 * resumes a dead process's jobs as it starts, and fails a handler that outruns its expiry in its own worker: its upkeep
 * pass and its workers' own looks come once a minute, since with the database in the process each costs the server's
 * own CPU. Real workers, real time, on both databases.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createJobs, type Jobs, type JobsOptions } from '../../src/lib/jobs.js';
import { createTestDatabase, databaseKinds, selectRows, type TestDatabase } from '../helpers/database.js';
import { within } from '../helpers/test-app.js';

const QUEUE = 'wakeup-test';
const FLAKY = 'wakeup-test-retry';

for (const kind of databaseKinds()) {
  describe(`job wake-ups [${kind}]`, () => {
    let database: TestDatabase;
    let jobs: Jobs;
    /** When each job's handler ran, by the job's `n`, in milliseconds of performance.now(). */
    const ran = new Map<number, number[]>();
    const record = (n: number) => ran.set(n, [...(ran.get(n) ?? []), performance.now()]);
    /** Every statement pg-boss sent PGlite, with when (performance.now()); PostgreSQL's go through pg-boss's own pool. */
    const statements: { at: number; text: string }[] = [];

    before(async () => {
      database = await createTestDatabase(kind);
      let connection: JobsOptions['connection'] = database.jobsConnection;
      const db = connection.db;
      if (db) {
        const executeSql = (text: string, values?: unknown[]) => {
          statements.push({ at: performance.now(), text });
          return db.executeSql(text, values);
        };
        connection = { ...connection, db: { ...db, executeSql } };
      }
      jobs = createJobs({ connection, soleProcess: database.kind === 'pglite', onError: () => {} });
      // A second's polling, were the wake-ups missing, would hide them: the queues poll as slowly as pg-boss allows
      // a notified worker to, so only a wake-up runs a job within a few seconds.
      const work = { pollingIntervalSeconds: 10 };
      jobs.define<{ n: number }>({
        name: QUEUE,
        options: { retryLimit: 0 },
        work,
        handler: async ({ n }) => {
          record(n);
          return 'done';
        },
        worker: 'test',
      });
      jobs.define<{ n: number }>({
        name: FLAKY,
        options: { retryLimit: 1, retryDelay: 2 },
        work,
        handler: async ({ n }) => {
          record(n);
          if (ran.get(n)!.length === 1) throw new Error('the first attempt fails');
          return 'done';
        },
        worker: 'test',
      });
      await jobs.start();
      await jobs.startWorkers((worker) => worker === 'test');
    });
    after(async () => {
      await jobs.stop(5_000);
      await database.close();
    });

    test('the upkeep pass: every 10 s on PostgreSQL, none in 12 s at rest on PGlite', { timeout: 30_000 }, async () => {
      // Past the workers' first look, which every worker makes as it starts.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const quiet = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 11_500));
      const monitored = await selectRows<{ name: string }>(
        database,
        sql`select name from pgboss.queue where name in (${QUEUE}, ${FLAKY}) and monitor_claim_on is not null order by name`,
      );
      const names = monitored.map((row) => row.name);
      if (kind === 'postgres') {
        assert.deepEqual(names, [QUEUE, FLAKY].sort(), 'every queue had its upkeep pass within 13 s');
        return;
      }
      assert.deepEqual(names, [], 'no queue had an upkeep pass');
      const since = statements.filter((s) => s.at >= quiet).map((s) => s.text.replace(/\s+/g, ' ').trim());
      const looks = since.filter((text) => text.startsWith('WITH next AS'));
      assert.deepEqual(looks, [], 'no worker looked for work on its own');
      // What is left is pg-boss's check of its job flows, three short statements every 5 s.
      assert.ok(since.length <= 9, `${since.length} statements in 11.5 s at rest:\n${since.join('\n')}`);
    });

    test('a job sent in a transaction runs once the transaction commits, not at the next look', { timeout: 20_000 }, async () => {
      // Past the workers' first look, which every worker makes as it starts.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const sent = performance.now();
      await database.db.transaction(async (tx) => {
        await jobs.send(QUEUE, { n: 1 }, { tx });
        await tx.execute(sql`select 1`);
      });
      const waited = await within(5_000, async () => ran.has(1), { since: sent, pollMs: 20 });
      assert.ok(waited < 3_000, `ran ${Math.round(waited)} ms after it was sent`);
    });

    test('a job due in 2 s runs when it comes due', { timeout: 20_000 }, async () => {
      const sent = performance.now();
      await jobs.send(QUEUE, { n: 2 }, { startAfter: new Date(Date.now() + 2_000) });
      await within(8_000, async () => ran.has(2), { since: sent, pollMs: 20 });
      const after = ran.get(2)![0]! - sent;
      assert.ok(after >= 1_900 && after < 3_000, `ran ${Math.round(after)} ms after it was sent, due after 2,000`);
    });

    test('a failed job runs again when its retry delay is over', { timeout: 20_000 }, async () => {
      await jobs.send(FLAKY, { n: 3 });
      await within(8_000, async () => (ran.get(3)?.length ?? 0) === 2, { pollMs: 20 });
      const [first, second] = ran.get(3)!;
      const gap = second! - first!;
      assert.ok(gap >= 1_900 && gap < 3_000, `ran again ${Math.round(gap)} ms after the failure, with a 2 s retry delay`);
    });
  });
}
