/**
 * A bulk edit of prices and stock (issue 34; docs/catalogue.md, "Bulk edit"): new prices and quantities for many
 * variants at once, by sku, as one change of each product they belong to, in one transaction; or, as a dry run, what
 * would change: in the catalogue, and on each channel the products are listed on, as listed there (the site's rate,
 * adjustment, buffer and the listing's overrides applied).
 */
import type { Db } from '../../db/client.js';
import { listingsOfProducts } from '../../db/listings.repo.js';
import * as productsRepo from '../../db/products.repo.js';
import { findSite, type SiteRow } from '../../db/sites.repo.js';
import type { Actor, SitePlatform } from '../../domain/index.js';
import { AppError, type FieldErrors } from '../../errors.js';
import { presentProduct } from '../catalog/present.js';
import { normalisePrice } from '../catalog/product-fields.js';
import type { ProductsService } from '../catalog/products.service.js';
import { skuRace } from '../catalog/sku-race.js';
import { draftOf, type ImageBytes } from './draft.js';
import { settingsOf, sitePricing } from './settings.js';

/** One variant's new values; a field left out stays as it is. */
export interface BulkVariantEdit {
  sku: string;
  price?: string;
  quantity?: number;
}

/** A value the edit changes in the catalogue. */
export interface BulkChange {
  product_id: number;
  sku: string;
  field: 'price' | 'quantity';
  from: string | number;
  to: string | number;
}

/** A value the edit changes on a channel, as listed there; `blocked` says why it will not be sent (no exchange rate). */
export interface ChannelChange {
  listing_id: number;
  site_id: number;
  site_name: string;
  platform: SitePlatform;
  sku: string;
  field: 'price' | 'quantity';
  from: string | number;
  to: string | number;
  blocked: string | null;
}

export interface BulkEditResult {
  updated: number;
  changes: BulkChange[];
  channels: ChannelChange[];
}

export type BulkEdit = ReturnType<typeof createBulkEdit>;

export function createBulkEdit(deps: { db: Db; products: ProductsService; imageBytes: ImageBytes }) {
  const { db } = deps;

  /** The products the skus belong to, locked, and each one's variants as the edit leaves them; 422 for a sku none has. */
  async function plan(tx: Db, workspaceId: number, edits: readonly BulkVariantEdit[]) {
    const errors: FieldErrors = {};
    const owners = await productsRepo.productsOfSkus(
      tx,
      workspaceId,
      edits.map((edit) => edit.sku),
    );
    const seen = new Set<string>();
    edits.forEach((edit, i) => {
      if (!owners.has(edit.sku)) errors[`variants.${i}.sku`] = ['No product has this sku.'];
      else if (seen.has(edit.sku)) errors[`variants.${i}.sku`] = ['The sku is given twice.'];
      seen.add(edit.sku);
      if (edit.price !== undefined && Number(edit.price) <= 0) errors[`variants.${i}.price`] = ['The price must be greater than 0.'];
    });
    if (Object.keys(errors).length > 0) throw new AppError('validation_failed', { fields: errors });
    const bySku = new Map(edits.map((edit) => [edit.sku, edit]));
    const products = await productsRepo.findProducts(tx, workspaceId, [...new Set(owners.values())], true);
    return products.map((product) => ({
      product,
      after: {
        ...product,
        variants: product.variants.map((variant) => {
          const edit = bySku.get(variant.sku);
          return {
            ...variant,
            price: edit?.price === undefined ? variant.price : normalisePrice(edit.price),
            quantity: edit?.quantity ?? variant.quantity,
          };
        }),
      },
    }));
  }

  /** What each listing of the products shows now, and would show after the edit. */
  async function channelsOf(tx: Db, workspaceId: number, plans: Awaited<ReturnType<typeof plan>>): Promise<ChannelChange[]> {
    const listings = await listingsOfProducts(
      tx,
      plans.map((p) => p.product.id),
    );
    const sites = new Map<number, SiteRow | null>();
    const changes: ChannelChange[] = [];
    for (const listing of listings) {
      if (!sites.has(listing.siteId)) sites.set(listing.siteId, await findSite(tx, workspaceId, listing.siteId));
      const site = sites.get(listing.siteId);
      const planned = plans.find((p) => p.product.id === listing.productId);
      if (!site || !planned) continue;
      const settings = settingsOf(site.platform, site.listingSettings);
      const priced = sitePricing(site, planned.after, settings, listing.overrides);
      const before = draftOf(planned.product, listing, priced.pricing, deps.imageBytes);
      const after = draftOf(planned.after, listing, priced.pricing, deps.imageBytes);
      after.variants.forEach((variant, i) => {
        const was = before.variants[i]!;
        const base = { listing_id: listing.id, site_id: site.id, site_name: site.name, platform: site.platform, sku: variant.sku };
        const blocked = priced.issue?.message ?? null;
        if (was.price !== variant.price) changes.push({ ...base, field: 'price', from: was.price, to: variant.price, blocked });
        if (was.quantity !== variant.quantity)
          changes.push({ ...base, field: 'quantity', from: was.quantity, to: variant.quantity, blocked: null });
      });
    }
    return changes;
  }

  return {
    /** The edit (a dry run: what it would change, nothing written); every product it changes is one change, audited. */
    async edit(workspaceId: number, edits: readonly BulkVariantEdit[], dryRun: boolean, actor: Actor): Promise<BulkEditResult> {
      return skuRace(() =>
        db.transaction(async (tx) => {
          const plans = await plan(tx, workspaceId, edits);
          const changes: BulkChange[] = plans.flatMap(({ product, after }) =>
            after.variants.flatMap((variant, i): BulkChange[] => {
              const was = product.variants[i]!;
              const base = { product_id: product.id, sku: variant.sku };
              return [
                ...(was.price !== variant.price ? [{ ...base, field: 'price' as const, from: was.price, to: variant.price }] : []),
                ...(was.quantity !== variant.quantity
                  ? [{ ...base, field: 'quantity' as const, from: was.quantity, to: variant.quantity }]
                  : []),
              ];
            }),
          );
          const channels = await channelsOf(tx, workspaceId, plans);
          const changed = plans.filter(({ product }) => changes.some((c) => c.product_id === product.id));
          if (!dryRun)
            for (const { product, after } of changed) {
              // The variants as the API shows them are what a PATCH takes: each keeps its id.
              const { variants } = presentProduct(after);
              await deps.products.updateIn(tx, workspaceId, product.id, { variants }, {}, actor);
            }
          return { updated: changed.length, changes, channels };
        }),
      );
    },
  };
}
