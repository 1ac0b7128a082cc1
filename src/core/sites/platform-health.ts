/**
 * What this instance knows of its platform apps' configuration: a platform that refused Storelink's own app (a wrong
 * or expired client secret, a missing shared secret, TikTok's 36009004) is the operator's to fix, not any seller's. It
 * is logged once, shown on GET /health until a call to that platform succeeds again, and no site is asked to
 * reconnect for it. Kept per instance, as the configuration is: an instance restarted with a fixed configuration
 * starts clean, and its next successful call proves it.
 */
import type { Track } from '../../domain/index.js';
import type { Clock } from '../../lib/clock.js';

export interface PlatformProblem {
  track: Track;
  /** The platform's own words, with the HTTP status or code; never a secret. */
  message: string;
  since: Date;
}

export interface PlatformHealth {
  /** The platform refused the app's configuration. */
  misconfigured(track: Track, message: string): void;
  /** A call to the platform succeeded: whatever was wrong with its configuration is fixed. */
  succeeded(track: Track): void;
  problems(): PlatformProblem[];
}

export function createPlatformHealth(deps: {
  clock: Clock;
  log: { error(details: object, message: string): void; info(details: object, message: string): void };
}): PlatformHealth {
  const problems = new Map<Track, PlatformProblem>();
  return {
    misconfigured(track, message) {
      const known = problems.get(track);
      if (known?.message === message) return;
      problems.set(track, { track, message, since: known?.since ?? deps.clock.now() });
      deps.log.error(
        { platform: track, problem: message },
        `${track} refused this server's app configuration; check its credentials (sites stay connected and recover once it is fixed)`,
      );
    },
    succeeded(track) {
      if (problems.delete(track)) deps.log.info({ platform: track }, `${track} accepts this server's app configuration again`);
    },
    problems: () => [...problems.values()],
  };
}
