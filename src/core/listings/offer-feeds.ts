/**
 * Bulk changes as one feed (docs/listings.md, "Bulk changes as a feed"): when many listings of a site wait for their
 * work at once (a price rise across the catalogue, an import of new stock), a listing whose work is only offer changes
 * (prices, stock) of a listing the platform holds does not call the platform itself. Its change is queued for the
 * site's next feed, which gathers every change queued within GATHER_MS of the first, sends them as one feed (Amazon's
 * JSON_LISTINGS_FEED), looks at it every LOOK_MS until the platform has processed it, and records each listing's
 * outcome: synced at the version its change brought, or its sync failed with the platform's issues.
 *
 * Order is kept: while a feed holds a listing's change, the listing's own work waits for the feed's outcome, and a
 * change queued but not yet taken is replaced by a newer one, or dropped when the listing's work sends it itself.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/client.js';
import * as feedsRepo from '../../db/listing-feeds.repo.js';
import * as listingsRepo from '../../db/listings.repo.js';
import type { SiteRow } from '../../db/sites.repo.js';
import type { ListedVariant } from '../../domain/index.js';
import type { Clock } from '../../lib/clock.js';
import type { Jobs, QueueDefinition } from '../../lib/jobs.js';
import type { BulkFeeds, ListingDraft, ListingProgress, OfferChange } from '../../platforms/contracts/listings.js';
import type { ListingsAdapters } from '../../platforms/registry.js';
import type { Pacer } from '../platform-work/pacing.js';
import { platformQueueOptions } from '../platform-work/retry.js';
import { afterAttempts, type PlatformJobRunner } from '../platform-work/runner.js';
import { listedVariants } from './draft.js';
import { listingsCall, progressOf } from './listings-call.js';

export const FEED_QUEUE = 'listing-feed';
/** A site with at least this many listings waiting for their work sends their offer changes as one feed. */
export const FEED_MIN_LISTINGS = 20;
/** How long a feed waits, from the first change queued, for the changes that come with it. */
const GATHER_MS = 2_000;
/** How often a submitted feed is looked at (getFeed allows two a second). */
const LOOK_MS = 3_000;

export interface FeedJob {
  workspaceId: number;
  siteId: number;
  /** A submitted feed to look at; absent: gather the site's queued changes and submit them. */
  feedId?: string;
  marketplaceId?: string;
  attempt?: number;
}

/** What a feed item stores: the platform's change, and what the listing records once it is taken. */
interface StoredChange extends OfferChange {
  readonly listed: { variants: ListedVariant[]; currency: string; title: string };
}

/** What the listing work records for a feed's outcome (listing-work.ts's own record and failure). */
export interface FeedRecorder {
  settled(listing: listingsRepo.ListingRow, fields: Partial<listingsRepo.ListingRow>, version: number): Promise<void>;
  refused(listing: listingsRepo.ListingRow, issues: listingsRepo.ListingRow['issues']): Promise<void>;
  /** Sends the listing's own work (after a feed that failed: it calls the platform itself). */
  direct(listing: { id: number; siteId: number }): Promise<void>;
}

/**
 * The items in feeds of at most `max` messages each, in their order; a listing's messages never split between two
 * feeds (its change is recorded from one feed's outcome), so an item larger than `max` alone goes in a feed of its own.
 */
