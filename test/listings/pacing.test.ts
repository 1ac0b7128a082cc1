/** Pacing by the platform's own limit headers (listings.md §1.10): a spent second waits, a spent day puts work off. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createPacer } from '../../src/core/platform-work/pacing.js';
import { PlatformError } from '../../src/platforms/contracts/errors.js';
import { createManualClock } from '../helpers/clock.js';

const limits = (remainingThisSecond: number | null, remainingToday: number | null) => ({
  perSecond: 10,
  remainingThisSecond,
  perDay: 10_000,
  remainingToday,
});

test('a call waits for the rest of the second only after an answer said the second was spent', async () => {
  const clock = createManualClock(new Date('2026-11-23T12:00:00.000Z'));
  const slept: number[] = [];
  const pacer = createPacer(clock, async (ms) => void slept.push(ms));
  await pacer.beforeCall();
  pacer.heard(limits(3, 500));
  await pacer.beforeCall();
  assert.deepEqual(slept, []);
  pacer.heard(limits(0, 500));
  clock.advance(300);
  await pacer.beforeCall();
  assert.deepEqual(slept, [700]);
  await pacer.beforeCall();
  assert.deepEqual(slept, [700], 'the wait is paid once');
});

test('a spent day is a passing failure with a Retry-After for half an hour, then one call looks again', async () => {
  const clock = createManualClock();
  const pacer = createPacer(clock, async () => {});
  pacer.heard(limits(5, 0));
  await assert.rejects(
    pacer.beforeCall(),
    (error) => error instanceof PlatformError && error.reason === 'unavailable' && error.retryAfterMs === 1_800_000,
  );
  clock.advance(1_800_000);
  await pacer.beforeCall();
  pacer.heard(limits(5, 40));
  await pacer.beforeCall();
});

test("calls are spaced so that no second holds more than the platform's per-second limit, once the limit was heard", async () => {
  const clock = createManualClock(new Date('2026-11-23T12:00:00.000Z'));
  const slept: number[] = [];
  const pacer = createPacer(clock, async (ms) => void slept.push(ms));
  for (let i = 0; i < 5; i++) await pacer.beforeCall();
  assert.deepEqual(slept, [], 'the limit is not known before the first answer');
  pacer.heard({ perSecond: 3, remainingThisSecond: 2, perDay: 10_000, remainingToday: 500 });
  // Seven calls at one instant: three go now, three a second (and a hundredth) later, the seventh a second after them.
  for (let i = 0; i < 7; i++) await pacer.beforeCall();
  assert.deepEqual(slept, [1_010, 1_010, 1_010, 2_020]);
  clock.advance(5_000);
  await pacer.beforeCall();
  assert.deepEqual(slept.length, 4, 'a quiet while later the next call goes at once');
});
