/**
 * Import of a site's existing listings (DESIGN §10, `POST /sites/{site_id}/listings/import`): the shop's listings are
 * read a page at a time as `listing-import` jobs, each page taken in one transaction with the import's counts and the
 * job of the next page, so a page read again (a crash, a retry) is taken once. A listing is linked to the catalogue's
 * product with the same sku, or its product is made from what the shop shows; one Storelink already holds (by the
 * platform's id) is brought up to date instead of taken twice. An import writes nothing to the platform: a linked
 * product whose catalogue values differ from the shop's has them as the listing's `differences`, and the next change of
 * the product (or a refresh of the listing) sends only what differs (docs/listings.md, "Import").
 */
import * as auditRepo from '../../db/audit.repo.js';
import type { Db } from '../../db/client.js';
import * as importsRepo from '../../db/listing-imports.repo.js';
import * as listingsRepo from '../../db/listings.repo.js';
import * as productsRepo from '../../db/products.repo.js';
import type * as sitesRepo from '../../db/sites.repo.js';
import type { SiteRow } from '../../db/sites.repo.js';
import { type Actor, type ImportSkip, PLATFORM_ID_OF, PLATFORM_NAMES, type ProductInput } from '../../domain/index.js';
import { AppError, invalidField } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { Jobs, QueueDefinition } from '../../lib/jobs.js';
import type { ExistingListing, ExistingPage } from '../../platforms/contracts/listings.js';
import type { ListingsAdapters } from '../../platforms/registry.js';
import type { ProductsService } from '../catalog/products.service.js';
import type { Pacer } from '../platform-work/pacing.js';
import { platformQueueOptions } from '../platform-work/retry.js';
import { afterAttempts, type PlatformJobData, type PlatformJobRunner } from '../platform-work/runner.js';
import { checkSettings, fieldsOf } from './checks.js';
import { differencesOf } from './differences.js';
import { draftOf, type ImageBytes, listedVariants } from './draft.js';
import { listingsCall } from './listings-call.js';
import { marketplaceIdOf, missingSettings, settingsOf, sitePricing } from './settings.js';

export const IMPORT_QUEUE = 'listing-import';

interface ImportJob extends PlatformJobData {
  importId: number;
  /** Passing failures met so far on the current page. */
  attempt?: number;
}

export function presentImport(row: importsRepo.ListingImportRow) {
  return {
    id: row.id,
    site_id: row.siteId,
    status: row.status,
    pages: row.pages,
    found: row.found,
    created: row.created,
    linked: row.linked,
    updated: row.updated,
    skipped: row.skipped,
    skips: row.skips,
    error: row.error,
    started_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    finished_at: row.finishedAt?.toISOString() ?? null,
  };
}

/** A sku for a variant the platform lists without one: the listing's id, and the variant's place when it has several. */
const skuFor = (listing: ExistingListing, index: number) =>
  listing.product.variants.length > 1 ? `${listing.externalId}-${index + 1}` : listing.externalId;

/** The catalogue product a listing of `platform` shows. */
function productInputOf(listing: ExistingListing, platform: string): ProductInput {
  const { product } = listing;
  return {
    title: product.title,
    description: product.description,
    tags: [...(product.tags ?? [])],
    currency: product.currency,
    options: product.options.map((option) => ({ name: option.name, values: [...option.values] })),
    variants: product.variants.map((variant, i) => ({
      sku: variant.sku ?? `${platform.toUpperCase()}-${skuFor(listing, i)}`,
      option_values: variant.optionValues,
      price: variant.price,
      quantity: variant.quantity,
      ...(variant.barcode ? { barcode: variant.barcode } : {}),
    })),
    images: product.images.map((image) => ({ url: image.url, alt: image.alt })),
    package: product.package ?? null,
  };
}

/** A refusal's field messages as one sentence for the import's skips. */
function refusalText(error: AppError): string {
  const fields = Object.entries(error.fields ?? {});
  return fields.length > 0 ? fields.map(([field, messages]) => `${field}: ${messages.join(' ')}`).join('; ') : error.message;
}

