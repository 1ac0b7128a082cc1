/**
 * Advertising a listing on Amazon (DESIGN §13): start it, change its budget, bid or state, end it, and read its daily
 * figures. Each request is checked against Amazon's rules before anything is stored, then recorded with its audit
 * entry and handed to the advertising work (advertising-work.ts) in one transaction.
 */

import * as advertisingRepo from '../../db/advertising.repo.js';
import * as auditRepo from '../../db/audit.repo.js';
import type { Db } from '../../db/client.js';
import { isUniqueViolation } from '../../db/errors.js';
import * as listingsRepo from '../../db/listings.repo.js';
import * as sitesRepo from '../../db/sites.repo.js';
import { type Actor, ADVERTISED_PLATFORMS, type AdvertisingTargeting, type AuditAction, type SellerAdState } from '../../domain/index.js';
import { AppError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { AdvertisingAdapter } from '../../platforms/contracts/advertising.js';
import type { AdvertisingWork } from './advertising-work.js';
import { presentAdvertising } from './present.js';

export interface StartInput {
  daily_budget: string;
  default_bid: string;
  targeting: AdvertisingTargeting;
}

export interface ChangeInput {
  daily_budget?: string;
  default_bid?: string;
  state?: SellerAdState;
}

/** The longest range of days one metrics read answers. */
const METRICS_DAYS_MAX = 366;
const DAY_MS = 86_400_000;

export function createAdvertisingService(deps: {
  db: Db;
  clock: Clock;
  adapter: AdvertisingAdapter | null;
  work: Pick<AdvertisingWork, 'send'>;
}) {
  const { db, clock } = deps;

  const invalid = (fields: Record<string, string[]>) => new AppError('validation_failed', { fields });

  /** Amazon's bounds on the money asked, in the profile's currency: the fields outside them, each with its message. */
  function moneyProblems(currency: string, input: { daily_budget?: string; default_bid?: string; targeting?: AdvertisingTargeting }) {
    const bounds = deps.adapter?.bounds(currency);
    const fields: Record<string, string[]> = {};
    const check = (field: string, value: string | undefined, range: readonly [number, number] | undefined, what: string) => {
      if (value === undefined) return;
      const amount = Number(value);
      if (!(amount > 0)) fields[field] = [`The ${what} must be more than 0.`];
      else if (range && (amount < range[0] || amount > range[1]))
        fields[field] = [`The ${what} must be between ${range[0].toFixed(2)} and ${range[1].toFixed(2)} ${currency}.`];
    };
    check('daily_budget', input.daily_budget, bounds?.budget, 'daily budget');
    check('default_bid', input.default_bid, bounds?.bid, 'default bid');
    if (input.targeting && input.targeting !== 'auto')
      input.targeting.keywords.forEach((keyword, index) =>
        check(`targeting.keywords.${index}.bid`, keyword.bid, bounds?.bid, 'keyword bid'),
      );
    return fields;
  }

  async function audit(tx: Db, action: AuditAction, row: advertisingRepo.AdvertisingRow, actor: Actor, now: Date) {
    await auditRepo.recordAudit(
      tx,
      [row.workspaceId],
      {
        action,
        actorUserId: actor.userId,
        subjectType: 'advertising',
        subjectId: row.id,
        ipAddress: actor.ipAddress,
        details: {
          listing_id: row.listingId,
          site_id: row.siteId,
          daily_budget: row.dailyBudget,
          default_bid: row.defaultBid,
          wants: row.wants,
        },
      },
      now,
    );
  }

  async function listingOf(workspaceId: number, listingId: number) {
    const listing = await listingsRepo.findListing(db, workspaceId, listingId);
    if (!listing) throw new AppError('not_found');
    return listing;
  }

  /** The listing's advertising that has not ended: 404 if it was never advertised, 409 Conflict if it was ended. */
  async function running(workspaceId: number, listingId: number) {
    await listingOf(workspaceId, listingId);
    const row = await advertisingRepo.advertisingOfListing(db, workspaceId, listingId);
    if (!row) throw new AppError('not_found');
    if (row.wants === 'archived')
      throw new AppError('conflict', { message: 'The advertising of this listing has ended; start it again with POST.' });
    return row;
  }

  async function present(row: advertisingRepo.AdvertisingRow) {
    const site = await sitesRepo.findSite(db, row.workspaceId, row.siteId);
    return presentAdvertising(row, site?.status === 'connected' && site.advertisingProfiles !== null);
  }

  /** Records the change and queues the work, in one transaction. */
  async function act(
    current: advertisingRepo.AdvertisingRow,
    action: AuditAction,
    fields: Partial<advertisingRepo.AdvertisingRow>,
    actor: Actor,
  ) {
    const now = clock.now();
    const row = await db.transaction(async (tx) => {
      const updated = await advertisingRepo.updateAdvertising(tx, current.id, { ...fields, syncStatus: 'syncing' }, now);
      await audit(tx, action, updated, actor, now);
      await deps.work.send(tx, updated);
      return updated;
    });
    return present(row);
  }

  return {
    async start(workspaceId: number, listingId: number, input: StartInput, actor: Actor) {
      const listing = await listingOf(workspaceId, listingId);
      const site = await sitesRepo.findSite(db, workspaceId, listing.siteId);
      if (
        !site ||
        !ADVERTISED_PLATFORMS.includes(site.platform) ||
        listing.status !== 'active' ||
        listing.wants !== 'active' ||
        !listing.marketplaceId
      )
        throw invalid({ listing: ['Only an active Amazon listing can be advertised.'] });
      if (!deps.adapter || site.status !== 'connected' || site.advertisingProfiles === null)
        throw invalid({ advertising: ['Connect Amazon advertising to the site first.'] });
      const advertiser = deps.adapter.profileFor(site.advertisingProfiles, listing.marketplaceId);
      if (!advertiser)
        throw invalid({ advertising: ["The site's Amazon Ads account has no advertising profile in the listing's marketplace."] });
      const { profile } = advertiser;
      const currency = advertiser.currency ?? listing.currency;
      const problems = moneyProblems(currency, input);
      if (Object.keys(problems).length > 0) throw invalid(problems);
      if (await advertisingRepo.liveAdvertisingOfListing(db, listing.id)) throw new AppError('conflict');
      const now = clock.now();
      try {
        const row = await db.transaction(async (tx) => {
          const inserted = await advertisingRepo.insertAdvertising(
            tx,
            {
              workspaceId,
              listingId: listing.id,
              siteId: site.id,
              profileId: profile.id,
              marketplaceId: listing.marketplaceId!,
              currency,
              targeting: input.targeting,
              dailyBudget: Number(input.daily_budget).toFixed(2),
              defaultBid: Number(input.default_bid).toFixed(2),
              createdBy: actor.userId,
            },
            now,
          );
          await audit(tx, 'advertising.created', inserted, actor, now);
          await deps.work.send(tx, inserted);
          return inserted;
        });
        return presentAdvertising(row);
      } catch (error) {
        if (isUniqueViolation(error)) throw new AppError('conflict');
        throw error;
      }
    },

    async get(workspaceId: number, listingId: number) {
      await listingOf(workspaceId, listingId);
      const row = await advertisingRepo.advertisingOfListing(db, workspaceId, listingId);
      if (!row) throw new AppError('not_found');
      return present(row);
    },

    async change(workspaceId: number, listingId: number, input: ChangeInput, actor: Actor) {
      const current = await running(workspaceId, listingId);
      const problems = moneyProblems(current.currency, input);
      if (Object.keys(problems).length > 0) throw invalid(problems);
      return act(
        current,
        'advertising.changed',
        {
          ...(input.daily_budget === undefined ? {} : { dailyBudget: Number(input.daily_budget).toFixed(2) }),
          ...(input.default_bid === undefined ? {} : { defaultBid: Number(input.default_bid).toFixed(2) }),
          ...(input.state === undefined ? {} : { wants: input.state }),
        },
        actor,
      );
    },

    async archive(workspaceId: number, listingId: number, actor: Actor) {
      const current = await running(workspaceId, listingId);
      return act(current, 'advertising.archived', { wants: 'archived' }, actor);
    },

    /** The listing's figures per day from `from` to `to` (UTC days, inclusive), as Amazon last reported them. */
    async metrics(workspaceId: number, listingId: number, range: { from?: string; to?: string }) {
      await listingOf(workspaceId, listingId);
      if (!(await advertisingRepo.advertisingOfListing(db, workspaceId, listingId))) throw new AppError('not_found');
      const to = range.to ?? clock.now().toISOString().slice(0, 10);
      const from = range.from ?? new Date(Date.parse(to) - 29 * DAY_MS).toISOString().slice(0, 10);
      if (from > to) throw invalid({ from: ['The from date must not be after the to date.'] });
      if ((Date.parse(to) - Date.parse(from)) / DAY_MS >= METRICS_DAYS_MAX)
        throw invalid({ from: [`The range must be at most ${METRICS_DAYS_MAX} days.`] });
      return advertisingRepo.daysOfListing(db, listingId, from, to);
    },
  };
}

export type AdvertisingService = ReturnType<typeof createAdvertisingService>;
