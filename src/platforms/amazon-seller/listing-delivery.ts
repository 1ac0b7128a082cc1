/**
 * A listing delivered as SKUs (listings.md §3.3–3.4), one per catalogue variant: a SKU put whole when its product part
 * changes (idempotent: a SKU put twice is one listing), its price and stock patched without a new submission, and a SKU
 * whose variant the product no longer has deleted. A product with options is a variation family (DESIGN §15): its
 * parent SKU put first (a child names a parent Amazon holds), then each variant as a child. Each part's fingerprint in
 * `progress.delivered` says what was sent.
 */
import { type ListingIssue, storelinkIssue } from '../../domain/index.js';
import { ListingRefused } from '../contracts/errors.js';
import type { DraftVariant, ListingDraft, ListingProgress, ListingsAdapter, ListingsCall, OfferChange } from '../contracts/listings.js';
import {
  type AmazonMarketplace,
  fbaOf,
  forgetSku,
  handlingOf,
  heldSkus,
  offerPatch,
  parentBody,
  parentPrint,
  putBody,
  requirementsOf,
  type SkuContext,
  skuPrints,
} from './listing-requests.js';
import { issuesOf, refusedSubmission } from './listing-responses.js';
import type { Family } from './listing-themes.js';
import { contextOf, familyOf, localIssues, skuPrefix } from './listing-validation.js';
import type { ListingsItemsApi } from './listings-items-api.js';
import type { AmazonProductTypes, Schema } from './product-types.js';
import { type AmazonListingsDeps, marketplaceFor } from './sp-api.js';

/** Whether a SKU's price, or its stock where Storelink writes it (not an FBA SKU's: Amazon counts it), changed. */
const changedOffer = (delivered: Record<string, string>, wanted: Record<string, string>, sku: string, fba: boolean) =>
  (fba ? ['offer'] : ['offer', 'quantity']).some((part) => delivered[`${part}.${sku}`] !== wanted[`${part}.${sku}`]);

/** One delivery of a listing: what each of its steps reads and updates. */
interface Delivery {
  call: ListingsCall;
  marketplace: AmazonMarketplace;
  draft: ListingDraft;
  progress: ListingProgress;
  schema: Schema;
  context: SkuContext;
  save: (progress: ListingProgress) => Promise<void>;
}

