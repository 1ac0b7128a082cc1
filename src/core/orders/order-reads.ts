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
 * than never: the intake takes each line once. Notified orders read by a search (Amazon's, once getOrder's burst is
 * spent) are asked for only from the newest order the site's last whole read returned, by the platform's own clock,
 * and not at all once recorded: a burst of sales is not paged through again at each read, nor its searches spent on it.
 * A site's searches for notified orders go one at a time, shared by the batches that wait (notified-searches.ts), on
 * workers of their own (`order-search`): a notified batch hands its orders that need one on and ends, so the other
 * platforms' orders notified meanwhile are not held while the search waits for its turn or its spacing.
 */
import { setTimeout as sleep } from 'node:timers/promises';
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
import { createNotifiedSearches } from './notified-searches.js';
import type { OrderIntake } from './order-intake.js';

export const ORDERS_WATCH_QUEUE = 'orders-watch';
export const ORDERS_READ_QUEUE = 'orders-read';
export const ORDER_READ_QUEUE = 'order-read';
export const ORDER_SEARCH_QUEUE = 'order-search';

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
/**
 * Workers an instance runs for notified orders read by a search. A site's searches go one at a time however many wait
 * (notified-searches.ts): a second worker serves another site meanwhile.
 */
const SEARCH_WORKERS = 2;

/** A site, by its workspace and id. */
interface SiteRef {
  workspaceId: number;
  siteId: number;
}

interface SiteReadJob extends PlatformJobData, SiteRef {
  /** Queued for notified orders: read from where the site's last whole read got to, if it is known by then. */
  notified?: true;
}

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
  /** Read on the `order-search` workers: a search the platform's plan answers is made here rather than handed on. */
  searchHere?: true;
}

/** What a read of a site's changed orders did. */
interface ChangedRead {
  /** The platform ids of the orders read. */
  ids: Set<string>;
  /** Whether it read to the last page. */
  complete: boolean;
  /** Where the platform's plan had no room for a later page: when to read on. */
  resumeInMs: number | null;
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

  const sendSiteRead = (site: SiteRef, tx?: Db, startAfter?: Date, notified?: true) =>
    jobs.send(
      ORDERS_READ_QUEUE,
      { workspaceId: site.workspaceId, siteId: site.siteId, ...(notified ? { notified } : {}) } satisfies SiteReadJob,
      {
        singletonKey: String(site.siteId),
        ...(tx ? { tx } : {}),
        ...(startAfter ? { startAfter } : {}),
      },
    );

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

  /**
   * Per site, the newest time (the platform's) of an order a read of its changed orders returned, once that read went to
   * its last page: where a read for notified orders starts. Kept by this instance for its own reads: another instance,
   * or this one after a restart, reads from two minutes before the last read began until its first whole read.
   */
  const searchedTo = new Map<number, Date>();

