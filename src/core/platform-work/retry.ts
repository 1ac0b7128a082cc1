/**
 * The one retry policy of platform work. A platform's answer is the runner's to class (runner.ts): a passing failure
 * (a time-out, a 429, a 5xx) is sent again after a back-off, never before the platform's `Retry-After`, until
 * `ATTEMPTS_MAX` are spent. pg-boss's own retries are only for a run that never finished: its instance died (the job
 * expired) or the database failed under it.
 */
import { expiryAfterDeadlines, RESUMABLE } from '../../lib/jobs.js';
import { PlatformError } from '../../platforms/contracts/errors.js';

/** Passing failures (time-outs, 429, 5xx) one piece of work meets before it is given up. */
export const ATTEMPTS_MAX = 8;

/**
 * When work that failed in passing for the `attempt`th time (from 0) is tried again: after 2, 4, 8 … seconds, at most
 * ten minutes, and never before the platform's `Retry-After`; null once `ATTEMPTS_MAX` failures are spent.
 */
export function retryAt(now: Date, error: unknown, attempt: number): Date | null {
  if (attempt + 1 >= ATTEMPTS_MAX) return null;
  const backOff = Math.min(600_000, 1_000 * 2 ** (attempt + 1));
  const retryAfter = error instanceof PlatformError ? (error.retryAfterMs ?? 0) : 0;
  return new Date(now.getTime() + Math.max(backOff, retryAfter));
}

/**
 * The pg-boss options of a queue whose jobs call a platform for one subject (a listing, an import, a grant): one
 * running and one waiting job per subject (`stately` on its singleton key, or `singleton` where no second may wait); a
 * run whose instance died run again within seconds (`RESUMABLE`), resuming from what it saved; and one whose handler
 * hangs on a live instance run again after `deadlines` deadlines of the longest call it makes (three: an image upload).
 */
export function platformQueueOptions(timeoutMs: number, shape: { policy?: 'stately' | 'singleton'; deadlines?: number } = {}) {
  return {
    policy: shape.policy ?? 'stately',
    expireInSeconds: expiryAfterDeadlines(timeoutMs) * (shape.deadlines ?? 3),
    retryLimit: 3,
    ...RESUMABLE,
    deleteAfterSeconds: 7 * 24 * 3600,
  } as const;
}
