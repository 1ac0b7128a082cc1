/**
 * Listings (DESIGN §10): publish a catalogue product to a site (or only validate it), read them, and hand every platform
 * write to the listing work (listing-work.ts), in the transaction that records what the seller asked for.
 */

import * as auditRepo from '../../db/audit.repo.js';
import type { Db } from '../../db/client.js';
import { isUniqueViolation } from '../../db/errors.js';
import * as listingsRepo from '../../db/listings.repo.js';
import { storedMediaNames } from '../../db/media.repo.js';
import type { ProductRecord } from '../../db/products.repo.js';
import * as productsRepo from '../../db/products.repo.js';
import {
  type Actor,
  type ListingDifference,
  type ListingIssue,
  type ListingOverrides,
  type ListingStatus,
  OVERRIDE_FIELDS,
  PLATFORM_ID_OF,
  storelinkIssue,
} from '../../domain/index.js';
import { AppError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { parseMediaName } from '../catalog/images.js';
import type { ProductsService } from '../catalog/products.service.js';
import type { Outbox } from '../webhooks/outbox.js';
import { checkAttributes, checkCategory, checkFiles, checkSettings, errorsOf, fieldsOf, fileNamesOf, withoutRepeats } from './checks.js';
import { adoption } from './differences.js';
import { draftOf, type ImageBytes, listedVariants } from './draft.js';
import type { ListingWork } from './listing-work.js';
import { presentListing } from './present.js';
import { marketplaceIdOf, missingSettings, settingsOf, sitePricing } from './settings.js';
import type { SiteListingsService } from './site-listings.service.js';

export interface PublishInput {
  product_id: number;
  category_id: string;
  attributes?: Record<string, unknown>;
  overrides?: OverridesInput | null;
  mode?: 'publish' | 'validate';
}

/** `overrides` as the API takes them: each field given replaces the listing's, null goes back to the product's. */
export type OverridesInput = { [F in keyof ListingOverrides]?: ListingOverrides[F] | null };

export function createListingsService(deps: {
  db: Db;
  clock: Clock;
  outbox: Outbox;
  siteListings: SiteListingsService;
  work: Pick<ListingWork, 'send'>;
  imageBytes: ImageBytes;
  products: Pick<ProductsService, 'update'>;
}) {
  const { db, clock } = deps;

  type ListingAction =
    | 'listing.created'
    | 'listing.changed'
    | 'listing.activated'
    | 'listing.deactivated'
    | 'listing.deleted'
    | 'listing.refreshed';

  async function audit(tx: Db, action: ListingAction, listing: listingsRepo.ListingRow, actor: Actor, now: Date) {
    await auditRepo.recordAudit(
      tx,
      [listing.workspaceId],
      {
        action,
        actorUserId: actor.userId,
        subjectType: 'listing',
        subjectId: listing.id,
        ipAddress: actor.ipAddress,
        // Named by its product's title and its site's name, as they are now: the log keeps them if either goes.
        details: { ...(await listingsRepo.namesOf(tx, listing)), site_id: listing.siteId, product_id: listing.productId },
      },
      now,
    );
  }

  /**
   * Everything checked before anything is stored: the product, the site (connected, its settings), the category and
   * the attributes (read from the platform), and the platform's own rules on the product as the site would list it.
   */
  async function prepare(workspaceId: number, siteId: number, input: PublishInput) {
    const site = await deps.siteListings.siteOf(workspaceId, siteId);
    const product = await productsRepo.findProduct(db, workspaceId, input.product_id);
    if (!product) throw new AppError('validation_failed', { fields: { product_id: ['The selected product id is invalid.'] } });
    const settings = settingsOf(site.platform, site.listingSettings);
    const attributes = input.attributes ?? {};
    const overrides = storedOverrides(input.overrides ?? null);
    const listing = { categoryId: input.category_id, attributes, overrides };
    const missing = missingSettings(site.platform, settings, site.platformData);
    const { pricing, issue: priced } = sitePricing(site, product, settings, overrides);
    const draft = draftOf(product, listing, pricing, deps.imageBytes);
    // A marketplace not chosen yet is its setting's issue; which currency it lists in follows from the choice.
    const pricingIssues = priced && !(priced.code === 'currency_unknown' && missing.length > 0) ? [priced] : [];
    const issues = await deps.siteListings.onSite(site, async (call, adapter) => {
      const category = await adapter.category(call, input.category_id);
      const found = category?.leaf ? ((await adapter.categoryAttributes(call, input.category_id)) ?? []) : [];
      const named = fileNamesOf(found, attributes).map(({ name }) => parseMediaName(name)!);
      const checked = withoutRepeats([
        ...checkSettings(missing),
        ...pricingIssues,
        ...checkOverrides(product, overrides),
        ...checkCategory(input.category_id, category),
        ...(category?.leaf ? checkAttributes(found, attributes) : []),
        ...checkFiles(found, attributes, await storedMediaNames(db, named)),
        // The platform's rules on what the listing shows: an overridden field's issue is the override's.
        ...adapter.check(draft, found, call).map((issue) => onOverride(issue, overrides)),
        ...((await adapter.readiness?.(call)) ?? []),
      ]);
      return input.mode === 'validate' && errorsOf(checked).length === 0 ? [...checked, ...(await adapter.validate(call, draft))] : checked;
    });
    return { site, product, draft, overrides, issues };
  }

  /** The workspace's listing, not deleted nor being deleted: 404 for none, 409 Conflict for one that is gone or going. */
  async function live(workspaceId: number, id: number) {
    const row = await listingsRepo.findListing(db, workspaceId, id);
    if (!row) throw new AppError('not_found');
    if (row.status === 'deleted' || row.wants === 'deleted') throw new AppError('conflict');
    return row;
  }

  /** Records what the seller asked of the listing and queues its work, in one transaction. */
  async function act(current: listingsRepo.ListingRow, action: ListingAction, fields: Partial<listingsRepo.ListingRow>, actor: Actor) {
    const now = clock.now();
    return db.transaction(async (tx) => {
      const row = await listingsRepo.updateListing(tx, current.id, { ...fields, syncStatus: 'syncing' }, now);
      await audit(tx, action, row, actor, now);
      await deps.work.send(tx, row);
      return presentListing(row);
    });
  }

  return {
    /** `mode: validate`: the issues, nothing stored, no platform write. */
    async validate(workspaceId: number, siteId: number, input: PublishInput) {
      const { issues } = await prepare(workspaceId, siteId, input);
      return { valid: errorsOf(issues).length === 0, issues };
    },

    /** `mode: publish`: 422 on any issue, 409 for a second listing of the product on the site, else the listing in `pending`. */
    async publish(workspaceId: number, siteId: number, input: PublishInput, actor: Actor) {
      const { site, product, draft, overrides, issues } = await prepare(workspaceId, siteId, input);
      if (errorsOf(issues).length > 0) throw new AppError('validation_failed', { fields: fieldsOf(issues) });
      const now = clock.now();
      try {
        return await db.transaction(async (tx) => {
          const row = await listingsRepo.insertListing(
            tx,
            {
              workspaceId,
              siteId: site.id,
              productId: product.id,
              platformId: PLATFORM_ID_OF[site.platform],
              categoryId: input.category_id,
              attributes: input.attributes ?? {},
              marketplaceId: marketplaceIdOf(site.platform, settingsOf(site.platform, site.listingSettings)),
              variants: listedVariants(draft, {}),
              currency: draft.currency,
              title: draft.title,
              overrides,
              targetVersion: product.version,
            },
            now,
          );
          await audit(tx, 'listing.created', row, actor, now);
          await deps.work.send(tx, row);
          return presentListing(row);
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw new AppError('conflict');
        throw error;
      }
    },

    /**
     * PATCH: a new category, attributes or overrides (each given override field replaces the listing's, null reverts it,
     * `overrides: null` reverts all), checked as publishing checks them, then delivered (202).
     */
    async change(
      workspaceId: number,
      id: number,
      input: { category_id?: string; attributes?: Record<string, unknown>; overrides?: OverridesInput | null },
      actor: Actor,
    ) {
      const current = await live(workspaceId, id);
      const categoryId = input.category_id ?? current.categoryId;
      const attributes = input.attributes ?? current.attributes;
      const overrides = input.overrides === undefined ? current.overrides : input.overrides && { ...current.overrides, ...input.overrides };
      const {
        issues,
        draft,
        overrides: stored,
      } = await prepare(workspaceId, current.siteId, {
        product_id: current.productId,
        category_id: categoryId,
        attributes,
        overrides,
      });
      if (errorsOf(issues).length > 0) throw new AppError('validation_failed', { fields: fieldsOf(issues) });
      return act(current, 'listing.changed', { categoryId, attributes, overrides: stored, title: draft.title }, actor);
    },

    /** activate, deactivate, delete (202): what the seller wants of the listing, which its work then brings about. */
    async want(workspaceId: number, id: number, wants: 'active' | 'inactive' | 'deleted', actor: Actor) {
      const current = await live(workspaceId, id);
      const action = wants === 'active' ? 'listing.activated' : wants === 'inactive' ? 'listing.deactivated' : 'listing.deleted';
      return act(current, action, { wants }, actor);
    },

    /** refresh (202): the listing read back from the platform (its work, run again, sends nothing that has not changed). */
    async refresh(workspaceId: number, id: number, actor: Actor) {
      return act(await live(workspaceId, id), 'listing.refreshed', {}, actor);
    },

    /**
     * adopt (202): the platform's values of the listing's `differences` taken into the catalogue's product (a product
     * change like any other: every listing of the product follows; this one has them already, so nothing is sent to it).
     * A value the listing overrides (its own title, description or a variant's price) is taken into the override
     * instead: the product, and its other listings, keep theirs. 409 when the listing shows no difference either can
     * take (images, or a variant on one side only, are the seller's to change).
     */
    async adopt(workspaceId: number, id: number, actor: Actor) {
      const current = await live(workspaceId, id);
      const site = await deps.siteListings.siteOf(workspaceId, current.siteId);
      const product = await productsRepo.findProduct(db, workspaceId, current.productId);
      if (!product) throw new AppError('not_found');
      const settings = settingsOf(site.platform, site.listingSettings);
      const { own, overrides } = overridden(current.overrides, current.differences);
      const others = current.differences.filter((difference) => !own.includes(difference));
      // The platform's prices are in the listing's currency: back into the product's by the same rate, when there is one.
      const { pricing, issue } = sitePricing(site, product, settings, current.overrides);
      if (issue && others.some((d) => d.field.endsWith('.price'))) throw new AppError('validation_failed', { fields: fieldsOf([issue]) });
      const change = adoption(product, others, pricing);
      if (!change && own.length === 0)
        throw new AppError('conflict', {
          message: 'The listing shows no value the catalogue can take (images, or a variant on one side only, are changed in the product).',
        });
      if (actor.userId === null) throw new AppError('forbidden');
      if (own.length > 0) {
        const now = clock.now();
        await db.transaction(async (tx) => {
          const row = await listingsRepo.updateListing(
            tx,
            current.id,
            { overrides, title: overrides.title ?? product.title, differences: others },
            now,
          );
          await audit(tx, 'listing.changed', row, actor, now);
        });
      }
      if (change) await deps.products.update(workspaceId, product.id, change, {}, { userId: actor.userId, ipAddress: actor.ipAddress });
      return presentListing((await listingsRepo.findListing(db, workspaceId, id))!);
    },

    async list(
      workspaceId: number,
      siteId: number,
      page: { limit: number; offset: number },
      filter: { status?: ListingStatus; productId?: number },
    ) {
      const site = await deps.siteListings.siteOf(workspaceId, siteId);
      const { rows, total } = await listingsRepo.listListings(db, workspaceId, site.id, page, filter);
      return { rows: rows.map(presentListing), total };
    },

    async get(workspaceId: number, id: number) {
      const row = await listingsRepo.findListing(db, workspaceId, id);
      if (!row) throw new AppError('not_found');
      return presentListing(row);
    },
  };
}

export type ListingsService = ReturnType<typeof createListingsService>;

/** The overrides as stored: the fields given a value, or null when none is. */
function storedOverrides(input: OverridesInput | null): ListingOverrides | null {
  if (!input) return null;
  const stored = Object.fromEntries(OVERRIDE_FIELDS.flatMap((field) => (input[field] == null ? [] : [[field, input[field]]])));
  return Object.keys(stored).length > 0 ? (stored as ListingOverrides) : null;
}

/** The overrides against the product: its own images and variants, each variant priced once, above 0. */
function checkOverrides(product: ProductRecord, overrides: ListingOverrides | null): ListingIssue[] {
  const issues: ListingIssue[] = [];
  const imageIds = new Set(product.images.map((image) => image.id));
  overrides?.images?.forEach((id, i) => {
    if (!imageIds.has(id))
      issues.push(
        storelinkIssue(`overrides.images.${i}`, 'override_image_unknown', `The product has no image ${id}: give the ids of its images.`),
      );
  });
  const skus = new Set(product.variants.map((variant) => variant.sku));
  const seen = new Set<string>();
  overrides?.variants?.forEach(({ sku, price }, i) => {
    if (!skus.has(sku))
      issues.push(storelinkIssue(`overrides.variants.${i}.sku`, 'override_sku_unknown', `The product has no variant ${sku}.`));
    else if (seen.has(sku))
      issues.push(storelinkIssue(`overrides.variants.${i}.sku`, 'override_sku_twice', `The variant ${sku} is priced twice.`));
    seen.add(sku);
    if (Number(price) <= 0) issues.push(storelinkIssue(`overrides.variants.${i}.price`, 'override_price', 'A price is above 0.'));
  });
  if (overrides?.title !== undefined && overrides.title.trim() === '')
    issues.push(storelinkIssue('overrides.title', 'override_title', 'A title has some text.'));
  return issues;
}

/** A platform's issue on a field the listing overrides (`product.title`), said of the override (`overrides.title`). */
function onOverride(issue: ListingIssue, overrides: ListingOverrides | null): ListingIssue {
  const field = issue.field?.match(/^product\.(title|description|images)\b(.*)$/);
  if (!field || overrides?.[field[1] as 'title' | 'description' | 'images'] === undefined) return issue;
  return { ...issue, field: `overrides.${field[1]}${field[2]}` };
}

/**
 * The differences a listing's overrides own (its title, description, or an overridden variant's price), and the
 * overrides with the platform's values of them taken in.
 */
function overridden(current: ListingOverrides | null, differences: readonly ListingDifference[]) {
  const overrides: ListingOverrides = { ...current, ...(current?.variants ? { variants: current.variants.map((v) => ({ ...v })) } : {}) };
  const own = differences.filter((difference) => {
    const price = /^variants\.(.+)\.price$/.exec(difference.field)?.[1];
    const variant = price === undefined ? undefined : overrides.variants?.find((v) => v.sku === price);
    if (variant && difference.platform !== null) variant.price = difference.platform;
    else if (difference.field === 'title' && overrides.title !== undefined && difference.platform !== null)
      overrides.title = difference.platform;
    else if (difference.field === 'description' && overrides.description !== undefined && difference.platform !== null)
      overrides.description = difference.platform;
    else return false;
    return true;
  });
  return { own, overrides };
}
