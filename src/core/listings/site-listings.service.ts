/**
 * What a site needs before its listings (DESIGN §10): its listing settings, and the choices, categories and category
 * attributes read from its platform through the listings capability.
 */
import type { Db } from '../../db/client.js';
import * as sitesRepo from '../../db/sites.repo.js';
import { PLATFORM_NAMES } from '../../domain/index.js';
import { AppError, invalidField } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { ListingRefused, PlatformError } from '../../platforms/contracts/errors.js';
import type { ListingsCall } from '../../platforms/contracts/listings.js';
import type { ListingsAdapters } from '../../platforms/registry.js';
import { refusedReason } from '../platform-work/runner.js';
import type { PlatformHealth } from '../sites/platform-health.js';
import type { TokenRefresh } from '../sites/token-refresh.js';
import { type ListingSettings, settingsCreates, settingsFields, settingsOf } from './settings.js';

/**
 * The order of creates: a processing profile and a return policy the platform finds again when asked twice (Etsy
 * answers 409 for a duplicate, and the one it holds is taken), the shipping profile, which it would make twice, last.
 */
const CREATE_ORDER = ['new_processing_profile', 'new_return_policy', 'new_shipping_profile'];

/**
 * The rules of a create that its schema cannot say (listings.md §1.3), as 422 fields: a shipping profile goes to one
 * destination, a country or a region; a return policy that accepts returns or exchanges has a deadline; a minimum is
 * at most its maximum.
 */
function createProblems(name: string, input: Record<string, unknown>): [string, string[]][] {
  const problems: [string, string[]][] = [];
  const range = (min: string, max: string, what: string) => {
    if (Number(input[min]) > Number(input[max])) problems.push([`${name}.${min}`, [`The ${what} at least cannot be more than at most.`]]);
  };
  if (name === 'new_shipping_profile') {
    if ((input.destination_country_iso === undefined) === (input.destination_region === undefined))
      problems.push([
        `${name}.destination_country_iso`,
        ['Give one destination: a country (destination_country_iso) or a region (destination_region).'],
      ]);
    range('min_delivery_days', 'max_delivery_days', 'delivery days');
  }
  if (name === 'new_return_policy' && (input.accepts_returns || input.accepts_exchanges) && input.return_deadline === undefined)
    problems.push([
      `${name}.return_deadline`,
      ['A policy that accepts returns or exchanges needs a deadline (7, 14, 21, 30, 45, 60 or 90 days).'],
    ]);
  if (name === 'new_processing_profile') range('min_processing_time', 'max_processing_time', 'processing time');
  return problems;
}

/** A platform's refusal of a create as 422 fields: each issue on its field of the create (`new_shipping_profile.title`). */
function refusedFields(name: string, refused: ListingRefused): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  for (const issue of refused.issues) {
    const field = issue.field ? `${name}.${issue.field.replace(/^\//, '').replaceAll('/', '.')}` : name;
    (fields[field] ??= []).push(issue.message);
  }
  return fields;
}

/** How long a caller is asked to wait when the platform could not answer. */
const RETRY_AFTER_SECONDS = 30;

