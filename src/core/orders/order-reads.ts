/**
 * Reading orders from the platforms (DESIGN §14, §11). Three ways in, one intake (order-intake.ts):
 * - a sweep every minute queues an `orders-read` job for each connected site whose orders were last read its
 *   platform's poll interval ago or more (the safety net: Etsy and TikTok Shop every minute, Amazon as its rate allows);
 * - a platform's notification of an order (TikTok Shop's ORDER_STATUS_CHANGE, Etsy's ORDER_PAID) queues an `order-read`
 *   of that order, read whole from the platform: the notification's own fields are never trusted for stock. A worker
 *   takes up to 300 of them at once, so a burst of sales is read in as few calls as the platform allows (TikTok Shop:
 *   50 orders a call) and recorded in one transaction per site;
 * - `POST /sites/{id}/orders/sync` and connecting a site queue an `orders-read` at once; the first read of a site goes
 *   30 days back, and what was placed before the site's orders began to count is history.
 *
 * A site's read records each page of orders in one transaction. It asks for the orders changed since a little before
 * the last read began (the platforms' clocks and indexes lag), so an order changed at the edge is read twice rather
 * than never: the intake takes each line once.
 */
import type { Db } from '../../db/client.js';
import * as ordersRepo from '../../db/orders.repo.js';
import type { SiteRow } from '../../db/sites.repo.js';
import * as sitesRepo from '../../db/sites.repo.js';
import type { SitePlatform } from '../../domain/index.js';
import type { Clock } from '../../lib/clock.js';
import type { Jobs, QueueDefinition } from '../../lib/jobs.js';
import { PlatformError } from '../../platforms/contracts/errors.js';
import type { OrdersPage } from '../../platforms/contracts/orders.js';
import type { OrdersAdapters } from '../../platforms/registry.js';
import { listingsCall } from '../listings/listings-call.js';
import type { Pacer } from '../platform-work/pacing.js';
import { platformQueueOptions } from '../platform-work/retry.js';
import type { PlatformJobData, PlatformJobRunner } from '../platform-work/runner.js';
import type { OrderIntake } from './order-intake.js';

export const ORDERS_WATCH_QUEUE = 'orders-watch';
export const ORDERS_READ_QUEUE = 'orders-read';
export const ORDER_READ_QUEUE = 'order-read';

/** The first read of a site goes this far back: its history. */
export const HISTORY_DAYS = 30;
/** Each read goes back this far before the last one began: an order the platform dated a little late is still read. */
const OVERLAP_MS = 120_000;
/** A sweep runs every minute; a site is due a little before its interval is up, so a 60 s interval is met each minute. */
const SWEEP_SLACK_SECONDS = 10;
/** Sites a sweep queues at most: the rest are due at the next one, the longest waiting first. */
const SWEEP_MAX = 500;
/** Pages one read takes at most; the rest are read by the next (the time read up to is the last order's). */
const PAGES_MAX = 200;
/**
 * Notified orders one worker takes at once, and the workers an instance runs. An intake holds the stock of every
 * product its orders touch from its first move to its commit, so in a burst of sales, intakes of the same products
 * on two channels wait for each other: a few large ones record a burst sooner than many small ones. Measured in the
 * bench's burst of 1,000 sales (BENCHMARKS.md, "Fewer, larger intakes"): 50 orders and 4 workers recorded the last
 * order 1.0 to 1.2 s after the last sale, 300 and 2 workers 0.2 to 0.6 s.
 */
const NOTIFIED_AT_ONCE = 300;
const NOTIFIED_WORKERS = 2;

/** A site, by its workspace and id. */
interface SiteRef {
  workspaceId: number;
  siteId: number;
}

interface SiteReadJob extends PlatformJobData, SiteRef {}

interface OrderReadJob extends PlatformJobData, SiteRef {
  externalId: string;
}

/**
 * An order a platform notified, by the account its notification names: the account's sites are found when the order
 * is read, in one query for a worker's whole batch, rather than one for each notification as it comes in.
 */
interface NotifiedOrderJob extends PlatformJobData {
  platform: SitePlatform;
  accountId: string;
  externalId: string;
}

