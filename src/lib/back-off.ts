/** The back-off of work that waits for a far side to recover: a token renewal, a webhook delivery. */

const FIRST_DELAY_MS = 30_000;
const MAX_DELAY_MS = 3600_000;

/** Exponential back-off after `failures` failed tries in a row: 30 s, 1 min, 2 min … at most an hour. */
export function retryDelayMs(failures: number): number {
  return Math.min(FIRST_DELAY_MS * 2 ** Math.max(0, failures - 1), MAX_DELAY_MS);
}
