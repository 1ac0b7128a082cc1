/**
 * The listing work (DESIGN §10, §11): every platform write of a listing runs as a `listing-work` job. A job brings the
 * platform to what the seller asked for (`wants`, `target_version`) from what the listing's `progress` says it already
 * holds, saving the progress at once after every step that must not be repeated and with the outcome for the rest: a
 * job run again after a crash, a time-out or a retry repeats no create, no upload and no publish (at most a put that
 * leaves the listing the same). One job per listing runs at a time, and at most one more waits (pg-boss's `stately`
 * policy on the listing's id). The runner (platform-work/runner.ts) guards the site, gets the token and retries.
 */
import type { Db } from '../../db/client.js';
import * as listingsRepo from '../../db/listings.repo.js';
import * as productsRepo from '../../db/products.repo.js';
import type { SiteRow } from '../../db/sites.repo.js';
import {
  type ListingIssue,
  type ListingStatus,
  PLATFORM_NAMES,
  type SitePlatform,
  storelinkIssue,
  type WebhookEvent,
} from '../../domain/index.js';
import type { Clock } from '../../lib/clock.js';
import type { Jobs, QueueDefinition } from '../../lib/jobs.js';
import { ListingRefused } from '../../platforms/contracts/errors.js';
import type { ListingProgress, PlatformListing } from '../../platforms/contracts/listings.js';
import type { ListingsAdapters } from '../../platforms/registry.js';
import type { Pacer } from '../platform-work/pacing.js';
import { platformQueueOptions } from '../platform-work/retry.js';
import { afterAttempts, type PlatformJobRunner } from '../platform-work/runner.js';
import type { Outbox } from '../webhooks/outbox.js';
import { draftOf, type ImageBytes, listedVariants } from './draft.js';
import { listingsCall, progressOf } from './listings-call.js';
import { createOfferFeeds, type FeedJob } from './offer-feeds.js';
import { presentListing } from './present.js';
import { settingsOf, sitePricing } from './settings.js';

export const LISTING_QUEUE = 'listing-work';

/** Where a listing stands when it cannot be switched on: live already, under the platform's review, or refused by it. */
const UNSWITCHABLE: readonly ListingStatus[] = ['active', 'in_review', 'rejected'];

/** Why a listing the seller wants live is off: every variant is out of stock, and the platform refuses it live so. */
const soldOutIssue = (platform: SitePlatform): ListingIssue => ({
  severity: 'warning',
  code: 'out_of_stock',
  message: `Every variant is out of stock, and ${PLATFORM_NAMES[platform]} refuses a live listing with no unit: the listing is off until stock returns, then live again.`,
  field: null,
  source: 'storelink',
});

/** What else follows a listing's state: its advertising, paused when it goes off, resumed when live, ended when deleted. */
export interface ListingFollower {
  listingChanged(tx: Db, listingId: number): Promise<void>;
}

/** The events that change whether a listing is live on its platform. */
export const FOLLOWED_EVENTS: readonly WebhookEvent[] = ['listing.published', 'listing.deactivated', 'listing.deleted'];

export interface ListingJob {
  listingId: number;
  /** Passing failures met so far: the job is sent again after a back-off, until the listing is given up as `error`. */
  attempt?: number;
  /** The work calls the platform itself, never through a bulk feed (a feed that carried its change failed). */
  direct?: boolean;
}

export interface ListingWork {
  readonly queue: QueueDefinition<ListingJob>;
  /** The bulk feeds' queue (offer-feeds.ts). */
  readonly feedQueue: QueueDefinition<FeedJob>;
  /** Queues the listing's work in the caller's transaction (a second send while one waits is the same job). */
  send(tx: Db, listing: { id: number; siteId: number }, at?: Date, attempt?: number): Promise<void>;
  /** The products changed (in the caller's transaction): their listings go `syncing` and their work is queued. */
  productsChanged(tx: Db, productIds: readonly number[]): Promise<void>;
  /**
   * Queues the work of listings the caller retargeted in its transaction: the order intake's, whose take retargets the
   * listings of the products whose pool moved in the statement that moves it (ordersRepo.takeStock).
   */
  sendAll(tx: Db, listings: readonly { id: number; siteId: number }[]): Promise<void>;
  /** The site was connected again (in the caller's transaction): the work its listings were held with is queued again. */
  siteConnected(tx: Db, siteId: number): Promise<void>;
}