/** Notified orders of one site, read together. */
interface SiteOrdersJob extends PlatformJobData, SiteRef {
  externalIds: string[];
}

export function createOrderReads(deps: {
  db: Db;
  clock: Clock;
  jobs: Jobs;
  adapters: OrdersAdapters;
  runner: PlatformJobRunner;
  intake: OrderIntake;
  pacerOf: (key: string) => Pacer;
  timeoutMs: number;
  pollIntervalSeconds: number;
}) {
  const { db, clock, jobs, runner } = deps;

  const sendSiteRead = (site: SiteRef, tx?: Db, startAfter?: Date) =>
    jobs.send(ORDERS_READ_QUEUE, { ...site } satisfies SiteReadJob, {
      singletonKey: String(site.siteId),
      ...(tx ? { tx } : {}),
      ...(startAfter ? { startAfter } : {}),
    });

  async function sweep(): Promise<string> {
    const every = Object.fromEntries(
      Object.entries(deps.adapters).map(([platform, adapter]) => [platform, Math.max(1, adapter!.pollEverySeconds - SWEEP_SLACK_SECONDS)]),
    );
    const due = await ordersRepo.sitesDueForOrders(db, every, clock.now(), SWEEP_MAX);
    for (const site of due) await sendSiteRead({ workspaceId: site.workspaceId, siteId: site.id });
    return `${due.length} due`;
  }

  const loadSite = async ({ workspaceId, siteId }: SiteRef) => {
    const site = await sitesRepo.findSite(db, workspaceId, siteId);
    return site ? { subject: site, workspaceId, siteId } : 'nothing to do: the site is gone';
  };

  const callOf = (site: SiteRow, accessToken: string) =>
    listingsCall(site, accessToken, { pacerOf: deps.pacerOf, signal: jobs.stopDeadline });

  /** Sites whose platform subscription (Amazon's ORDER_CHANGE) this instance has seen to. */
  const subscribed = new Set<number>();

  /** Makes the site's order subscription where its platform has one and it is missing; once per instance and site. */
  async function subscribeOnce(site: SiteRow, call: ReturnType<typeof callOf>): Promise<string | null> {
    const adapter = deps.adapters[site.platform]!;
    if (!adapter.subscribe || subscribed.has(site.id)) return null;
    try {
      const said = await adapter.subscribe(call);
      subscribed.add(site.id);
      return said;
    } catch (error) {
      // The read goes on: polling serves until the next read makes the subscription.
      return `not subscribed: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  const readSite = runner.handlerOf<SiteReadJob, SiteRow>({
    grant: 'seller',
    ready: (site) => Boolean(deps.adapters[site.platform]),
    load: loadSite,
    async call(site, _site, accessToken) {
      const adapter = deps.adapters[site.platform]!;
      const call = callOf(site, accessToken);
      const subscription = await subscribeOnce(site, call);
      const startedAt = clock.now();
      const since = site.ordersReadTo
        ? new Date(site.ordersReadTo.getTime() - OVERLAP_MS)
        : new Date(startedAt.getTime() - HISTORY_DAYS * 86_400_000);
      const pageAt = (cursor: string | null) => {
        const page = adapter.changed(call, since, cursor);
        // Awaited below, or left when the page before it failed to be recorded: never an unhandled rejection.
        page.catch(() => undefined);
        return page;
      };
      let cursor: string | null = null;
      let read = 0;
      let pages = 1;
      let recorded = 0;
      let resumeInMs: number | null = null;
      let next: Promise<OrdersPage> | null = pageAt(null);
      while (next) {
        let page: OrdersPage;
        try {
          page = await next;
        } catch (error) {
          // A later page the platform's plan has no room for yet (Amazon's search): what was read is kept, and the
          // read goes on from the start again once there is room, rather than at the site's next turn.
          if (recorded === 0) throw error;
          if (!(error instanceof PlatformError) || error.reason !== 'unavailable' || error.retryAfterMs === null) throw error;
          resumeInMs = error.retryAfterMs;
          break;
        }
        cursor = page.next;
        // The next page is asked for while this one is recorded: a burst read after it (Amazon's 100 orders a page)
        // waits for the platform or the database, not both in turn.
        next = cursor && pages++ < PAGES_MAX ? pageAt(cursor) : null;
        await deps.intake.record(site, page.orders);
        read += page.orders.length;
        recorded += 1;
      }
      // Orders left past the last page read are changed after `since` still: the next read starts there again.
      if (!cursor) await ordersRepo.markOrdersRead(db, site.id, startedAt);
      if (resumeInMs !== null)
        await sendSiteRead({ workspaceId: site.workspaceId, siteId: site.id }, undefined, new Date(clock.now().getTime() + resumeInMs));
      const left =
        resumeInMs !== null
          ? `, more left: read again in ${Math.ceil(resumeInMs / 1000)} s`
          : cursor
            ? ', more left for the next read'
            : '';
      return `${read} order(s) read${left}${subscription ? `; ${subscription}` : ''}`;
    },
    // A passing failure waits for the site's next turn (a minute, or Amazon's interval): the sweep is the retry.
    retry: null,
    givenUp: async (_site, message) => `not read: ${message}`,
  });

  const sendOrderReads = (reads: readonly OrderReadJob[], startAfter?: Date) =>
    jobs.sendMany(
      ORDER_READ_QUEUE,
      reads.map((job) => ({
        data: job,
        singletonKey: `${job.siteId}:${job.externalId}`,
        ...(startAfter ? { startAfter } : {}),
      })),
    );

  const readOrders = runner.handlerOf<SiteOrdersJob, SiteOrdersJob>({
    grant: 'seller',
    ready: (site) => Boolean(deps.adapters[site.platform]),
    async load(job) {
      const loaded = await loadSite(job);
      return typeof loaded === 'string' ? loaded : { ...loaded, subject: job };
    },
    async call(job, site, accessToken) {
      const adapter = deps.adapters[site.platform]!;
      const call = callOf(site, accessToken);
      // Within the platform's limits (Amazon's getOrder burst): the site's changed orders hold them all, or some now
      // and the rest once the platform's plan has room again.
      const plan = adapter.planNotifiedRead?.(call, job.externalIds.length) ?? { changed: false, each: job.externalIds.length, waitMs: 0 };
      if (plan.changed) {
        await sendSiteRead({ workspaceId: job.workspaceId, siteId: job.siteId });
        return `${job.externalIds.length} notified order(s): read with the site's changed orders`;
      }
      const now = job.externalIds.slice(0, plan.each);
      const later = job.externalIds.slice(plan.each);
      if (later.length > 0)
        await sendOrderReads(
          later.map((externalId) => ({ workspaceId: job.workspaceId, siteId: job.siteId, externalId })),
          new Date(clock.now().getTime() + plan.waitMs),
        );
      const found = now.length > 0 ? await adapter.orders(call, now) : [];
      const read = new Set(found.map((order) => order.externalId));
      const none = now.filter((id) => !read.has(id));
      const recorded = found.length > 0 ? await deps.intake.record(site, found) : null;
      const missing = none.length > 0 ? `the platform has no order ${none.join(', ')}` : null;
      const waiting = later.length > 0 ? `${later.length} read in ${Math.ceil(plan.waitMs / 1000)} s, within the platform's limit` : null;
      return [recorded, missing, waiting].filter(Boolean).join('; ');
    },
    // A passing failure (a 429 in a burst) reads them again after the back-off, not at the site's next read a minute on.
    retry: async (job, at, attempt) =>
      sendOrderReads(
        job.externalIds.map((externalId) => ({ workspaceId: job.workspaceId, siteId: job.siteId, externalId, attempt })),
        at,
      ),
    // The site's next read finds the orders anyway.
    givenUp: async (_job, message) => `not read: ${message}`,
  });

  /**
   * Notified orders taken together: each site's read at once, in as few calls and one transaction. An order notified
   * by its account is read on each site of that account.
   */
  async function readNotified(many: readonly (OrderReadJob | NotifiedOrderJob)[]): Promise<string> {
    const bySite = new Map<number, SiteOrdersJob>();
    const add = ({ workspaceId, siteId }: SiteRef, externalId: string, attempt: number | undefined) => {
      const job = bySite.get(siteId) ?? { workspaceId, siteId, externalIds: [] };
      if (!job.externalIds.includes(externalId)) job.externalIds.push(externalId);
      // Taken together, they have failed as often as the most tried of them.
      if (attempt && attempt > (job.attempt ?? 0)) job.attempt = attempt;
      bySite.set(siteId, job);
    };
    const byAccount = (job: OrderReadJob | NotifiedOrderJob): job is NotifiedOrderJob => 'accountId' in job;
    const sitesOf = await sitesRepo.sitesOfAccounts(
      db,
      many.filter(byAccount).map((job) => ({ platform: job.platform, externalId: job.accountId })),
    );
    for (const job of many) {
      if (!byAccount(job)) add(job, job.externalId, job.attempt);
      else
        for (const site of sitesOf.get(sitesRepo.accountKey(job.platform, job.accountId)) ?? [])
          add({ workspaceId: site.workspaceId, siteId: site.id }, job.externalId, job.attempt);
    }
    if (bySite.size === 0) return 'no site of the notified account(s)';
    const results = await Promise.all([...bySite.values()].map(async (job) => `site ${job.siteId}: ${await readOrders(job)}`));
    return results.join('\n');
  }

  const queues: QueueDefinition<object>[] = [
    {
      name: ORDERS_WATCH_QUEUE,
      options: { policy: 'singleton', retryLimit: 0, expireInSeconds: 60, deleteAfterSeconds: 3600 },
      work: { localConcurrency: 1, pollingIntervalSeconds: deps.pollIntervalSeconds },
      handler: () => sweep(),
      worker: 'listings',
      schedule: '* * * * *',
    },
    {
      name: ORDERS_READ_QUEUE,
      // One read per site at a time, and one more waiting; reads come every minute, so finished ones are kept an hour.
      options: { ...platformQueueOptions(deps.timeoutMs, { deadlines: 10 }), deleteAfterSeconds: 3600 },
      work: { localConcurrency: 4, pollingIntervalSeconds: deps.pollIntervalSeconds },
      handler: readSite,
      worker: 'listings',
    } satisfies QueueDefinition<SiteReadJob> as QueueDefinition<object>,
    {
      name: ORDER_READ_QUEUE,
      // A batch makes several calls in turn (TikTok Shop's reads of 50, Etsy's pages of 100): as a site's read does.
      options: { ...platformQueueOptions(deps.timeoutMs, { deadlines: 10 }), deleteAfterSeconds: 3600 },
      work: { localConcurrency: NOTIFIED_WORKERS, pollingIntervalSeconds: deps.pollIntervalSeconds },
      handler: (job) => readNotified([job]),
      batch: { size: NOTIFIED_AT_ONCE, handler: readNotified },
      worker: 'listings',
    } satisfies QueueDefinition<OrderReadJob | NotifiedOrderJob> as QueueDefinition<object>,
  ];

  return {
    queues,
    sweep,
    /** Reads the site's new and changed orders now (POST /sites/{id}/orders/sync), in the caller's transaction if given. */
    syncSite: (site: SiteRef, tx?: Db) => sendSiteRead(site, tx),
    /**
     * The site was connected (in the caller's transaction): its orders count from now, and its first read, 30 days
     * back, is queued.
     */
    async siteConnected(tx: Db, siteId: number): Promise<void> {
      const site = await sitesRepo.findSiteById(tx, siteId);
      if (!site || !deps.adapters[site.platform]) return;
      await ordersRepo.ordersFrom(tx, siteId, clock.now());
      await sendSiteRead({ workspaceId: site.workspaceId, siteId }, tx);
    },
    /** A platform said an order of its account changed: each site of that account reads it at once. */
    platformChanged: (platform: SitePlatform, accountId: string, externalId: string): Promise<void> =>
      jobs.sendMany(ORDER_READ_QUEUE, [
        {
          data: { platform, accountId, externalId } satisfies NotifiedOrderJob,
          singletonKey: `${platform}:${accountId}:${externalId}`,
        },
      ]),
  };
}

export type OrderReads = ReturnType<typeof createOrderReads>;
