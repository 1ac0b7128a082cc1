/**
 * Pacing of a platform's calls by what the platform says of its limits (Etsy: `x-remaining-this-second` and
 * `x-remaining-today`, listings.md §1.10). The counts are the platform's own, for the app's key across every instance,
 * so each instance reads the same budget: a second spent waits for the next one; a day spent puts the work off (a
 * passing failure, retried after `Retry-After`) rather than spend calls that would be refused.
 */
import type { Clock } from '../../lib/clock.js';
import { PlatformError, type RateLimits } from '../../platforms/platform.js';

/** When the day's budget is out, the work waits this long before it looks again (Etsy's day rolls in two-hour blocks). */
const DAY_SPENT_WAIT_MS = 30 * 60_000;

export interface Pacer {
  /** Waits, if the last answer said this second's budget is spent; throws `unavailable` if the day's is. */
  beforeCall(): Promise<void>;
  /** What the last answer said. */
  heard(limits: RateLimits): void;
}

export function createPacer(clock: Clock, sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms))): Pacer {
  let secondSpentAt: number | null = null;
  let daySpentAt: number | null = null;
  return {
    async beforeCall() {
      // After the wait one call goes out again: its answer says whether the day has calls again.
      const dayWait = daySpentAt === null ? 0 : DAY_SPENT_WAIT_MS - (clock.now().getTime() - daySpentAt);
      if (dayWait > 0) throw new PlatformError('unavailable', "The platform's daily call budget is spent; the work resumes later", dayWait);
      daySpentAt = null;
      if (secondSpentAt === null) return;
      const wait = 1_000 - (clock.now().getTime() - secondSpentAt);
      secondSpentAt = null;
      if (wait > 0) await sleep(wait);
    },
    heard(limits) {
      if (limits.remainingThisSecond === 0) secondSpentAt = clock.now().getTime();
      if (limits.remainingToday === 0) daySpentAt ??= clock.now().getTime();
    },
  };
}
