/**
 * Listings kept true to their platforms (DESIGN §10, §11): every minute a sweep finds the listings due for a read, by
 * how fast their state moves (under review: every minute; live: every six hours; off: every day), and queues one
 * `listing-read` job each. A read brings the listing's status, the platform's word and issues up to date, follows a
 * listing switched off or on, or deleted, on the platform (the seller's choice there stands: Storelink never publishes
 * on its own), and shows what the platform holds that the catalogue does not (`differences`), recording it as the
 * platform has it so that a refresh sends the catalogue's values again, and only those. A listing whose work is on its
 * way is that work's: the read leaves it alone.
 */
import type { Db } from '../../db/client.js';
import * as listingsRepo from '../../db/listings.repo.js';
import * as productsRepo from '../../db/products.repo.js';
import type { SiteRow } from '../../db/sites.repo.js';
import { PLATFORM_NAMES, type WebhookEvent } from '../../domain/index.js';
import type { Clock } from '../../lib/clock.js';
import type { Jobs, QueueDefinition } from '../../lib/jobs.js';
import type { ExistingListing, ListingsAdapter } from '../../platforms/contracts/listings.js';
import type { ListingsAdapters } from '../../platforms/registry.js';
import type { Pacer } from '../platform-work/pacing.js';
import { platformQueueOptions } from '../platform-work/retry.js';
import type { PlatformJobData, PlatformJobRunner } from '../platform-work/runner.js';
import type { Outbox } from '../webhooks/outbox.js';
import { differencesOf } from './differences.js';
import { draftOf, type ImageBytes } from './draft.js';
import { FOLLOWED_EVENTS, type ListingFollower, type ListingWork } from './listing-work.js';
import { listingsCall, progressOf } from './listings-call.js';
import { presentListing } from './present.js';
import { settingsOf, sitePricing } from './settings.js';

export const WATCH_QUEUE = 'listing-watch';
export const READ_QUEUE = 'listing-read';

/** How long a listing goes unread, by its status: the states a platform moves on its own are read more often. */
export const READ_EVERY_SECONDS = { in_review: 60, active: 6 * 3600, inactive: 24 * 3600, rejected: 24 * 3600, error: 24 * 3600 } as const;
/** Listings a sweep queues at most: the rest are due at the next one, the most overdue first. */
const SWEEP_MAX = 500;

interface ReadJob extends PlatformJobData {
  listingId: number;
}

