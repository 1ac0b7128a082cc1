/**
 * Notifications a platform delivers to a queue rather than to Storelink's endpoint (Amazon's ORDER_CHANGE, sent to the
 * operator's SQS queue; platform-notifications.ts takes the ones pushed over HTTP). Each instance whose listings
 * workers run long-polls every configured queue, acts on each notification as a pushed one is acted on (an order named
 * is read whole at once: order-reads.ts), and removes from the queue only what it acted on. So a notification taken by
 * an instance that dies, or whose acting failed, is delivered again after the queue's visibility timeout; acting twice
 * changes nothing, and any number of instances share a queue. Polling stays the safety net for what never arrives.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { SitePlatform } from '../../domain/index.js';
import type { Clock } from '../../lib/clock.js';
import { PlatformError } from '../../platforms/contracts/errors.js';
import type { NotificationQueue } from '../../platforms/contracts/notifications.js';
import type { NotificationQueues } from '../../platforms/registry.js';
import type { PlatformProblem } from './platform-health.js';
import type { PlatformNotifications } from './platform-notifications.js';

/** A long poll's wait: SQS's most. */
const WAIT_SECONDS = 20;
/**
 * Receives in flight at once while a queue holds a backlog: one long poll waits while the queue is quiet, and when it
 * comes back full (a burst of sales) this many take what is left without waiting, as SQS's guide scales consumers,
 * each until the queue has nothing for it.
 */
const RECEIVES_IN_BACKLOG = 4;
/** After a failed receive (the queue unreachable, its key refused), the next waits this long. */
const BACK_OFF_MS = 5_000;
/** Of failed receives in a row, one in this many is logged (every five minutes at the back-off). */
const LOG_EVERY = 60;

export function createNotificationQueueReaders(deps: {
  clock: Clock;
  queues: NotificationQueues;
  notifications: Pick<PlatformNotifications, 'queued'>;
  /** A receive or an action that failed: logged by the composition root (never with the message's body). */
  onError: (error: unknown, platform: SitePlatform) => void;
  backOffMs?: number;
}) {
  const entries = Object.entries(deps.queues) as [SitePlatform, NotificationQueue][];
  let running: { stop: AbortController; loops: Promise<void>[] } | null = null;
  /**
   * Queues that refused this instance (a key refused, no such queue): the operator's to fix, shown on GET /health
   * until a receive succeeds again. Meanwhile the platform's orders are read by polling alone.
   */
  const refused = new Map<SitePlatform, PlatformProblem>();

  /**
   * One receive: acts on its notifications, all at once (their order reads are sent together), and removes those acted
   * on; answers how many were taken.
   */
  async function readOnce(platform: SitePlatform, queue: NotificationQueue, waitSeconds: number, signal?: AbortSignal): Promise<number> {
    const taken = await queue.receive(waitSeconds, signal);
    const acted = await Promise.all(
      taken.map(async ({ handle, notification }) => {
        try {
          // A message that is none of this app's notifications is removed unread.
          if (notification) await deps.notifications.queued(platform, notification);
          return handle;
        } catch (error) {
          // Left on the queue: it comes back after its visibility timeout.
          deps.onError(error, platform);
          return null;
        }
      }),
    );
    const done = acted.filter((handle) => handle !== null);
    if (done.length > 0) await queue.remove(done);
    return taken.length;
  }

  /**
   * After a full receive: several receives at once, without waiting, all going on until one finds the queue empty. In a
   * burst the messages keep coming while a receive's are acted on and removed, so one that comes back short of full has
   * not seen the burst's end: were that to end its receiver, the one left that kept coming back full would take the
   * burst alone (the bench found Amazon's notifications read 0.6 s after their sales so, and its orders recorded that
   * late). A failure is the loop's to handle once all of them have ended, so none goes on unawaited into the loop's
   * back-off.
   */
  async function readBacklog(platform: SitePlatform, queue: NotificationQueue, signal: AbortSignal): Promise<void> {
    let empty = false;
    const ends = await Promise.allSettled(
      Array.from({ length: RECEIVES_IN_BACKLOG }, async () => {
        while (!signal.aborted && !empty) if ((await readOnce(platform, queue, 0, signal)) === 0) empty = true;
      }),
    );
    const failed = ends.find((end) => end.status === 'rejected');
    if (failed) throw failed.reason;
  }

  async function loop(platform: SitePlatform, queue: NotificationQueue, signal: AbortSignal): Promise<void> {
    let failures = 0;
    while (!signal.aborted) {
      try {
        if ((await readOnce(platform, queue, WAIT_SECONDS, signal)) >= queue.receiveMax) await readBacklog(platform, queue, signal);
        failures = 0;
        refused.delete(platform);
      } catch (error) {
        if (signal.aborted) return;
        if (error instanceof PlatformError && error.reason === 'misconfigured') {
          const message = `Its order notification queue refused this server: ${error.message}. Orders are polled meanwhile.`;
          refused.set(platform, { track: platform, message, since: refused.get(platform)?.since ?? deps.clock.now() });
        }
        // The first failure of a run of them is logged, then one in LOG_EVERY: an unreachable queue does not flood the log.
        if (failures++ % LOG_EVERY === 0) deps.onError(error, platform);
        // Ended early by the stop (its abort rejects), which the loop's condition then sees.
        await sleep(deps.backOffMs ?? BACK_OFF_MS, undefined, { signal }).catch(() => undefined);
      }
    }
  }

  return {
    /** Starts reading every queue (the listings workers' switch is on); a second start does nothing. */
    start(): void {
      if (running || entries.length === 0) return;
      const stop = new AbortController();
      running = { stop, loops: entries.map(([platform, queue]) => loop(platform, queue, stop.signal)) };
    },
    /** Stops reading: a long poll in flight is cut short, and what it held comes back to the queue in time. */
    async stop(): Promise<void> {
      if (!running) return;
      const { stop, loops } = running;
      running = null;
      stop.abort();
      await Promise.all(loops);
    },
    /** The queues that refused this instance, as GET /health shows a platform that refused its configuration. */
    problems: (): PlatformProblem[] => [...refused.values()],
    /** Reads every queue until it is empty, without waiting (the tests): answers how many were taken. */
    async drain(): Promise<number> {
      let taken = 0;
      for (const [platform, queue] of entries) {
        for (let got = await readOnce(platform, queue, 0); got > 0; got = await readOnce(platform, queue, 0)) taken += got;
      }
      return taken;
    },
  };
}

export type NotificationQueueReaders = ReturnType<typeof createNotificationQueueReaders>;
