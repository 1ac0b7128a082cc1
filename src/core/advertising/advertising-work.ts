/**
 * The advertising work (DESIGN §13): every Amazon Ads write of a listing's advertising runs as an `advertising-work` job,
 * with the listing work's rules (listing-work.ts): one job per advertising at a time and one waiting, what Amazon holds
 * saved at once after every create (a job run again after a crash or a lost answer finds the campaign by its name, and
 * the ad group, ads and keywords in it, rather than make them twice), passing failures retried after a back-off and
 * Amazon's `Retry-After`, and given up after as many attempts.
 *
 * A job brings Amazon to where the advertising should stand: archived when the seller ended it or the listing is
 * deleted; paused when the seller paused it or the listing is not live; else enabled, with the budget and bid asked.
 */
import * as advertisingRepo from '../../db/advertising.repo.js';
import type { Db } from '../../db/client.js';
import * as listingsRepo from '../../db/listings.repo.js';
import type { SiteRow } from '../../db/sites.repo.js';
import { type AdvertisingTargeting, DEFAULT_AMAZON_REGION, storelinkIssue, type WebhookEvent } from '../../domain/index.js';
import type { Clock } from '../../lib/clock.js';
import type { Jobs, QueueDefinition } from '../../lib/jobs.js';
import type { AdsCall, AdvertisingAdapter } from '../../platforms/contracts/advertising.js';
import { ListingRefused } from '../../platforms/contracts/errors.js';
import type { Pacer } from '../platform-work/pacing.js';
import { platformQueueOptions } from '../platform-work/retry.js';
import { afterAttempts, type PlatformJobData, type PlatformJobRunner } from '../platform-work/runner.js';
import type { Outbox } from '../webhooks/outbox.js';
import { presentAdvertising } from './present.js';

export const ADVERTISING_QUEUE = 'advertising-work';

export interface AdvertisingJob extends PlatformJobData {
  advertisingId: number;
}

/** What Amazon holds of the advertising, saved after every step that must not be repeated. */
interface AdProgress {
  /** Set before the campaign is created: a run after it finds the campaign by name rather than make a second one. */
  campaignStartedAt?: string;
  adGroupStartedAt?: string;
  adsStartedAt?: string;
  keywordsStartedAt?: string;
  keywordsMade?: boolean;
  /** What Amazon was last sent: the budget, the bid, the campaign's and the ads' state. */
  budget?: string;
  bid?: string;
  campaignState?: 'enabled' | 'paused';
  adsState?: 'enabled' | 'paused';
}

type Target = 'enabled' | 'paused' | 'archived';

/** Where the advertising should stand: the seller's wish, held back by the listing's own state. */
export function targetOf(ad: Pick<advertisingRepo.AdvertisingRow, 'wants'>, listing: listingsRepo.ListingRow | null): Target {
  if (ad.wants === 'archived' || !listing || listing.status === 'deleted' || listing.wants === 'deleted') return 'archived';
  if (ad.wants === 'paused' || listing.status !== 'active') return 'paused';
  return 'enabled';
}

/** The campaign's name: what Amazon shows the seller, and unique in the profile by the advertising's id (found again by it). */
export const campaignNameOf = (ad: { id: number }, listing: { id: number; variants: ReadonlyArray<{ sku: string }> }) =>
  `Storelink listing ${listing.id} ${listing.variants[0]?.sku ?? ''} #${ad.id}`.replace(/\s+/g, ' ');

export interface AdvertisingWork {
  readonly queue: QueueDefinition<AdvertisingJob>;
  send(tx: Db, advertising: { id: number; siteId: number }, at?: Date, attempt?: number): Promise<void>;
  /** The listing's state changed (in the caller's transaction): its advertising follows (paused, resumed or archived). */
  listingChanged(tx: Db, listingId: number): Promise<void>;
  /** Advertising was connected again (in the caller's transaction): the work it held is sent again. */
  siteConnected(tx: Db, siteId: number): Promise<void>;
}