/** The deliveries of one adapter. */
export function createListingDelivery(productTypes: AmazonProductTypes, items: ListingsItemsApi, deps: Pick<AmazonListingsDeps, 'clock'>) {
  /** Puts the SKU whole (the offer and the stock go with it) and checkpoints; Amazon's warnings on it. */
  async function putWhole(delivery: Delivery, variant: DraftVariant, wanted: Record<string, string>): Promise<ListingIssue[]> {
    const { call, marketplace, draft, progress, context } = delivery;
    const { sku } = variant;
    const submission = await items.putSku(call, marketplace, sku, putBody(draft, variant, context), false);
    const refused = refusedSubmission(submission, skuPrefix(draft.variants.length, sku));
    if (refused) throw refused;
    const warnings = issuesOf(submission.issues, skuPrefix(draft.variants.length, sku));
    const asin = submission.identifiers?.find((each) => each.marketplaceId === marketplace.id)?.asin;
    if (asin) progress.variantIds[sku] = asin;
    Object.assign(progress.delivered, wanted);
    progress.createStartedAt ??= deps.clock.now().toISOString();
    progress.externalId ??= draft.variants[0]!.sku;
    await delivery.save(progress);
    return warnings;
  }

  /**
   * Puts the family's parent when what it says changed (its title, description, images, attributes or theme), before
   * any child: Amazon takes a child only under a parent it holds. The listing's id is the parent's SKU.
   */
  async function sendParent(delivery: Delivery, family: Family): Promise<ListingIssue[]> {
    const { call, marketplace, draft, progress, context } = delivery;
    const wanted = parentPrint(draft, family, context);
    if (progress.delivered.family === wanted && progress.delivered.parent === family.parentSku) return [];
    const local = localIssues(draft, delivery.schema, context);
    if (local.length > 0) throw new ListingRefused(local);
    await claimParent(delivery, family);
    const prefix = `${family.parentSku}: `;
    const submission = await items.putSku(call, marketplace, family.parentSku, parentBody(draft, family, context), false);
    const refused = refusedSubmission(submission, prefix);
    if (refused) throw refused;
    progress.delivered.parent = family.parentSku;
    progress.delivered.family = wanted;
    progress.delivered.child ??= draft.variants[0]!.sku;
    progress.createStartedAt ??= deps.clock.now().toISOString();
    progress.externalId ??= family.parentSku;
    await delivery.save(progress);
    return issuesOf(submission.issues, prefix);
  }

  /**
   * Before a family's parent is first put: Amazon must not hold a SKU of its name already, for a put over it would
   * replace a listing of the seller's own (a SKU they named `<sku>-PARENT`, or the parent of another product whose first
   * variant had this SKU). The claim is saved before the put, so a put that landed before a crash is put again, not
   * taken for the seller's; a parent the listing holds already (put before, or imported) is its own.
   */
  async function claimParent(delivery: Delivery, family: Family): Promise<void> {
    const { call, marketplace, progress } = delivery;
    if (progress.delivered.parent === family.parentSku || progress.delivered.parentClaimed === family.parentSku) return;
    if (await items.readItem(call, marketplace, family.parentSku))
      throw new ListingRefused([
        storelinkIssue(
          'product.variants.0.sku',
          'amazon_parent_sku_taken',
          `Amazon already has a listing of yours with the SKU ${family.parentSku}, which Storelink would make this family's parent SKU: give this product's first variant another SKU, or remove that listing on Amazon.`,
        ),
      ]);
    progress.delivered.parentClaimed = family.parentSku;
    await delivery.save(progress);
  }

  /** Puts each SKU whose product part changed, patches each whose price or stock alone did; the warnings of the puts. */
  async function sendChangedSkus(delivery: Delivery): Promise<ListingIssue[]> {
    const { call, marketplace, draft, progress, context } = delivery;
    const warnings: ListingIssue[] = [];
    let checked = false;
    for (const variant of draft.variants) {
      const wanted = skuPrints(draft, variant, context);
      const { sku } = variant;
      if (progress.delivered[`item.${sku}`] !== wanted[`item.${sku}`]) {
        // Amazon's own rules first: a listing its schema refuses is refused before anything is sent.
        const local = checked ? [] : localIssues(draft, delivery.schema, context);
        if (local.length > 0) throw new ListingRefused(local);
        checked = true;
        warnings.push(...(await putWhole(delivery, variant, wanted)));
      } else if (changedOffer(progress.delivered, wanted, sku, Boolean(context.fba?.[sku]))) {
        await items.patchSku(call, marketplace, sku, offerPatch(draft.categoryId, draft, variant, context));
        progress.delivered[`offer.${sku}`] = wanted[`offer.${sku}`]!;
        progress.delivered[`quantity.${sku}`] = wanted[`quantity.${sku}`]!;
      }
    }
    return warnings;
  }

  /** A variant the product no longer has is a SKU Amazon no longer lists; the listing's id is then its first SKU's. */
  async function deleteGoneSkus({ call, marketplace, draft, progress }: Delivery) {
    const current = new Set(draft.variants.map((variant) => variant.sku));
    for (const sku of heldSkus(progress.delivered, null)) {
      if (current.has(sku)) continue;
      await items.deleteSku(call, marketplace, sku);
      forgetSku(progress.delivered, sku);
      delete progress.variantIds[sku];
    }
    const id = progress.externalId;
    if (id && id !== progress.delivered.parent && !current.has(id)) progress.externalId = draft.variants[0]!.sku;
    if (progress.delivered.child && !current.has(progress.delivered.child)) progress.delivered.child = draft.variants[0]!.sku;
  }

  /** What a delivery of the draft works from: the marketplace, the product type's schema, the family and the SKUs' context. */
  async function prepare(call: ListingsCall, draft: ListingDraft, progress: ListingProgress) {
    const marketplace = marketplaceFor(call, progress);
    const schema = await productTypes.schemaFor(call, marketplace, draft.categoryId, requirementsOf(draft));
    const family = familyOf(draft, schema, progress.delivered);
    const context = {
      ...contextOf(call, marketplace, schema, progress.delivered.off === '1', family),
      fba: fbaOf(progress.delivered),
      handling: handlingOf(progress.delivered),
    };
    return { marketplace, schema, family, context };
  }

  /**
   * The delivery as a bulk feed's part (listing-feeds.ts): the offer patches of a listing Amazon holds whose SKUs,
   * family and product type are as delivered, each a feed message; null when the delivery would put, delete or create.
   */
  async function offerChange(call: ListingsCall, draft: ListingDraft, progress: ListingProgress): Promise<OfferChange | null> {
    if (!progress.externalId || progress.delivered.type !== draft.categoryId) return null;
    const { marketplace, family, context } = await prepare(call, draft, progress);
    if (progress.delivered.marketplace !== marketplace.id) return null;
    if (family && (progress.delivered.family !== parentPrint(draft, family, context) || progress.delivered.parent !== family.parentSku))
      return null;
    const current = new Set(draft.variants.map((variant) => variant.sku));
    if (heldSkus(progress.delivered, null).some((sku) => !current.has(sku))) return null;
    const messages: Record<string, unknown>[] = [];
    const delivered: Record<string, string> = {};
    for (const variant of draft.variants) {
      const wanted = skuPrints(draft, variant, context);
      const { sku } = variant;
      if (progress.delivered[`item.${sku}`] !== wanted[`item.${sku}`]) return null;
      if (!changedOffer(progress.delivered, wanted, sku, Boolean(context.fba?.[sku]))) continue;
      messages.push({ sku, operationType: 'PATCH', ...offerPatch(draft.categoryId, draft, variant, context) });
      delivered[`offer.${sku}`] = wanted[`offer.${sku}`]!;
      delivered[`quantity.${sku}`] = wanted[`quantity.${sku}`]!;
    }
    return messages.length > 0 ? { marketplaceId: marketplace.id, messages, delivered } : null;
  }

  return {
    offerChange,
    async deliver(call, draft, progress, save) {
      const creating = !progress.externalId;
      const { marketplace, schema, family, context } = await prepare(call, draft, progress);
      progress.delivered.marketplace = marketplace.id;
      progress.delivered.type = draft.categoryId;
      const delivery: Delivery = { call, marketplace, draft, progress, schema, context, save };
      const warnings = family ? await sendParent(delivery, family) : [];
      warnings.push(...(await sendChangedSkus(delivery)));
      await deleteGoneSkus(delivery);
      // A new listing is Amazon's to process before buyers see it (listings.md §3.4: ACCEPTED is not live).
      return creating && progress.externalId
        ? { status: 'in_review' as const, platformStatus: 'ACCEPTED', externalUrl: null, issues: warnings }
        : null;
    },
  } satisfies Pick<ListingsAdapter, 'deliver'> & { offerChange: unknown };
}
