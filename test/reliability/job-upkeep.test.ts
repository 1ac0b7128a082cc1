/**
 * What the job engine asks of its database while nothing happens (docs/background-jobs.md, "Idle"). On PostgreSQL,
 * where any number of instances share the queues and one may die holding jobs, pg-boss's upkeep pass (the monitor that
 * fails an expired job into its retry) runs every 10 s. On PGlite the one process sends every job itself, resumes a
 * dead process's jobs as it starts, and fails a handler that outruns its expiry in its own worker: its upkeep pass and
 * its workers' own looks come once a minute, since with the database in the process each costs the server's own CPU.
 * Real workers, real time, on both databases.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createJobs, type Jobs, type JobsOptions } from '../../src/lib/jobs.js';
import { createTestDatabase, databaseKinds, selectRows, type TestDatabase } from '../helpers/database.js';
import { within } from '../helpers/test-app.js';

const QUEUES = ['upkeep-test-a', 'upkeep-test-b'];

for (const kind of databaseKinds()) {
  describe(`the job engine at rest [${kind}]`, () => {
    let database: TestDatabase;
    let jobs: Jobs;
    /** Every statement pg-boss sent PGlite, with when (performance.now()); PostgreSQL's go through pg-boss's own pool. */
    const statements: { at: number; text: string }[] = [];
    const ran: number[] = [];

    before(async () => {
      database = await createTestDatabase(kind);
      let connection: JobsOptions['connection'] = database.jobsConnection;
      const db = connection.db;
      if (db) {
        connection = {
          ...connection,
          db: {
            ...db,
            executeSql: (text: string, values?: unknown[]) => {
              statements.push({ at: performance.now(), text });
              return db.executeSql(text, values);
            },
          },
        };
      }
      jobs = createJobs({ connection, soleProcess: kind === 'pglite', onError: () => {} });
      for (const name of QUEUES) {
        jobs.define<{ n: number }>({
          name,
          options: { retryLimit: 0 },
          work: { pollingIntervalSeconds: 2 },
          handler: async ({ n }) => {
            ran.push(n);
            return 'done';
          },
          worker: 'test',
        });
      }
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
        sql`select name from pgboss.queue where name in (${sql.join(
          QUEUES.map((name) => sql`${name}`),
          sql`, `,
        )}) and monitor_claim_on is not null order by name`,
      );
      const names = monitored.map((row) => row.name);
      if (kind === 'postgres') {
        assert.deepEqual(names, QUEUES, 'every queue had its upkeep pass within 13 s');
        return;
      }
      assert.deepEqual(names, [], 'no queue had an upkeep pass');
      const since = statements.filter((s) => s.at >= quiet).map((s) => s.text.replace(/\s+/g, ' ').trim());
      const looks = since.filter((text) => text.startsWith('WITH next AS'));
      assert.deepEqual(looks, [], 'no worker looked for work on its own');
      // What is left is pg-boss's check of its job flows, three short statements every 5 s.
      assert.ok(since.length <= 9, `${since.length} statements in 11.5 s at rest:\n${since.join('\n')}`);
    });

    test('a job sent at rest still runs at once', { timeout: 20_000 }, async () => {
      const sent = performance.now();
      await jobs.send(QUEUES[1]!, { n: 1 });
      const waited = await within(5_000, async () => ran.includes(1), { since: sent, pollMs: 20 });
      assert.ok(waited < 3_000, `ran ${Math.round(waited)} ms after it was sent`);
    });
  });
}