export function createListingWork(deps: {
  db: Db;
  clock: Clock;
  jobs: Jobs;
  outbox: Outbox;
  adapters: ListingsAdapters;
  /** Runs each job: the site's guard, its token, and the one retry policy. */
  runner: PlatformJobRunner;
  imageBytes: ImageBytes;
  /** The platform's pacer (platform-work/pacing.ts), shared with the imports. */
  pacerOf: (platform: string) => Pacer;
  /** Told, in the same transaction, when a listing goes live, off or away: its advertising follows (DESIGN §13). */
  followers?: ListingFollower;
  /** The platforms' deadline: a job is taken as lost (its instance died) after three of them. */
  timeoutMs: number;
  pollIntervalSeconds: number;
}): ListingWork {
  const { db, clock, jobs, pacerOf, runner } = deps;

  /** A listing's job: one waiting per listing, grouped by its site. */
  const jobOf = (listing: { id: number; siteId: number }, at?: Date, attempt?: number, direct?: boolean) => ({
    data: { listingId: listing.id, ...(attempt ? { attempt } : {}), ...(direct ? { direct } : {}) } satisfies ListingJob,
    singletonKey: String(listing.id),
    group: String(listing.siteId),
    ...(at ? { startAfter: at } : {}),
  });

  const send = async (tx: Db, listing: { id: number; siteId: number }, at?: Date, attempt?: number, direct?: boolean) => {
    const { data, ...options } = jobOf(listing, at, attempt, direct);
    await jobs.send(LISTING_QUEUE, data, { tx, ...options });
  };

  /** Queues the listings' work at once, in one statement (a sale moves the stock of many). */
  const sendAll = (tx: Db, many: readonly { id: number; siteId: number }[]) =>
    jobs.sendMany(
      LISTING_QUEUE,
      many.map((listing) => jobOf(listing)),
      { tx },
    );

  /**
   * Writes the listing's new state and tells the workspace, in one transaction; with `version`, the listing is `synced`
   * if it still targets that version (listingsRepo.settleListing), and otherwise its next job is queued here. A change
   * that arrived while this job ran usually queued that job itself; but when this job was still waiting as the change
   * was sent, the change's send was dropped as a duplicate (one waiting job per listing), and if the job then started
   * before the change committed it read the version before it: without this send the newer change would never be
   * delivered (test/listings/change-while-queued.test.ts). A job already waiting makes this one the same job. Should the
   * process die before this send, this job is run again (pg-boss's retry of a job whose instance died) and reads anew.
   */
  async function record(id: number, fields: Partial<listingsRepo.ListingRow>, event: WebhookEvent | null, version?: number): Promise<void> {
    const now = clock.now();
    const write = async (tx: Db) => {
      if (version === undefined) return listingsRepo.updateListing(tx, id, fields, now);
      const row = await listingsRepo.settleListing(tx, id, fields, version, now);
      if (row.syncStatus === 'syncing') await send(tx, row);
      return row;
    };
    // One statement needs no transaction of its own.
    if (!event) {
      await write(db);
      return;
    }
    await db.transaction(async (tx) => {
      const row = await write(tx);
      await deps.outbox.emit(tx, row.workspaceId, event, { listing: presentListing(row) }, now);
      if (FOLLOWED_EVENTS.includes(event)) await deps.followers?.listingChanged(tx, row.id);
    });
  }

  /** The listing and its product, loaded fresh: a job brings the platform to what they say now. */
  interface Subject {
    listing: listingsRepo.ListingRow;
    product: productsRepo.ProductRecord;
    progress: ListingProgress;
  }

  const save = async (listing: listingsRepo.ListingRow, next: ListingProgress) => {
    await listingsRepo.updateListing(
      db,
      listing.id,
      { progress: { ...next }, externalId: next.externalId, externalUrl: next.externalUrl },
      clock.now(),
    );
  };

  /** Brings the platform to what the listing wants, from what its progress says the platform holds. */
  async function deliver({ listing, product, progress }: Subject, site: SiteRow, accessToken: string, job: ListingJob): Promise<string> {
    const adapter = deps.adapters[site.platform]!;
    const call = listingsCall(
      site,
      accessToken,
      { pacerOf, signal: jobs.stopDeadline },
      { isClaimed: (externalId) => listingsRepo.externalIdClaimed(db, site.id, externalId, listing.id) },
    );
    if (listing.wants === 'deleted') {
      await adapter.remove(call, progress);
      await record(listing.id, { status: 'deleted', syncStatus: 'synced', issues: [], differences: [] }, 'listing.deleted');
      return 'deleted';
    }
    // A product in another currency than the listing's, without a rate into it, is never sent at its own figure.
    const { pricing, issue } = sitePricing(site, product, settingsOf(site.platform, site.listingSettings), listing.overrides);
    if (issue) throw new ListingRefused([issue]);
    const draft = draftOf(product, listing, pricing, deps.imageBytes);
    // Many listings of the site changing at once: an offer change goes in the site's next bulk feed (offer-feeds.ts).
    const routed = await feeds.route(listing, site, call, draft, progress, job.direct === true, (at) =>
      send(db, listing, at, job.attempt, job.direct),
    );
    if (routed) return routed;
    const before = JSON.stringify(progress);
    const created = await adapter.deliver(call, draft, progress, (next) => save(listing, next));
    // A change delivered to a listing that stands where the seller wants it is not read back: a price change is one
    // call. The read stays for a refresh (nothing to deliver), a listing to put live or take off, and stock run out.
    const settled = JSON.stringify(progress) !== before && listing.status === listing.wants && draft.variants.some((v) => v.quantity > 0);
    let state: PlatformListing | null = created ?? (settled ? null : await adapter.read(call, progress));
    // Every variant at 0 on a platform that refuses a live listing without stock (Etsy): off until stock returns.
    const soldOut = adapter.liveNeedsStock === true && draft.variants.every((v) => v.quantity === 0);
    if (state || !settled) {
      // Etsy charges for each publish: go live only when the platform says the listing is not live already. A listing
      // under review goes live when it passes, and a rejected one when an edit passes (TikTok Shop): neither is switched on.
      if (listing.wants === 'active' && !soldOut && !(state && UNSWITCHABLE.includes(state.status)))
        state = await adapter.setActive(call, progress, true);
      if ((listing.wants === 'inactive' || soldOut) && state?.status === 'active') state = await adapter.setActive(call, progress, false);
    }
    const wentLive = state?.status === 'active' && listing.status !== 'active';
    const wentOff = state?.status === 'inactive' && listing.status === 'active';
    const refused = state?.status === 'rejected' && listing.status !== 'rejected';
    await record(
      listing.id,
      {
        progress: { ...progress },
        status: state?.status ?? listing.status,
        // Not read back: the platform's word and its warnings stand as last read; Storelink's own issues are past.
        platformStatus: state ? state.platformStatus : settled ? listing.platformStatus : null,
        externalUrl: state?.externalUrl ?? progress.externalUrl,
        issues: [
          ...(state ? state.issues : settled ? listing.issues.filter((i) => i.source === 'platform' && i.severity === 'warning') : []),
          ...(soldOut && listing.wants === 'active' ? [soldOutIssue(site.platform)] : []),
        ],
        variants: listedVariants(draft, progress.variantIds),
        currency: draft.currency,
        title: draft.title,
        // The platform holds the catalogue's product now: what differed is sent, and this is as good as a read.
        differences: [],
        readAt: clock.now(),
        syncedVersion: listing.targetVersion,
      },
      wentLive ? 'listing.published' : wentOff ? 'listing.deactivated' : refused ? 'listing.rejected' : null,
      // A change that arrived while this job ran is the next job's: this one delivered `target_version` as it read it.
      listing.targetVersion,
    );
    return `${state?.platformStatus ?? 'unknown'} at version ${listing.targetVersion}`;
  }

  /** A listing never live is `rejected` or `error`; a live one keeps its last good status, its sync `failed`. */
  const failure = (listing: listingsRepo.ListingRow, issues: listingsRepo.ListingRow['issues'], neverLive: ListingStatus) => {
    const live = listing.status !== 'pending' && (neverLive === 'error' || listing.status !== 'rejected');
    return record(
      listing.id,
      live ? { syncStatus: 'failed', issues } : { status: neverLive, syncStatus: 'failed', issues },
      live ? 'listing.sync_failed' : neverLive === 'rejected' ? 'listing.rejected' : 'listing.error',
    );
  };

  const feeds = createOfferFeeds({
    ...deps,
    recorder: {
      settled: (listing, fields, version) => record(listing.id, fields, null, version),
      refused: (listing, issues) => failure(listing, issues, 'rejected'),
      direct: (listing) => send(db, listing, undefined, undefined, true),
    },
  });

  const handler = runner.handlerOf<ListingJob, Subject>({
    grant: 'seller',
    // A platform whose listings this server no longer serves holds the work, as a site not connected does.
    ready: (site) => Boolean(deps.adapters[site.platform]),
    async load(job) {
      const listing = await listingsRepo.listingById(db, job.listingId);
      if (!listing || listing.status === 'deleted') return 'nothing to do';
      const product = await productsRepo.findProduct(db, listing.workspaceId, listing.productId);
      if (!product) return 'nothing to do: the product is gone';
      return {
        subject: { listing, product, progress: progressOf(listing.progress) },
        workspaceId: listing.workspaceId,
        siteId: listing.siteId,
      };
    },
    call: deliver,
    // What was delivered before the failure is not sent again (the steps that are saved at once are saved already).
    interrupted: ({ listing, progress }) => save(listing, progress),
    async refused({ listing }, error) {
      await failure(listing, error.issues, 'rejected');
      return `refused: ${error.message}`;
    },
    retry: ({ listing }, at, attempt) => send(db, listing, at, attempt),
    // The platform's allowance is spent (TikTok Shop's daily new products): the listing keeps its status and says why.
    async deferred({ listing }, error) {
      await record(listing.id, { issues: [error.issue] }, null);
    },
    async givenUp({ listing }, message) {
      await failure(
        listing,
        [storelinkIssue(null, 'delivery_failed', afterAttempts('Storelink could not deliver the listing', message))],
        'error',
      );
      return `given up: ${message}`;
    },
  });

  return {
    queue: {
      name: LISTING_QUEUE,
      // One running and one waiting job per listing; one whose instance died resumes from the saved progress.
      options: platformQueueOptions(deps.timeoutMs),
      // Eight at a time per instance (each worker fetches its next job at once while there are some: lib/jobs.ts).
      work: { localConcurrency: 8, pollingIntervalSeconds: deps.pollIntervalSeconds },
      handler,
      worker: 'listings',
    },
    feedQueue: feeds.queue,
    send: (tx, listing, at, attempt) => send(tx, listing, at, attempt),
    async productsChanged(tx, productIds) {
      await sendAll(tx, await listingsRepo.retargetListings(tx, productIds, clock.now()));
    },
    sendAll,
    async siteConnected(tx, siteId) {
      await sendAll(tx, await listingsRepo.unsyncedListingsOfSite(tx, siteId));
    },
  };
}
