/**
 * Listings kept true live (issue 36, item 10): a change made on the platform (title, price, stock, state) shows within a
 * minute. Each connected site whose platform lists its listings by their time of change (ListingsAdapter.changes) is
 * read every few seconds (the platform's interval: Etsy 15 s, TikTok Shop and Amazon 30 s; docs/listings.md), one
 * call a site a turn however many listings it has: the shop's recently updated listings, newest first. Each listing of
 * the site changed since the last turn, and not read or delivered since the change, is read at once (a `listing-read`
 * job of listing-watch.ts, which shows what changed). TikTok Shop's product webhooks queue the same read sooner; this
 * read is their safety net. Nothing is read for a listing that did not change: the cost is one call a site a turn.
 *
 * A site's turns are a chain of `listing-changes` jobs, each sending the next one interval later with what it saw (the
 * platform's latest time of change in each list, and the listings changed at that very time, so that a whole-second
 * time is neither missed nor read twice). A sweep every minute starts the chain of each site that has listings on its
 * platform and none waiting (pg-boss's `stately` policy on the site: a second send while one waits is the same job),
 * so a chain lost with its instance, or ended for a site disconnected, starts again within a minute; a chain started
 * without what the last one saw looks back two minutes.
 */
import type { Db } from '../../db/client.js';
import * as listingsRepo from '../../db/listings.repo.js';
import type { SiteRow } from '../../db/sites.repo.js';
import * as sitesRepo from '../../db/sites.repo.js';
import type { SitePlatform } from '../../domain/index.js';
import type { Clock } from '../../lib/clock.js';
import type { Jobs, QueueDefinition } from '../../lib/jobs.js';
import type { ChangedListing, ListingChanges } from '../../platforms/contracts/listings.js';
import type { ListingsAdapters } from '../../platforms/registry.js';
import type { Pacer } from '../platform-work/pacing.js';
import type { PlatformJobData, PlatformJobRunner } from '../platform-work/runner.js';
import { READ_QUEUE } from './listing-watch.js';
import { listingsCall } from './listings-call.js';

export const CHANGES_QUEUE = 'listing-changes';
export const CHANGES_SWEEP_QUEUE = 'listing-changes-sweep';

/**
 * A listing read or delivered this long after the platform's time of its change holds the change already: it is not
 * read again. Nearer than that, whole-second times (Etsy's) and the two clocks cannot tell which came first, so it is
 * read (a read more, never a change missed).
 */
export const READ_AFTER_CHANGE_SLACK_MS = 2_000;

/** How far back a chain started afresh reads: the minute between two sweeps, and another. */
const LOOK_BACK_MS = 120_000;

/** What a turn saw of one list: the latest time of change, and the listings changed at that time. */
interface Mark {
  at: string;
  ids: string[];
}

interface ChangesJob extends PlatformJobData {
  siteId: number;
  /** The turn's place in the platform's lists (Etsy: active, inactive). */
  turn?: number;
  /** What the turns saw, by list. */
  marks?: Record<string, Mark>;
}

interface Subject {
  job: ChangesJob;
  feed: ListingChanges;
}