export function createSiteListingsService(deps: {
  db: Db;
  clock: Clock;
  adapters: ListingsAdapters;
  refresh: Pick<TokenRefresh, 'accessTokenFor' | 'refused'>;
  /** Told when a platform refuses Storelink's own app or request (logged loudly, shown on GET /health). */
  health: Pick<PlatformHealth, 'misconfigured'>;
}) {
  const { db, clock } = deps;

  /** The workspace's site; 404 whether it is missing or another workspace's (DESIGN §2). */
  async function siteOf(workspaceId: number, siteId: number) {
    const site = await sitesRepo.findSite(db, workspaceId, siteId);
    if (!site) throw new AppError('not_found');
    return site;
  }

  /**
   * Runs `read` against the site's platform with a valid token. A site that is not connected, or whose grant the
   * platform refuses (which turns it `reauthorization_required`), is a 422 on `site_id` saying so; a platform that
   * refuses Storelink's own app or request (a wrong secret, a bad signature: `misconfigured`) is the operator's, logged
   * and shown on GET /health, and a 500 telling the seller it is not theirs (never "try again shortly"); a platform
   * that cannot answer now is a 503 with `Retry-After`.
   */
  async function onPlatform<T>(
    workspaceId: number,
    siteId: number,
    read: (call: ListingsCall, adapter: NonNullable<ListingsAdapters[keyof ListingsAdapters]>) => Promise<T>,
  ): Promise<T> {
    return onSite(await siteOf(workspaceId, siteId), read);
  }

  /** onPlatform for a site the caller has read already. */
  async function onSite<T>(
    site: sitesRepo.SiteRow,
    read: (call: ListingsCall, adapter: NonNullable<ListingsAdapters[keyof ListingsAdapters]>) => Promise<T>,
  ): Promise<T> {
    const adapter = deps.adapters[site.platform];
    if (!adapter) throw invalidField('site_id', `Listings on ${PLATFORM_NAMES[site.platform]} are not available yet.`);
    if (site.status !== 'connected') throw invalidField('site_id', 'The site is not connected: connect it again first.');
    try {
      const accessToken = await deps.refresh.accessTokenFor(site.id);
      const call = {
        externalId: site.externalId,
        data: site.platformData,
        settings: settingsOf(site.platform, site.listingSettings),
        accessToken,
      };
      return await read(call, adapter);
    } catch (error) {
      if (!(error instanceof PlatformError)) throw error;
      if (error.reason === 'rejected') {
        await deps.refresh.refused(site.id, 'seller', refusedReason(site, 'seller', error));
        throw invalidField('site_id', `${PLATFORM_NAMES[site.platform]} refused access: connect the site again. (${error.message})`);
      }
      if (error.reason === 'misconfigured') {
        deps.health.misconfigured(site.platform, error.message);
        throw new AppError('internal', {
          message: `${PLATFORM_NAMES[site.platform]} refused Storelink's own request. This is not your shop's doing: the operator has been told.`,
          cause: error,
        });
      }
      throw new AppError('unavailable', {
        message: `${PLATFORM_NAMES[site.platform]} could not answer now; try again shortly.`,
        headers: { 'retry-after': String(error.retryAfterMs ? Math.ceil(error.retryAfterMs / 1000) : RETRY_AFTER_SECONDS) },
        cause: error,
      });
    }
  }

  return {
    siteOf,
    onPlatform,
    onSite,

    async settings(workspaceId: number, siteId: number): Promise<ListingSettings> {
      const site = await siteOf(workspaceId, siteId);
      return settingsOf(site.platform, site.listingSettings);
    },

    /** The platform's own settings fields with their schemas: what PUT checks a body against, beside the common fields. */
    settingsFields,

    /**
     * Replaces the settings with `settings`, already checked against the platform's fields; answers them as GET does.
     * What the body asks to create on the platform (Etsy's `new_shipping_profile` and the like) is checked whole first, then made
     * there, each filling its setting with the made thing's id; a refusal is a 422 on its field in the platform's words,
     * and stores nothing.
     */
    async replaceSettings(workspaceId: number, siteId: number, settings: ListingSettings): Promise<ListingSettings> {
      const site = await siteOf(workspaceId, siteId);
      const creates = settingsCreates(site.platform);
      const asked = Object.keys(creates).filter((name) => settings[name] !== null && settings[name] !== undefined);
      const values: ListingSettings = Object.fromEntries(Object.entries(settings).filter(([name]) => !(name in creates)));
      if (asked.length > 0) {
        const problems = Object.fromEntries(asked.flatMap((name) => createProblems(name, settings[name] as Record<string, unknown>)));
        // A grant without the scope would be refused by the platform: the seller is told to connect again first.
        for (const name of asked) {
          const { scope } = creates[name]!;
          if (site.grantedScopes && !site.grantedScopes.includes(scope))
            problems[name] = [
              `Storelink needs ${PLATFORM_NAMES[site.platform]}'s ${scope} permission to create this: connect the site again to grant it.`,
            ];
        }
        if (Object.keys(problems).length > 0) throw new AppError('validation_failed', { fields: problems });
        await onSite(site, async (call, adapter) => {
          if (!adapter.createForSettings)
            throw invalidField(asked[0]!, `${PLATFORM_NAMES[site.platform]} takes no ${asked[0]} from Storelink.`);
          // Each made in the order the platform lists them: the ones it can find again when asked twice first.
          for (const name of asked.sort((a, b) => CREATE_ORDER.indexOf(a) - CREATE_ORDER.indexOf(b))) {
            try {
              values[creates[name]!.fills] = await adapter.createForSettings(call, name, settings[name] as Record<string, unknown>);
            } catch (error) {
              if (!(error instanceof ListingRefused)) throw error;
              throw new AppError('validation_failed', { fields: refusedFields(name, error) });
            }
          }
        });
      }
      const stored = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== null && value !== undefined));
      await sitesRepo.setListingSettings(db, site.id, stored, clock.now());
      return settingsOf(site.platform, stored);
    },

    options: (workspaceId: number, siteId: number) => onPlatform(workspaceId, siteId, (call, adapter) => adapter.listingOptions(call)),

    categories: (workspaceId: number, siteId: number, query: { q: string | null; parentId: string | null }) =>
      onPlatform(workspaceId, siteId, (call, adapter) => adapter.categories(call, query)),

    async categoryAttributes(workspaceId: number, siteId: number, categoryId: string) {
      const attributes = await onPlatform(workspaceId, siteId, (call, adapter) => adapter.categoryAttributes(call, categoryId));
      if (!attributes) throw new AppError('not_found');
      return attributes;
    },
  };
}

export type SiteListingsService = ReturnType<typeof createSiteListingsService>;
