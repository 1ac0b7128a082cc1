/**
 * Pacing of a platform's calls by what the platform says of its limits (Etsy: `x-remaining-this-second` and
 * `x-remaining-today`, listings.md §1.10). Calls of this instance are spaced so that no second holds more than the
 * platform's per-second limit (`x-limit-per-second`) of them: a burst of work runs at the limit without a 429. The
 * remaining counts are the platform's own, for the app's key across every instance, so each instance reads the same
 * budget: a second spent (by another instance, say) waits for the next one; a day spent puts the work off (a passing
 * failure, retried after `Retry-After`) rather than spend calls that would be refused.
 */
import type { Clock } from '../../lib/clock.js';
import { PlatformError } from '../../platforms/contracts/errors.js';
import type { RateLimits } from '../../platforms/contracts/listings.js';

/**
 * A second, and a hundredth more: calls spaced by the limit arrive a little apart from how they left, and the platform
 * counts them by its own clock's seconds.
 */
const SECOND_MS = 1_010;
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
  let perSecond: number | null = null;
  /** When each of the last `perSecond` calls of this instance goes out (some still ahead: reserved by a waiting call). */
  const starts: number[] = [];

  /** The moment a call may go out so that no second holds more than the platform's per-second limit of them. */
  const slot = (now: number) => {
    if (perSecond === null || perSecond < 1) return now;
    const at = starts.length < perSecond ? now : Math.max(now, starts[starts.length - perSecond]! + SECOND_MS);
    starts.push(at);
    if (starts.length > perSecond) starts.splice(0, starts.length - perSecond);
    return at;
  };

  return {
    async beforeCall() {
      const now = clock.nowMs();
      // After the wait one call goes out again: its answer says whether the day has calls again.
      const dayWait = daySpentAt === null ? 0 : DAY_SPENT_WAIT_MS - (now - daySpentAt);
      if (dayWait > 0) throw new PlatformError('unavailable', "The platform's daily call budget is spent; the work resumes later", dayWait);
      daySpentAt = null;
      // Another instance may have spent the second: the platform's own count says so, and the next call waits it out.
      const spentWait = secondSpentAt === null ? 0 : 1_000 - (now - secondSpentAt);
      secondSpentAt = null;
      const wait = Math.max(spentWait, slot(now + Math.max(0, spentWait)) - now);
      if (wait > 0) await sleep(wait);
    },
    heard(limits) {
      if (limits.perSecond !== null) perSecond = limits.perSecond;
      if (limits.remainingThisSecond === 0) secondSpentAt = clock.nowMs();
      if (limits.remainingToday === 0) daySpentAt ??= clock.nowMs();
    },
  };
}

/** One pacer per platform, shared by everything that calls it (listing work, imports): its limits are per app key. */
export function createPacers(clock: Clock): (platform: string) => Pacer {
  const pacers = new Map<string, Pacer>();
  return (platform) => pacers.get(platform) ?? (pacers.set(platform, createPacer(clock)), pacers.get(platform)!);
}