export function createListingChanges(deps: {
  db: Db;
  clock: Clock;
  jobs: Jobs;
  adapters: ListingsAdapters;
  runner: PlatformJobRunner;
  pacerOf: (platform: string) => Pacer;
  pollIntervalSeconds: number;
}) {
  const { db, clock, jobs } = deps;
  const feedOf = (platform: SitePlatform) => deps.adapters[platform]?.changes ?? null;
  const platforms = (Object.keys(deps.adapters) as SitePlatform[]).filter((platform) => feedOf(platform));

  /** The site's next turn, the platform's interval from now (the same job as one waiting already). */
  async function next(siteId: number, feed: ListingChanges, turn: number, marks: Record<string, Mark>): Promise<void> {
    const startAfter = new Date(clock.nowMs() + feed.everySeconds * 1000);
    const data: ChangesJob = { siteId, turn: turn % feed.feeds.length, marks };
    await jobs.send(CHANGES_QUEUE, data, { singletonKey: String(siteId), startAfter });
  }

  /** Every minute: the sites with listings on a platform that lists its changes, each one's chain started if none waits. */
  async function sweep(): Promise<string> {
    const siteIds = await listingsRepo.sitesWithListings(db, platforms);
    for (const siteId of siteIds) await jobs.send(CHANGES_QUEUE, { siteId } satisfies ChangesJob, { singletonKey: String(siteId) });
    return `${siteIds.length} site(s)`;
  }

  /** The listings of the site among `changed` not read since their change: a read each, queued now. How many. */
  async function readChanged(site: SiteRow, changed: readonly ChangedListing[]): Promise<number> {
    const latest = new Map<string, number>();
    for (const change of changed) latest.set(change.externalId, Math.max(latest.get(change.externalId) ?? 0, change.updatedAt.getTime()));
    const named = await listingsRepo.listingsNamedBy(db, site.id, [...latest.keys()]);
    let queued = 0;
    for (const listing of named) {
      const names = [listing.externalId!, ...listing.variants.map((variant) => variant.sku)];
      const changedAt = Math.max(...names.map((name) => latest.get(name) ?? 0));
      // Read or delivered after the change: the listing shows it already (a delivery of Storelink's own is such a change).
      if (listing.readAt && listing.readAt.getTime() > changedAt + READ_AFTER_CHANGE_SLACK_MS) continue;
      await jobs.send(READ_QUEUE, { listingId: listing.id }, { singletonKey: String(listing.id) });
      queued += 1;
    }
    return queued;
  }

  const turn = deps.runner.handlerOf<ChangesJob, Subject>({
    grant: 'seller',
    ready: (site) => Boolean(feedOf(site.platform)),
    async load(job) {
      const site = await sitesRepo.findSiteById(db, job.siteId);
      const feed = site && feedOf(site.platform);
      if (!site || !feed) return 'nothing to do: no such site, or its platform lists no changes';
      // A site with no listing on its platform, or disconnected (the runner holds it), ends its chain: the sweep starts
      // it again once it has one and is connected.
      if (!(await listingsRepo.siteHasListings(db, site.id))) return 'nothing to do: no listing on the platform';
      return { subject: { job, feed }, workspaceId: site.workspaceId, siteId: site.id };
    },
    async call({ job, feed }, site, accessToken) {
      const index = (job.turn ?? 0) % feed.feeds.length;
      const list = feed.feeds[index]!;
      const marks = { ...job.marks };
      const mark = marks[list];
      const now = clock.nowMs();
      // Without what the last turn saw: back as far as a lost chain may have left changes unread (the sweep starts a new
      // one within the minute), and at least two rounds.
      const since = mark ? new Date(mark.at) : new Date(now - Math.max(LOOK_BACK_MS, 2 * feed.everySeconds * feed.feeds.length * 1000));
      const call = listingsCall(site, accessToken, { pacerOf: deps.pacerOf, signal: jobs.stopDeadline });
      const changed = (await feed.changedSince(call, list, since)).filter(
        (change) =>
          change.updatedAt > since || (change.updatedAt.getTime() === since.getTime() && !(mark?.ids ?? []).includes(change.externalId)),
      );
      const latest = Math.max(since.getTime(), ...changed.map((change) => change.updatedAt.getTime()));
      const atLatest = changed.filter((change) => change.updatedAt.getTime() === latest).map((change) => change.externalId);
      marks[list] = {
        at: new Date(latest).toISOString(),
        ids: latest === since.getTime() ? [...new Set([...(mark?.ids ?? []), ...atLatest])] : atLatest,
      };
      const read = await readChanged(site, changed);
      await next(site.id, feed, index + 1, marks);
      return `${list}: ${changed.length} changed, ${read} read`;
    },
    // A failed turn is not tried again: the next turn comes at the interval, and reads from the same mark.
    retry: null,
    async givenUp({ job, feed }, message) {
      await next(job.siteId, feed, (job.turn ?? 0) + 1, job.marks ?? {});
      return `not read: ${message}`;
    },
  });

  const queues: QueueDefinition<object>[] = [
    {
      name: CHANGES_SWEEP_QUEUE,
      options: { policy: 'singleton', retryLimit: 0, expireInSeconds: 60, deleteAfterSeconds: 3600 },
      work: { localConcurrency: 1, pollingIntervalSeconds: deps.pollIntervalSeconds },
      handler: () => sweep(),
      worker: 'listings',
      schedule: '* * * * *',
    },
    {
      name: CHANGES_QUEUE,
      // One waiting and one running turn per site; a turn is one call: its finished jobs are kept an hour.
      options: { policy: 'stately', retryLimit: 1, expireInSeconds: 120, deleteAfterSeconds: 3600 },
      work: { localConcurrency: 4, pollingIntervalSeconds: deps.pollIntervalSeconds },
      handler: turn,
      worker: 'listings',
    } satisfies QueueDefinition<ChangesJob> as QueueDefinition<object>,
  ];

  return { queues, sweep, turn };
}

export type ListingChangesWatch = ReturnType<typeof createListingChanges>;
