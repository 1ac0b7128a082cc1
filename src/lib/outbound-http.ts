/** What every outbound call shares, to platforms and webhook receivers alike (DESIGN §8). */

export type Fetch = typeof globalThis.fetch;

/**
 * An HTTP status that says "not now" rather than "no": server errors and throttling. Such a failure is retried and
 * never taken as the platform refusing a code or a grant.
 */
export function isPassingFailure(status: number): boolean {
  return status >= 500 || status === 429;
}