export function feedBatches<T>(items: readonly T[], messages: (item: T) => number, max: number): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let size = 0;
  for (const item of items) {
    const n = messages(item);
    if (current.length > 0 && size + n > max) {
      batches.push(current);
      current = [];
      size = 0;
    }
    current.push(item);
    size += n;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

export function createOfferFeeds(deps: {
  db: Db;
  clock: Clock;
  jobs: Jobs;
  adapters: ListingsAdapters;
  runner: PlatformJobRunner;
  pacerOf: (platform: string) => Pacer;
  timeoutMs: number;
  pollIntervalSeconds: number;
  recorder: FeedRecorder;
}) {
  const { db, clock, jobs, recorder } = deps;
  const feedsOf = (site: SiteRow): BulkFeeds | null => deps.adapters[site.platform]?.feeds ?? null;

  const sendFeedJob = (data: FeedJob, at: Date, attempt?: number) =>
    jobs.send(FEED_QUEUE, { ...data, ...(attempt ? { attempt } : {}) } satisfies FeedJob, {
      singletonKey: data.feedId ? `feed:${data.siteId}:${data.feedId}` : `site:${data.siteId}`,
      startAfter: at,
    });

  /**
   * Where a listing's work goes: null to the platform itself; else why it does not (its change queued for the site's
   * feed, or a feed holds the listing and the work waits for its outcome). `direct` work never goes in a feed.
   */
  async function route(
    listing: listingsRepo.ListingRow,
    site: SiteRow,
    call: Parameters<BulkFeeds['offerChange']>[0],
    draft: ListingDraft,
    progress: ListingProgress,
    direct: boolean,
    wait: (at: Date) => Promise<void>,
  ): Promise<string | null> {
    const feeds = feedsOf(site);
    if (!feeds) return null;
    const waitForFeed = async () => {
      const at = new Date(clock.nowMs() + LOOK_MS);
      await wait(at);
      // The site's feed job is asked for too (one waits at most): a feed whose job was held (the site disconnected,
      // its grant refused) is taken up again rather than leave this listing waiting for it.
      await sendFeedJob({ workspaceId: listing.workspaceId, siteId: site.id }, at);
      return 'waiting: a feed the platform is processing holds this listing';
    };
    // A live listing staying live with stock is the only one whose change is offers alone; the rest reads it back.
    const offersOnly = !direct && listing.wants === 'active' && listing.status === 'active' && draft.variants.some((v) => v.quantity > 0);
    const burst = offersOnly && (await feedsRepo.manyAwaitWork(db, site.id, FEED_MIN_LISTINGS));
    const change = burst ? await feeds.offerChange(call, draft, progress) : null;
    // The work calls the platform itself: a change it queued before is dropped, unless a feed holds it already.
    if (!change) return (await feedsRepo.dropUnclaimed(db, listing.id)) ? waitForFeed() : null;
    const stored: StoredChange = {
      ...change,
      listed: { variants: listedVariants(draft, progress.variantIds), currency: draft.currency, title: draft.title },
    };
    const now = clock.now();
    const queued = await feedsRepo.queueChange(
      db,
      { listingId: listing.id, siteId: site.id, targetVersion: listing.targetVersion, change: { ...stored } },
      now,
    );
    if (!queued) return waitForFeed();
    await sendFeedJob({ workspaceId: listing.workspaceId, siteId: site.id }, new Date(now.getTime() + GATHER_MS));
    return `queued for the site's next feed at version ${listing.targetVersion}`;
  }

  /** Submits each marketplace's changes of the claim as one feed; the feeds' jobs look at them. */
  async function submit(job: FeedJob, feeds: BulkFeeds, call: Parameters<BulkFeeds['submit']>[0], items: feedsRepo.FeedItemRow[]) {
    const byMarketplace = new Map<string, feedsRepo.FeedItemRow[]>();
    for (const item of items) {
      const { marketplaceId } = item.change as unknown as StoredChange;
      byMarketplace.set(marketplaceId, [...(byMarketplace.get(marketplaceId) ?? []), item]);
    }
    const submitted: string[] = [];
    const messagesOf = (item: feedsRepo.FeedItemRow) => (item.change as unknown as StoredChange).messages;
    for (const [marketplaceId, ofMarketplace] of byMarketplace) {
      // Each feed marked submitted as it goes: a job stopped between two feeds sends only the ones not yet sent.
      for (const batch of feedBatches(ofMarketplace, (item) => messagesOf(item).length, feeds.messagesMax)) {
        const messages = batch.flatMap(messagesOf);
        const feedId = await feeds.submit(call, marketplaceId, messages);
        await feedsRepo.markSubmitted(
          db,
          batch.map((item) => item.listingId),
          feedId,
        );
        await sendFeedJob({ ...job, feedId, marketplaceId }, new Date(clock.nowMs() + LOOK_MS));
        submitted.push(`${feedId} (${batch.length} listings, ${messages.length} messages)`);
      }
    }
    return submitted;
  }

  /** The feed's outcome recorded on each of its listings. */
  async function record(job: FeedJob, outcome: NonNullable<Awaited<ReturnType<BulkFeeds['outcome']>>>) {
    const items = await feedsRepo.itemsOfFeed(db, job.siteId, job.feedId!);
    let index = 0;
    let taken = 0;
    for (const item of items) {
      const change = item.change as unknown as StoredChange;
      const first = index;
      index += change.messages.length;
      const listing = await listingsRepo.listingById(db, item.listingId);
      await feedsRepo.release(db, item.listingId);
      if (!listing || listing.status === 'deleted') continue;
      if (outcome.failed) {
        await recorder.direct(listing);
        continue;
      }
      const refusals = change.messages.flatMap((_message, at) => outcome.refusals.get(first + at) ?? []);
      if (refusals.length > 0) {
        await recorder.refused(listing, refusals);
        continue;
      }
      const progress = progressOf(listing.progress);
      progress.delivered = { ...progress.delivered, ...change.delivered };
      await recorder.settled(
        listing,
        {
          progress: { ...progress },
          ...change.listed,
          issues: listing.issues.filter((issue) => issue.source === 'platform' && issue.severity === 'warning'),
          differences: [],
          readAt: clock.now(),
          syncedVersion: item.targetVersion,
        },
        item.targetVersion,
      );
      taken++;
    }
    return outcome.failed
      ? `feed ${job.feedId}: ${outcome.reason}; its ${items.length} listings' work calls the platform itself`
      : `feed ${job.feedId}: ${taken} of ${items.length} listings taken`;
  }

  const handler = deps.runner.handlerOf<FeedJob, FeedJob>({
    grant: 'seller',
    async load(job) {
      return { subject: job, workspaceId: job.workspaceId, siteId: job.siteId };
    },
    ready: (site) => feedsOf(site) !== null,
    async call(job, site, accessToken) {
      const feeds = feedsOf(site)!;
      const call = listingsCall(site, accessToken, { pacerOf: deps.pacerOf, signal: jobs.stopDeadline });
      if (job.feedId && job.marketplaceId) {
        const outcome = await feeds.outcome(call, job.marketplaceId, job.feedId);
        if (outcome) return record(job, outcome);
        await sendFeedJob(job, new Date(clock.nowMs() + LOOK_MS));
        return `feed ${job.feedId}: the platform is processing it`;
      }
      // A submitted feed whose look was lost (its job held while the site was not connected) is looked at again.
      for (const feed of await feedsRepo.submittedFeeds(db, site.id))
        await sendFeedJob({ ...job, feedId: feed.feedId, marketplaceId: feed.marketplaceId }, clock.now());
      // Changes a job claimed and did not submit (it stopped between the two) go first, then the ones queued since.
      const items = await feedsRepo.unsubmitted(db, site.id);
      if (items.length === 0) {
        await feedsRepo.claimChanges(db, site.id, randomUUID());
        items.push(...(await feedsRepo.unsubmitted(db, site.id)));
      }
      if (items.length === 0) return 'nothing to send';
      return `submitted ${(await submit(job, feeds, call, items)).join(', ')}`;
    },
    retry: (job, at, attempt) => sendFeedJob(job, at, attempt),
    async givenUp(job, message) {
      // The feed could not be sent or read: each listing's own work calls the platform instead.
      const items = job.feedId ? await feedsRepo.itemsOfFeed(db, job.siteId, job.feedId) : await feedsRepo.unsubmitted(db, job.siteId);
      for (const item of items) {
        await feedsRepo.release(db, item.listingId);
        await recorder.direct({ id: item.listingId, siteId: item.siteId });
      }
      return afterAttempts('the feed', message);
    },
  });

  const queue: QueueDefinition<FeedJob> = {
    name: FEED_QUEUE,
    options: platformQueueOptions(deps.timeoutMs),
    work: { localConcurrency: 2, pollingIntervalSeconds: deps.pollIntervalSeconds },
    handler,
    worker: 'listings',
  };

  return { route, queue };
}