export function createListingWatch(deps: {
  db: Db;
  clock: Clock;
  jobs: Jobs;
  outbox: Outbox;
  adapters: ListingsAdapters;
  runner: PlatformJobRunner;
  pacerOf: (platform: string) => Pacer;
  imageBytes: ImageBytes;
  /** The listing work, sent when a listing out of review must be switched off as its seller asked meanwhile. */
  work: Pick<ListingWork, 'send'>;
  /** Told, in the same transaction, when a listing went live, off or away on its platform (its advertising follows). */
  followers?: ListingFollower;
  /** The platforms' deadline: a read whose instance died is run again after three of them. */
  timeoutMs: number;
  pollIntervalSeconds: number;
}) {
  const { db, clock, jobs, runner } = deps;

  async function sweep(): Promise<string> {
    const due = await listingsRepo.listingsDueForRead(db, READ_EVERY_SECONDS, clock.now(), SWEEP_MAX);
    for (const id of due) await jobs.send(READ_QUEUE, { listingId: id } satisfies ReadJob, { singletonKey: String(id) });
    return `${due.length} due`;
  }

  interface Subject {
    listing: listingsRepo.ListingRow;
    product: productsRepo.ProductRecord;
  }

  const read = runner.handlerOf<ReadJob, Subject>({
    grant: 'seller',
    ready: (site) => Boolean(deps.adapters[site.platform]),
    async load(job) {
      const listing = await listingsRepo.listingById(db, job.listingId);
      if (!listing || listing.status === 'deleted' || listing.wants === 'deleted' || !listing.externalId) return 'nothing to do';
      if (listing.syncStatus === 'syncing') return 'left to its work';
      const product = await productsRepo.findProduct(db, listing.workspaceId, listing.productId);
      if (!product) return 'nothing to do: the product is gone';
      return { subject: { listing, product }, workspaceId: listing.workspaceId, siteId: listing.siteId };
    },
    async call(subject, site, accessToken) {
      const adapter = deps.adapters[site.platform]!;
      const call = listingsCall(site, accessToken, { pacerOf: deps.pacerOf, signal: jobs.stopDeadline });
      return apply(subject, site, adapter, await adapter.readExisting(call, progressOf(subject.listing.progress)));
    },
    // A passing failure waits for the listing's next turn, as a read would: a platform that is down is not asked for
    // every listing again each minute. (The listing's own time is kept: nothing of it changed.)
    retry: null,
    async givenUp({ listing }, message) {
      await listingsRepo.markRead(db, listing.id, clock.now());
      return `not read: ${message}`;
    },
  });

  /** What the platform holds now, taken into the listing (unless the listing changed while the platform was read). */
  async function apply(
    { listing, product }: Subject,
    site: SiteRow,
    adapter: ListingsAdapter,
    existing: ExistingListing | null,
  ): Promise<string> {
    const progress = progressOf(listing.progress);
    const settings = settingsOf(site.platform, site.listingSettings);
    return db.transaction(async (tx) => {
      const now = clock.now();
      // Locked and read again: a change the listing took while the platform was read is newer than this read.
      const current = await listingsRepo.listingById(tx, listing.id, true);
      if (!current || current.updatedAt.getTime() !== listing.updatedAt.getTime()) {
        if (current) await listingsRepo.markRead(tx, current.id, now);
        return 'changed meanwhile: read again next time';
      }
      let event: WebhookEvent | null = null;
      let fields: Partial<listingsRepo.ListingRow>;
      let switchOff = false;
      if (!existing) {
        fields = {
          status: 'deleted',
          wants: 'deleted',
          syncStatus: 'synced',
          differences: [],
          issues: [
            {
              severity: 'warning',
              code: 'deleted_on_platform',
              message: `The listing was deleted on ${PLATFORM_NAMES[site.platform]}, outside Storelink.`,
              field: null,
              source: 'storelink',
            },
          ],
        };
        event = 'listing.deleted';
      } else {
        const status = existing.state.status;
        const draft = draftOf(product, listing, sitePricing(site, product, settings, listing.overrides).pricing, deps.imageBytes);
        const wentOff = listing.status === 'active' && status === 'inactive';
        const wentLive = listing.status !== 'active' && status === 'active';
        // Out of review: the platform's audit decided, not the seller. A listing the seller switched off meanwhile is
        // switched off now (its work does it), and one refused is told like a refused publish.
        const reviewed = listing.status === 'in_review';
        const refused = listing.status !== 'rejected' && status === 'rejected';
        // A live listing whose edit the platform refused stays live on its earlier version (TikTok Shop's review): the
        // change is not on the platform, and its issues say why.
        const editRefused =
          status === 'active' && listing.syncStatus === 'synced' && existing.state.issues.some((i) => i.severity === 'error');
        if (reviewed && status === 'active' && listing.wants === 'inactive') switchOff = true;
        fields = {
          status,
          // Switched off or on on the platform: the seller's choice there is where they want the listing.
          ...(reviewed ? {} : wentOff ? { wants: 'inactive' as const } : wentLive ? { wants: 'active' as const } : {}),
          ...(editRefused ? { syncStatus: 'failed' as const } : {}),
          platformStatus: existing.state.platformStatus,
          externalUrl: existing.state.externalUrl ?? listing.externalUrl,
          issues: [...listing.issues.filter((issue) => issue.source === 'storelink'), ...existing.state.issues],
          differences: differencesOf(existing.product, draft),
          progress: { ...adapter.reconcile(progress, existing) },
        };
        event = wentOff
          ? 'listing.deactivated'
          : wentLive
            ? 'listing.published'
            : refused
              ? 'listing.rejected'
              : editRefused
                ? 'listing.sync_failed'
                : null;
      }
      const row = await listingsRepo.updateListing(tx, listing.id, { ...fields, readAt: now }, now);
      if (event) await deps.outbox.emit(tx, row.workspaceId, event, { listing: presentListing(row) }, now);
      if (event && FOLLOWED_EVENTS.includes(event)) await deps.followers?.listingChanged(tx, row.id);
      if (switchOff) await deps.work.send(tx, { id: row.id, siteId: row.siteId });
      return `${row.platformStatus ?? row.status}, ${row.differences.length} differences`;
    });
  }

  /**
   * The platform said a listing of the site changed (TikTok Shop's product status webhook): each of the site's listings
   * holding that platform id is read at once, polling staying the safety net. The listings queued, by id.
   */
  async function platformChanged(siteIds: readonly number[], externalId: string): Promise<number[]> {
    const ids: number[] = [];
    for (const siteId of siteIds) {
      const listing = (await listingsRepo.listingsOfExternalIds(db, siteId, [externalId])).get(externalId);
      if (!listing) continue;
      await jobs.send(READ_QUEUE, { listingId: listing.id } satisfies ReadJob, { singletonKey: String(listing.id) });
      ids.push(listing.id);
    }
    return ids;
  }

  const queues: QueueDefinition<object>[] = [
    {
      name: WATCH_QUEUE,
      options: { policy: 'singleton', retryLimit: 0, expireInSeconds: 60, deleteAfterSeconds: 3600 },
      work: { localConcurrency: 1, pollingIntervalSeconds: deps.pollIntervalSeconds },
      handler: () => sweep(),
      worker: 'listings',
      schedule: '* * * * *',
    },
    {
      name: READ_QUEUE,
      // Reads come every few hours per listing: their finished jobs are kept a day, not a week.
      options: { ...platformQueueOptions(deps.timeoutMs), deleteAfterSeconds: 24 * 3600 },
      work: { localConcurrency: 4, pollingIntervalSeconds: deps.pollIntervalSeconds },
      handler: read,
      worker: 'listings',
    } satisfies QueueDefinition<ReadJob> as QueueDefinition<object>,
  ];

  return { queues, sweep, read, platformChanged };
}

export type ListingWatch = ReturnType<typeof createListingWatch>;