  /**
   * Reads the site's orders changed since `since`, each page recorded in one transaction as it comes, the next page
   * asked for meanwhile: a burst read after it (Amazon's 100 orders a page) waits for the platform or the database, not
   * both in turn.
   */
  async function readChanged(site: SiteRow, call: ReturnType<typeof callOf>, since: Date): Promise<ChangedRead> {
    const adapter = deps.adapters[site.platform]!;
    const pageAt = (cursor: string | null) => {
      const page = adapter.changed(call, since, cursor);
      // Awaited below, or left when the page before it failed to be recorded: never an unhandled rejection.
      page.catch(() => undefined);
      return page;
    };
    let cursor: string | null = null;
    const ids = new Set<string>();
    let newest: Date | null = null;
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
      next = cursor && pages++ < PAGES_MAX ? pageAt(cursor) : null;
      await deps.intake.record(site, page.orders);
      for (const order of page.orders) {
        ids.add(order.externalId);
        if (!newest || order.updatedAt > newest) newest = order.updatedAt;
      }
      recorded += 1;
    }
    const complete = resumeInMs === null && !cursor;
    const seen = searchedTo.get(site.id);
    if (complete && newest && (!seen || newest > seen)) searchedTo.set(site.id, newest);
    return { ids, complete, resumeInMs };
  }

  /** Queues the site's whole read, after `resumeInMs` where the platform's plan has no room now. */
  const readSiteLater = (site: SiteRow, resumeInMs: number | null, notified?: true) =>
    sendSiteRead(
      { workspaceId: site.workspaceId, siteId: site.id },
      undefined,
      resumeInMs === null ? undefined : new Date(clock.nowMs() + resumeInMs),
      notified,
    );

  /**
   * Where a read for notified orders starts: the newest order the site's last whole read returned, or where a whole
   * read would start if that is later (the last one found nothing for long); everything before either was read. Null
   * until this instance made a whole read of the site.
   */
  const notifiedFrom = (site: SiteRow): Date | null => {
    const searched = searchedTo.get(site.id);
    const overlap = site.ordersReadTo ? site.ordersReadTo.getTime() - OVERLAP_MS : 0;
    return searched ? new Date(Math.max(searched.getTime(), overlap)) : null;
  };

  const notifiedSearches = createNotifiedSearches<ChangedRead>({
    unrecordedOf: (siteId, externalIds) => ordersRepo.unrecordedOf(db, siteId, externalIds),
    sleep,
  });

  const leftOf = (read: ChangedRead) =>
    read.resumeInMs !== null
      ? `, more left: read again in ${Math.ceil(read.resumeInMs / 1000)} s`
      : read.complete
        ? ''
        : ', more left for the next read';

  const readSite = runner.handlerOf<SiteReadJob, SiteReadJob>({
    grant: 'seller',
    ready: (site) => Boolean(deps.adapters[site.platform]),
    async load(job) {
      const loaded = await loadSite(job);
      return typeof loaded === 'string' ? loaded : { ...loaded, subject: job };
    },
    async call(job, site, accessToken) {
      const call = callOf(site, accessToken);
      const subscription = await subscribeOnce(site, call);
      // Queued for notified orders before this instance had read the site whole, and it has since: from there.
      const from = job.notified ? notifiedFrom(site) : null;
      if (from) {
        const read = await readChanged(site, call, from);
        if (read.resumeInMs !== null) await readSiteLater(site, read.resumeInMs, true);
        return `${read.ids.size} order(s) changed since ${from.toISOString()} read, for notified orders${leftOf(read)}`;
      }
      const startedAt = clock.now();
      const since = site.ordersReadTo
        ? new Date(site.ordersReadTo.getTime() - OVERLAP_MS)
        : new Date(startedAt.getTime() - HISTORY_DAYS * 86_400_000);
      const read = await readChanged(site, call, since);
      // Orders left past the last page read are changed after `since` still: the next read starts there again.
      if (read.complete) await ordersRepo.markOrdersRead(db, site.id, startedAt);
      if (read.resumeInMs !== null) await readSiteLater(site, read.resumeInMs);
      return `${read.ids.size} order(s) read${leftOf(read)}${subscription ? `; ${subscription}` : ''}`;
    },
    // A passing failure waits for the site's next turn (a minute, or Amazon's interval): the sweep is the retry.
    retry: null,
    givenUp: async (_site, message) => `not read: ${message}`,
  });

  const sendOrderReads = (reads: readonly OrderReadJob[], startAfter?: Date, queue = ORDER_READ_QUEUE) =>
    jobs.sendMany(
      queue,
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
        // Only the notified orders not recorded yet: one recorded already (a search of the burst read it) is left to the
        // site's next read, which reads its change if it has one. A search is one every three minutes.
        const unrecorded = await ordersRepo.unrecordedOf(db, site.id, job.externalIds);
        const recorded = job.externalIds.length - unrecorded.length;
        const known = recorded > 0 ? `; ${recorded} recorded already, left to the site's next read` : '';
        if (unrecorded.length === 0) return `${recorded} notified order(s) recorded already, left to the site's next read`;
        const from = notifiedFrom(site);
        if (!from) {
          await readSiteLater(site, null, true);
          return `${unrecorded.length} notified order(s): read with the site's changed orders${known}`;
        }
        if (!job.searchHere) {
          const ids = unrecorded.map((externalId) => ({ workspaceId: job.workspaceId, siteId: job.siteId, externalId }));
          await sendOrderReads(ids, undefined, ORDER_SEARCH_QUEUE);
          return `${unrecorded.length} notified order(s): to the site's next search${known}`;
        }
        // The site's next search, shared with the batches that need one meanwhile; from where the one before got to.
        const searched = await notifiedSearches.search(site.id, unrecorded, plan.inMs, () =>
          readChanged(site, call, notifiedFrom(site) ?? from),
        );
        const mine = unrecorded.filter((id) => searched.unrecorded.has(id));
        const before = unrecorded.length - mine.length;
        const earlier = before > 0 ? `; ${before} recorded by the search before` : '';
        const read = searched.read;
        if (!read) return `${unrecorded.length} notified order(s) recorded by the search before${known}`;
        // One the search did not return (the platform's index behind its notification), or pages left: the site's whole
        // read, two minutes back, finds them.
        const missing = mine.filter((id) => !read.ids.has(id));
        if (missing.length > 0 || !read.complete) await readSiteLater(site, read.resumeInMs);
        const after = missing.length > 0 ? `; ${missing.length} not found, read with the site's changed orders` : '';
        return `${unrecorded.length} notified order(s): a search read ${read.ids.size} changed order(s)${leftOf(read)}${after}${earlier}${known}`;
      }
      const now = job.externalIds.slice(0, plan.each);
      const later = job.externalIds.slice(plan.each);
      if (later.length > 0)
        await sendOrderReads(
          later.map((externalId) => ({ workspaceId: job.workspaceId, siteId: job.siteId, externalId })),
          new Date(clock.nowMs() + plan.waitMs),
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
   * by its account is read on each site of that account. `searchHere` on the `order-search` workers.
   */
  async function readNotified(many: readonly (OrderReadJob | NotifiedOrderJob)[], searchHere?: true): Promise<string> {
    const bySite = new Map<number, SiteOrdersJob>();
    const add = ({ workspaceId, siteId }: SiteRef, externalId: string, attempt: number | undefined) => {
      const job = bySite.get(siteId) ?? { workspaceId, siteId, externalIds: [], ...(searchHere ? { searchHere } : {}) };
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
    {
      name: ORDER_SEARCH_QUEUE,
      // Those of a batch above that wait for their site's next search, taken together as they are.
      options: { ...platformQueueOptions(deps.timeoutMs, { deadlines: 10 }), deleteAfterSeconds: 3600 },
      work: { localConcurrency: SEARCH_WORKERS, pollingIntervalSeconds: deps.pollIntervalSeconds },
      handler: (job) => readNotified([job], true),
      batch: { size: NOTIFIED_AT_ONCE, handler: (many) => readNotified(many, true) },
      worker: 'listings',
    } satisfies QueueDefinition<OrderReadJob> as QueueDefinition<object>,
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
