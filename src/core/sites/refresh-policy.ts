/** When to refresh a site's access token, and how long to wait after a failed try. */

export interface RefreshPolicy {
  /** Refresh this long before the access token expires (default 10 minutes). */
  marginMs: number;
  /** Exercise every connection at least this often, even when its token lives longer (default a day). */
  maxIntervalMs: number;
  /** Assumed lifetime of an access token the platform sent without an expiry: never "never refresh". */
  defaultLifetimeMs: number;
}

export const DEFAULT_REFRESH_POLICY: RefreshPolicy = { marginMs: 10 * 60_000, maxIntervalMs: 24 * 3600_000, defaultLifetimeMs: 3600_000 };

const MIN_DELAY_MS = 30_000;
const MIN_GAP_MS = 1000;

/** The next refresh for a token issued `now` that expires at `accessExpiresAt` (null: the platform gave no expiry). */
export function nextRefreshAt(accessExpiresAt: Date | null, now: Date, policy: RefreshPolicy = DEFAULT_REFRESH_POLICY): Date {
  const expiresAt = accessExpiresAt?.getTime() ?? now.getTime() + policy.defaultLifetimeMs;
  const due = Math.min(expiresAt - policy.marginMs, now.getTime() + policy.maxIntervalMs);
  // A token already inside its margin is refreshed soon (halfway to its expiry, at least a second away), but not in a
  // tight loop; one that arrived already expired (a platform's mistake, or a misread expiry) waits the full 30 s, as a
  // renewal giving another such token would otherwise run at every poll.
  const left = expiresAt - now.getTime();
  const soonest = left > 0 ? Math.max(MIN_GAP_MS, Math.min(MIN_DELAY_MS, left / 2)) : MIN_DELAY_MS;
  return new Date(Math.max(due, now.getTime() + soonest));
}