export function createListingImport(deps: {
  db: Db;
  clock: Clock;
  jobs: Jobs;
  adapters: ListingsAdapters;
  runner: PlatformJobRunner;
  products: Pick<ProductsService, 'createIn'>;
  pacerOf: (platform: string) => Pacer;
  imageBytes: ImageBytes;
  /** The platforms' deadline: a page whose instance died is read again after three of them. */
  timeoutMs: number;
  pollIntervalSeconds: number;
}) {
  const { db, clock, jobs, runner } = deps;

  const send = (tx: Db, job: ImportJob, at?: Date) =>
    jobs.send(IMPORT_QUEUE, job, { tx, singletonKey: String(job.importId), ...(at ? { startAfter: at } : {}) });

  /** The site's listing of `listing`, taken in the caller's transaction: what the page's outcome counts it as. */
  async function take(
    tx: Db,
    site: NonNullable<Awaited<ReturnType<typeof sitesRepo.findSite>>>,
    row: importsRepo.ListingImportRow,
    listing: ExistingListing,
    known: Map<string, listingsRepo.ListingRow>,
    owners: Map<string, number>,
    listed: Set<number>,
  ): Promise<'created' | 'linked' | 'updated' | string> {
    const now = clock.now();
    const current = known.get(listing.externalId);
    if (current) {
      // A listing whose work is running is that work's to update: the import leaves it alone, and counts it.
      if (current.syncStatus !== 'syncing') {
        await listingsRepo.updateListing(
          tx,
          current.id,
          {
            status: listing.state.status,
            platformStatus: listing.state.platformStatus,
            externalUrl: listing.state.externalUrl ?? current.externalUrl,
            issues: [...current.issues.filter((issue) => issue.source === 'storelink'), ...listing.state.issues],
          },
          now,
        );
      }
      return 'updated';
    }
    const skus = listing.product.variants.flatMap((variant) => (variant.sku ? [variant.sku] : []));
    const productIds = new Set(skus.flatMap((sku) => (owners.has(sku) ? [owners.get(sku)!] : [])));
    if (productIds.size > 1) return `Its skus belong to ${productIds.size} different products of the catalogue.`;
    const actor = { userId: row.startedBy, ipAddress: null };
    const linkedId = [...productIds][0];
    if (linkedId !== undefined && listed.has(linkedId))
      return `The catalogue's product ${linkedId} with its sku is listed on this site already.`;
    let product: productsRepo.ProductRecord | null;
    if (linkedId !== undefined) {
      product = await productsRepo.findProduct(tx, row.workspaceId, linkedId);
      if (!product) throw new Error(`the product ${linkedId} vanished during the import`);
    } else {
      try {
        product = await deps.products.createIn(tx, row.workspaceId, productInputOf(listing, site.platform), {}, actor, 'import');
      } catch (error) {
        if (error instanceof AppError && error.code === 'validation_failed') return `The product cannot be made: ${refusalText(error)}.`;
        throw error;
      }
      for (const variant of product.variants) owners.set(variant.sku, product.id);
    }
    const productId = product.id;
    const outcome = linkedId === undefined ? 'created' : 'linked';
    const settings = settingsOf(site.platform, site.listingSettings);
    // Without a rate into the shop's currency the catalogue's prices are compared as they are: the differences show it.
    const { pricing } = sitePricing(site, product, settings);
    const draft = draftOf(product, { categoryId: listing.categoryId, attributes: listing.attributes }, pricing, deps.imageBytes);
    // A product made from the listing is what the shop holds. A linked one may not be: the shop's listing is left as the
    // seller made it, and what differs is shown (the next change of the product, or a refresh, sends the catalogue's).
    const differences = outcome === 'created' ? [] : differencesOf(listing.product, draft);
    const inserted = await listingsRepo.insertListing(
      tx,
      {
        workspaceId: row.workspaceId,
        siteId: site.id,
        productId,
        platformId: PLATFORM_ID_OF[site.platform],
        categoryId: listing.categoryId,
        attributes: listing.attributes,
        marketplaceId: marketplaceIdOf(site.platform, settings),
        variants: listedVariants(draft, listing.progress.variantIds),
        currency: pricing.currency,
        targetVersion: product.version,
        // Nothing is on its way: the shop holds the product's version, or (null) the listing as the seller made it.
        syncedVersion: differences.length === 0 ? product.version : null,
        syncStatus: 'synced',
        status: listing.state.status,
        platformStatus: listing.state.platformStatus,
        externalId: listing.externalId,
        externalUrl: listing.state.externalUrl,
        // The seller's choice stands as the shop shows it: an import never puts a listing live or takes one off.
        wants: listing.state.status === 'active' ? 'active' : 'inactive',
        issues: listing.state.issues,
        differences,
        readAt: now,
        progress: { ...listing.progress },
      },
      now,
    );
    // The same listing met again in this import (a shop changing while it is read shifts its pages) is then updated.
    known.set(listing.externalId, inserted);
    listed.add(productId);
    await auditRepo.recordAudit(
      tx,
      [row.workspaceId],
      {
        // An import's listing is logged as imported, not published, and named by its product's title and its site's name.
        action: 'listing.imported',
        actorUserId: row.startedBy,
        subjectType: 'listing',
        subjectId: inserted.id,
        ipAddress: null,
        details: {
          title: product.title,
          site: site.name,
          site_id: site.id,
          product_id: productId,
          import_id: row.id,
          external_id: listing.externalId,
        },
      },
      now,
    );
    return outcome;
  }

  const fail = async (row: importsRepo.ListingImportRow, error: string, outcome: string) => {
    await importsRepo.failImport(db, row.id, error, clock.now());
    return outcome;
  };

  /** One page of the shop's listings, taken; then the next page's job, or the import done. */
  const run = runner.handlerOf<ImportJob, importsRepo.ListingImportRow>({
    grant: 'seller',
    ready: (site) => Boolean(deps.adapters[site.platform]),
    async load(job) {
      const row = await importsRepo.importById(db, job.importId);
      if (!row || row.status !== 'running') return 'nothing to do';
      return { subject: row, workspaceId: row.workspaceId, siteId: row.siteId };
    },
    held: (row) => fail(row, 'The site is not connected: connect it again, then import again.', 'failed: the site is not connected'),
    async call(row, site, accessToken) {
      const call = listingsCall(site, accessToken, { pacerOf: deps.pacerOf, signal: jobs.stopDeadline });
      return takePage(row, site, await deps.adapters[site.platform]!.existing(call, row.cursor));
    },
    grantRefused: (row, site) =>
      fail(
        row,
        `${PLATFORM_NAMES[site.platform]} refused access: connect the site again, then import again.`,
        'failed: the grant was refused',
      ),
    retry: (row, at, attempt) => send(db, { importId: row.id, attempt }, at),
    givenUp: (row, message, site) =>
      fail(row, afterAttempts(`${PLATFORM_NAMES[site.platform]} could not be read`, message), `given up: ${message}`),
  });

  /** The page taken in one transaction with the import's counts and the next page's job. */
  function takePage(row: importsRepo.ListingImportRow, site: SiteRow, page: ExistingPage): Promise<string> {
    return db.transaction(async (tx) => {
      // Locked, and read again: a second run of this job (its first one's instance presumed dead) takes the page once.
      const current = await importsRepo.importById(tx, row.id, true);
      if (!current || current.status !== 'running' || current.cursor !== row.cursor) return 'nothing to do: the page was taken';
      const ids = page.listings.map((listing) => listing.externalId);
      const known = await listingsRepo.listingsOfExternalIds(tx, site.id, ids);
      const skus = page.listings.flatMap((listing) => listing.product.variants.flatMap((v) => (v.sku ? [v.sku] : [])));
      const owners = await productsRepo.productsOfSkus(tx, row.workspaceId, skus);
      const listed = await listingsRepo.listedOnSite(tx, site.id, [...new Set(owners.values())]);
      const outcome: importsRepo.PageOutcome = { found: 0, created: 0, linked: 0, updated: 0, skips: [] };
      for (const listing of page.listings) {
        outcome.found += 1;
        const taken = await take(tx, site, current, listing, known, owners, listed);
        if (taken === 'created' || taken === 'linked' || taken === 'updated') outcome[taken] += 1;
        else outcome.skips.push({ external_id: listing.externalId, title: listing.product.title, message: taken } satisfies ImportSkip);
      }
      await importsRepo.recordPage(tx, row.id, outcome, page.next, clock.now());
      if (page.next) await send(tx, { importId: row.id });
      return `page ${current.pages + 1}: ${outcome.found} found, ${outcome.created} created, ${outcome.linked} linked, ${outcome.updated} updated, ${outcome.skips.length} skipped`;
    });
  }

  const queue: QueueDefinition<ImportJob> = {
    name: IMPORT_QUEUE,
    // A page whose instance died (a kill -9) is read again: taken once all the same.
    options: platformQueueOptions(deps.timeoutMs),
    // An import is a page at a time; two sites' imports run side by side.
    work: { localConcurrency: 2, pollingIntervalSeconds: deps.pollIntervalSeconds },
    handler: run,
    worker: 'listings',
  };

  return {
    queue,

    /**
     * Starts an import of the site's listings (202), or answers the one running. Checked first, as publishing is: the
     * platform has listings in Storelink, the site is connected, and its listing settings are set (a linked product's
     * changes are delivered with them).
     */
    async start(site: NonNullable<Awaited<ReturnType<typeof sitesRepo.findSite>>>, actor: Actor) {
      if (!deps.adapters[site.platform])
        throw invalidField('site_id', `Listings on ${PLATFORM_NAMES[site.platform]} are not available yet.`);
      if (site.status !== 'connected') throw invalidField('site_id', 'The site is not connected: connect it again first.');
      const missing = checkSettings(missingSettings(site.platform, settingsOf(site.platform, site.listingSettings), site.platformData));
      if (missing.length > 0) throw new AppError('validation_failed', { fields: fieldsOf(missing) });
      return db.transaction(async (tx) => {
        const now = clock.now();
        const row = await importsRepo.startImport(tx, { workspaceId: site.workspaceId, siteId: site.id, startedBy: actor.userId }, now);
        if (!row) return presentImport((await importsRepo.latestImport(tx, site.workspaceId, site.id))!);
        await auditRepo.recordAudit(
          tx,
          [site.workspaceId],
          {
            action: 'listing.imported',
            actorUserId: actor.userId,
            subjectType: 'site',
            subjectId: site.id,
            ipAddress: actor.ipAddress,
            details: { name: site.name, import_id: row.id },
          },
          now,
        );
        await send(tx, { importId: row.id });
        return presentImport(row);
      });
    },

    /** The site's latest import; null before its first. */
    async latest(workspaceId: number, siteId: number) {
      const row = await importsRepo.latestImport(db, workspaceId, siteId);
      return row && presentImport(row);
    },
  };
}

export type ListingImport = ReturnType<typeof createListingImport>;
