/**
 * Etsy's rate limits (listings.md §1.10): a per-second and a per-day budget per API key, told on every answer by
 * `x-limit-per-second`, `x-remaining-this-second`, `x-limit-per-day` and `x-remaining-today`, and a 429 once either is
 * spent. The day is rolling, counted in twelve two-hour blocks as Etsy's older page describes; the second is the
 * clock's current one.
 */
import type { Clock } from '../../lib/clock.js';
import type { EtsyLimits } from '../context.js';

const BLOCK_MS = 2 * 3600_000;
const BLOCKS_PER_DAY = 12;

export interface RateVerdict {
  allowed: boolean;
  headers: Record<string, string>;
  /** Seconds until the spent budget has room again; 0 when allowed. */
  retryAfterSeconds: number;
}

interface KeyUsage {
  second: number;
  inSecond: number;
  blocks: Map<number, number>;
}

/** The budgets of every API key, spent one request at a time; a refused request spends nothing. */
export function createRateBudget(limits: EtsyLimits, clock: Clock) {
  const usage = new Map<string, KeyUsage>();

  const usageOf = (key: string, now: number): KeyUsage => {
    const entry = usage.get(key) ?? { second: 0, inSecond: 0, blocks: new Map() };
    usage.set(key, entry);
    const second = Math.floor(now / 1000);
    if (entry.second !== second) Object.assign(entry, { second, inSecond: 0 });
    const block = Math.floor(now / BLOCK_MS);
    for (const seen of entry.blocks.keys()) if (seen <= block - BLOCKS_PER_DAY) entry.blocks.delete(seen);
    return entry;
  };

  /** Seconds until the oldest block of the rolling day leaves it (a second when a zero budget left no block). */
  const dayRetry = (entry: KeyUsage, now: number) => {
    if (entry.blocks.size === 0) return 1;
    const oldest = Math.min(...entry.blocks.keys());
    return Math.max(1, Math.ceil(((oldest + BLOCKS_PER_DAY) * BLOCK_MS - now) / 1000));
  };

  return {
    spend(key: string): RateVerdict {
      const now = clock.nowMs();
      const entry = usageOf(key, now);
      const today = [...entry.blocks.values()].reduce((sum, count) => sum + count, 0);
      const secondSpent = entry.inSecond >= limits.perSecond;
      const daySpent = today >= limits.perDay;
      const allowed = !secondSpent && !daySpent;
      if (allowed) {
        entry.inSecond += 1;
        const block = Math.floor(now / BLOCK_MS);
        entry.blocks.set(block, (entry.blocks.get(block) ?? 0) + 1);
      }
      return {
        allowed,
        headers: {
          'x-limit-per-second': String(limits.perSecond),
          'x-remaining-this-second': String(Math.max(0, limits.perSecond - entry.inSecond)),
          'x-limit-per-day': String(limits.perDay),
          'x-remaining-today': String(Math.max(0, limits.perDay - today - (allowed ? 1 : 0))),
        },
        retryAfterSeconds: allowed ? 0 : daySpent ? dayRetry(entry, now) : 1,
      };
    },
  };
}