export function createAdvertisingWork(deps: {
  db: Db;
  clock: Clock;
  jobs: Jobs;
  outbox: Outbox;
  adapter: AdvertisingAdapter | null;
  runner: PlatformJobRunner;
  pacerOf: (key: string) => Pacer;
  /** Started once a campaign runs, so its first figures come without waiting for the daily report. */
  firstReport: (tx: Db, advertising: { workspaceId: number; siteId: number; profileId: string }) => Promise<void>;
  timeoutMs: number;
  pollIntervalSeconds: number;
}): AdvertisingWork {
  const { db, clock, jobs, runner } = deps;

  const send: AdvertisingWork['send'] = async (tx, advertising, at, attempt) => {
    await jobs.send(ADVERTISING_QUEUE, { advertisingId: advertising.id, ...(attempt ? { attempt } : {}) } satisfies AdvertisingJob, {
      tx,
      singletonKey: String(advertising.id),
      group: `ads:${advertising.siteId}`,
      ...(at ? { startAfter: at } : {}),
    });
  };

  /** What a run brings Amazon to, as it read it before its first save (a save reads the row back into `ad`). */
  interface Delivered {
    target: Target;
    dailyBudget: string;
    defaultBid: string;
  }

  /**
   * Writes the advertising's new state and tells the workspace, in one transaction. With `delivered` (the run as it read
   * the advertising and its listing, and the target it brought Amazon to), the advertising is `synced`, unless a change
   * was committed since the run read them (the seller's budget, bid or state; the listing gone off, live or away): then
   * it is `syncing`, and its next job is queued here. A change's own send adds no job while one waits (one waiting job
   * per advertising), and the waiting job may start before the change commits and read what was before it: without
   * this the change would never reach Amazon (the listings' case: listing-work.ts). The row is locked first, so a change
   * being made commits before it is read (its transaction writes this row too).
   */
  async function record(
    id: number,
    fields: Partial<advertisingRepo.AdvertisingRow>,
    event: WebhookEvent | null,
    delivered?: Delivered,
  ): Promise<string> {
    const now = clock.now();
    await db.transaction(async (tx) => {
      let movedOn = false;
      if (delivered) {
        const current = await advertisingRepo.advertisingById(tx, id, true);
        const listing = current ? await listingsRepo.listingById(tx, current.listingId) : null;
        movedOn =
          current !== null &&
          (targetOf(current, listing) !== delivered.target ||
            current.dailyBudget !== delivered.dailyBudget ||
            current.defaultBid !== delivered.defaultBid);
      }
      const syncStatus = delivered ? { syncStatus: movedOn ? ('syncing' as const) : ('synced' as const) } : {};
      const row = await advertisingRepo.updateAdvertising(tx, id, { ...fields, ...syncStatus }, now);
      if (movedOn) await send(tx, row);
      if (event) await deps.outbox.emit(tx, row.workspaceId, event, { advertising: presentAdvertising(row) }, now);
      // Its first figures at once; a campaign resumed has them, and the daily report goes on.
      if (event === 'advertising.started' && row.metricsReadAt === null) await deps.firstReport(tx, row);
    });
    return fields.state ?? 'recorded';
  }

  interface Subject {
    ad: advertisingRepo.AdvertisingRow;
    listing: listingsRepo.ListingRow | null;
    target: Target;
    progress: AdProgress;
  }

  const saveOf =
    ({ ad, progress }: Subject) =>
    async (fields: Partial<advertisingRepo.AdvertisingRow> = {}) => {
      Object.assign(ad, await advertisingRepo.updateAdvertising(db, ad.id, { ...fields, progress: { ...progress } }, clock.now()));
    };

  /** Brings Amazon to where the advertising should stand. */
  async function bring(subject: Subject, site: SiteRow, accessToken: string): Promise<string> {
    const { ad, listing, target, progress } = subject;
    const delivered: Delivered = { target, dailyBudget: ad.dailyBudget, defaultBid: ad.defaultBid };
    const adapter = deps.adapter!;
    const pacer = deps.pacerOf(`amazon-ads:${ad.profileId}`);
    const call: AdsCall = {
      accessToken,
      profileId: ad.profileId,
      region: site.advertisingRegion ?? DEFAULT_AMAZON_REGION,
      signal: jobs.stopDeadline,
      beforeCall: () => pacer.beforeCall(),
    };
    if (target === 'archived') {
      const campaignId = ad.campaignId ?? (await adapter.campaignNamed(call, campaignNameOf(ad, listing!)))?.id;
      if (campaignId) await adapter.archiveCampaign(call, campaignId);
      return record(ad.id, { state: 'archived', syncStatus: 'synced', issues: [] }, null);
    }
    const save = saveOf(subject);
    const warnings = await build(call, adapter, ad, listing!, progress, target, save);
    await bringUp(call, adapter, ad, progress, target, save);
    const event =
      target === 'enabled' && ad.state !== 'enabled'
        ? 'advertising.started'
        : target === 'paused' && ad.state === 'enabled'
          ? 'advertising.paused'
          : null;
    return record(ad.id, { state: target, issues: warnings, progress: { ...progress } }, event, delivered);
  }

  /** Amazon's refusal, or Amazon out of reach too long: the advertising's issues (`error` if it never ran). */
  const failure = (ad: advertisingRepo.AdvertisingRow, issues: advertisingRepo.AdvertisingRow['issues']) => {
    const ran = ad.state !== 'pending' && ad.state !== 'error';
    return record(ad.id, { ...(ran ? {} : { state: 'error' }), syncStatus: 'failed', issues }, 'advertising.failed');
  };

  const run = runner.handlerOf<AdvertisingJob, Subject>({
    grant: 'advertising',
    // Advertising that is not connected holds the work (the advertising shows it must be reconnected): connecting it
    // again sends it.
    ready: (site) => deps.adapter !== null && site.advertisingProfiles !== null,
    async load(job) {
      const ad = await advertisingRepo.advertisingById(db, job.advertisingId);
      if (!ad || (ad.state === 'archived' && ad.syncStatus === 'synced')) return 'nothing to do';
      const listing = await listingsRepo.listingById(db, ad.listingId);
      const target = targetOf(ad, listing);
      const progress = { ...(ad.progress as AdProgress) };
      // Nothing was ever sent to Amazon: ending it is Storelink's alone.
      if (target === 'archived' && !ad.campaignId && !progress.campaignStartedAt)
        return record(ad.id, { state: 'archived', syncStatus: 'synced', issues: [] }, null);
      return { subject: { ad, listing, target, progress }, workspaceId: ad.workspaceId, siteId: ad.siteId };
    },
    call: bring,
    interrupted: (subject) => saveOf(subject)(),
    async refused({ ad }, error) {
      await failure(ad, error.issues);
      return `refused: ${error.message}`;
    },
    retry: ({ ad }, at, attempt) => send(db, ad, at, attempt),
    async givenUp({ ad }, message) {
      await failure(ad, [storelinkIssue(null, 'delivery_failed', afterAttempts('Storelink could not reach Amazon Ads', message))]);
      return `given up: ${message}`;
    },
  });

  /**
   * Makes what is not made yet: the campaign, its ad group, a product ad per listed SKU, and a manual campaign's
   * keywords. Each create is marked as started before it is sent, so that a run after a lost answer looks first.
   * Answers the SKUs Amazon would not advertise, as warnings (the others run).
   */
  async function build(
    call: AdsCall,
    adapter: AdvertisingAdapter,
    ad: advertisingRepo.AdvertisingRow,
    listing: listingsRepo.ListingRow,
    progress: AdProgress,
    state: 'enabled' | 'paused',
    save: (fields?: Partial<advertisingRepo.AdvertisingRow>) => Promise<void>,
  ) {
    const targeting = ad.targeting as AdvertisingTargeting;
    const started = () => clock.now().toISOString();
    let campaignId = ad.campaignId;
    if (!campaignId) {
      const name = campaignNameOf(ad, listing);
      campaignId = progress.campaignStartedAt ? ((await adapter.campaignNamed(call, name))?.id ?? null) : null;
      if (!campaignId) {
        progress.campaignStartedAt = started();
        await save();
        const budget = Number(ad.dailyBudget);
        campaignId = await adapter.createCampaign(call, {
          name,
          targeting: targeting === 'auto' ? 'auto' : 'manual',
          dailyBudget: budget,
          state,
        });
      }
      Object.assign(progress, { budget: ad.dailyBudget, campaignState: state });
      await save({ campaignId });
    }
    let adGroupId = ad.adGroupId;
    if (!adGroupId) {
      adGroupId = progress.adGroupStartedAt ? ((await adapter.adGroupsOf(call, campaignId))[0]?.id ?? null) : null;
      if (!adGroupId) {
        progress.adGroupStartedAt = started();
        await save();
        const name = listing.variants[0]?.sku ?? `listing ${listing.id}`;
        adGroupId = await adapter.createAdGroup(call, { campaignId, name, defaultBid: Number(ad.defaultBid), state: 'enabled' });
      }
      progress.bid = ad.defaultBid;
      await save({ adGroupId });
    }
    const adIds = { ...ad.adIds };
    let warnings: ReturnType<typeof storelinkIssue>[] = [];
    const missing = () => listing.variants.map((v) => v.sku).filter((sku) => !adIds[sku]);
    if (missing().length > 0 && progress.adsStartedAt) {
      for (const found of await adapter.productAdsOf(call, adGroupId)) if (found.sku && !adIds[found.sku]) adIds[found.sku] = found.id;
      // Found again after a lost answer: they stand as they were made.
      progress.adsState ??= state;
      await save({ adIds });
    }
    if (missing().length > 0) {
      progress.adsStartedAt = started();
      await save();
      const made = await adapter.createProductAds(call, { campaignId, adGroupId, skus: missing(), state });
      Object.assign(adIds, made.adIds);
      warnings = made.refused.map((issue) => ({ ...issue, severity: 'warning' as const }));
      if (Object.keys(adIds).length === 0) throw new ListingRefused(made.refused);
      progress.adsState = state;
      await save({ adIds });
    }
    if (targeting !== 'auto' && !progress.keywordsMade) {
      const have = progress.keywordsStartedAt ? await adapter.keywordsOf(call, adGroupId) : [];
      const key = (text: string, matchType: string) => `${text.toLowerCase()}|${matchType.toLowerCase()}`;
      const known = new Set(have.map((k) => key(k.text, k.matchType)));
      const keywords = targeting.keywords
        .filter((k) => !known.has(key(k.text, k.match_type)))
        .map((k) => ({ text: k.text, matchType: k.match_type, bid: Number(k.bid) }));
      progress.keywordsStartedAt = started();
      await save();
      if (keywords.length > 0) await adapter.createKeywords(call, { campaignId, adGroupId, keywords });
      progress.keywordsMade = true;
      await save();
    }
    return warnings;
  }

  /** Sends what the seller changed since Amazon was last told: the budget, the bid, and the state of the campaign and ads. */
  async function bringUp(
    call: AdsCall,
    adapter: AdvertisingAdapter,
    ad: advertisingRepo.AdvertisingRow,
    progress: AdProgress,
    state: 'enabled' | 'paused',
    save: () => Promise<void>,
  ) {
    if (progress.budget !== ad.dailyBudget) {
      await adapter.updateCampaign(call, ad.campaignId!, { dailyBudget: Number(ad.dailyBudget) });
      progress.budget = ad.dailyBudget;
      await save();
    }
    if (progress.bid !== ad.defaultBid) {
      await adapter.updateAdGroup(call, ad.adGroupId!, { defaultBid: Number(ad.defaultBid) });
      progress.bid = ad.defaultBid;
      await save();
    }
    if (progress.adsState !== state) {
      await adapter.updateProductAds(call, Object.values(ad.adIds), state);
      progress.adsState = state;
      await save();
    }
    if (progress.campaignState !== state) {
      await adapter.updateCampaign(call, ad.campaignId!, { state });
      progress.campaignState = state;
      await save();
    }
  }

  return {
    queue: {
      name: ADVERTISING_QUEUE,
      options: platformQueueOptions(deps.timeoutMs),
      work: { localConcurrency: 4, pollingIntervalSeconds: deps.pollIntervalSeconds },
      handler: run,
      worker: 'listings',
    },
    send,
    async listingChanged(tx, listingId) {
      const ad = await advertisingRepo.liveAdvertisingOfListing(tx, listingId);
      if (!ad) return;
      await advertisingRepo.updateAdvertising(tx, ad.id, { syncStatus: 'syncing' }, clock.now());
      await send(tx, ad);
    },
    async siteConnected(tx, siteId) {
      for (const ad of await advertisingRepo.unsyncedAdvertisingOfSite(tx, siteId)) await send(tx, ad);
    },
  };
}
