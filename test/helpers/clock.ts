/** A clock tests can set and advance, standing in for the service's Clock. */
import type { Clock } from '../../src/lib/clock.js';

export function createManualClock(start: Date = new Date()): Clock & { advance(ms: number): void; set(at: Date): void } {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    nowMs: () => current,
    advance: (ms) => void (current += ms),
    set: (at) => void (current = at.getTime()),
  };
}
