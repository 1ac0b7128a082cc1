import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createUsageRecorder } from '../../src/core/auth/token-usage.js';

test('touches are written together in one batch, the latest time per token', async () => {
  const batches: Array<Map<number, Date>> = [];
  const usage = createUsageRecorder({
    write: async (entries) => void batches.push(new Map(entries)),
    intervalMs: 3_600_000,
    onError: () => {},
  });
  usage.touch(1, 1000);
  usage.touch(2, 2000);
  usage.touch(1, 3000);
  assert.equal(batches.length, 0);
  await usage.flush();
  assert.deepEqual(batches, [
    new Map([
      [1, new Date(3000)],
      [2, new Date(2000)],
    ]),
  ]);
  await usage.close();
  assert.equal(batches.length, 1, 'nothing pending means nothing written');
});

test('a failed write is retried with the next flush and reported', async () => {
  const errors: unknown[] = [];
  let fail = true;
  const written: Array<Map<number, Date>> = [];
  const usage = createUsageRecorder({
    write: async (entries) => {
      if (fail) throw new Error('database down');
      written.push(new Map(entries));
    },
    intervalMs: 3_600_000,
    onError: (e) => errors.push(e),
  });
  usage.touch(7, 1000);
  await usage.flush();
  assert.equal(errors.length, 1);
  fail = false;
  await usage.close();
  assert.deepEqual(written, [new Map([[7, new Date(1000)]])]);
});
