/**
 * The workspace's catalogue (DESIGN §9): products with options, variants and images. Every write checks every rule
 * before it stores anything, runs in one transaction with its audit entry and webhook event, and bumps the product's
 * version only when something changed.
 */

import * as auditRepo from '../../db/audit.repo.js';
import type { Db } from '../../db/client.js';
import * as listingsRepo from '../../db/listings.repo.js';
import * as mediaRepo from '../../db/media.repo.js';
import * as productsRepo from '../../db/products.repo.js';
import {
  type Actor,
  HANDLE_LENGTH_MAX,
  HANDLE_PATTERN,
  handleFrom,
  PRODUCT_IMAGES_MAX,
  type ProductInput,
  SKU_PATTERN,
  type VariantInput,
} from '../../domain/index.js';
import { AppError, type FieldErrors, invalidField } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { Outbox } from '../webhooks/outbox.js';
import { imageRefusalMessage, inspectImage, mediaPath } from './images.js';
import { presentProduct } from './present.js';
import { productChanges } from './product-changes.js';
import {
  changedFields,
  changeFields,
  imageFields,
  productFields,
  sameImages,
  sameVariants,
  searchText,
  variantFields,
} from './product-fields.js';
import { ALL_GIVEN, asList, type Candidate, checkProduct, type Given, isObject } from './product-rules.js';
import { skuRace } from './sku-race.js';

export type ProductRecord = productsRepo.ProductRecord;

export type ProductsService = ReturnType<typeof createProductsService>;

/** Who asked for a change, as the audit log records them. */
/** PATCH /products/{id}: any subset of the fields of a product. */
export type ProductChange = Partial<ProductInput>;

const refusal = (fields: FieldErrors) => new AppError('validation_failed', { fields });

/** Told of every committed-with change of products, in its transaction: their listings follow (DESIGN §10). */
export interface ProductChanges {
  productsChanged(tx: Db, productIds: readonly number[]): Promise<void>;
}

export function createProductsService(deps: { db: Db; clock: Clock; outbox: Outbox; appUrl: string; listings: ProductChanges }) {
  const { db, clock, outbox } = deps;

  /** Every rule of the body, with the problems the schema found (`known`), refused at once; and the skus' owners. */
  async function check(
    tx: Db,
    workspaceId: number,
    candidate: Candidate,
    given: Given,
    current: ProductRecord | null,
    known: FieldErrors,
    handle: unknown = undefined,
  ): Promise<void> {
    const errors: FieldErrors = { ...known };
    // A handle given is the product's key in CSV files: another product's is refused, never shared.
    if (typeof handle === 'string' && HANDLE_PATTERN.test(handle) && !errors.handle) {
      const owner = (await productsRepo.productsOfHandles(tx, workspaceId, [handle])).get(handle);
      if (owner !== undefined && owner !== current?.id) errors.handle = ['The handle has already been taken.'];
    }
    const existing = {
      variantIds: new Set(current?.variants.map((v) => v.id) ?? []),
      imageIds: new Set(current?.images.map((i) => i.id) ?? []),
    };
    Object.assign(errors, checkProduct(candidate, given, existing, known));
    if (given.variants) {
      // Only a sku a variant can have can be taken: any other is refused already, and one with a NUL cannot even be sent.
      const owners = await productsRepo.productsOfSkus(
        tx,
        workspaceId,
        candidate.variants.flatMap((v) => (isObject(v) && typeof v.sku === 'string' && SKU_PATTERN.test(v.sku) ? [v.sku] : [])),
      );
      candidate.variants.forEach((variant, i) => {
        const owner = isObject(variant) && typeof variant.sku === 'string' ? owners.get(variant.sku) : undefined;
        const field = `variants.${i}.sku`;
        if (owner !== undefined && owner !== current?.id && !errors[field]) errors[field] = ['The sku has already been taken.'];
      });
    }
    if (Object.keys(errors).length > 0) throw refusal(errors);
  }

  async function record(
    tx: Db,
    action: 'product.created' | 'product.updated' | 'product.deleted',
    product: ProductRecord,
    actor: Actor,
    before?: ProductRecord,
  ) {
    const now = clock.now();
    await auditRepo.recordAudit(
      tx,
      [product.workspaceId],
      {
        action,
        actorUserId: actor.userId,
        subjectType: 'product',
        subjectId: product.id,
        ipAddress: actor.ipAddress,
        // The product by its name, and a change's fields from and to.
        details: { title: product.title, ...(before ? productChanges(before, product) : {}) },
      },
      now,
    );
    await outbox.emit(tx, product.workspaceId, action, { product: presentProduct(product) }, now);
  }

  async function mustFind(tx: Db, workspaceId: number, id: number, forUpdate = false): Promise<ProductRecord> {
    const product = await productsRepo.findProduct(tx, workspaceId, id, forUpdate);
    if (!product) throw new AppError('not_found');
    return product;
  }

  /**
   * A new product in the caller's transaction (an import's page); every rule is checked before anything is written, so
   * a refusal (422) leaves the transaction as it was. `reason` is its stock's, in the stock movements.
   */
  async function createIn(
    tx: Db,
    workspaceId: number,
    input: ProductInput,
    known: FieldErrors,
    actor: Actor,
    reason: 'edit' | 'import' = 'edit',
  ): Promise<ProductRecord> {
    const candidate = candidateOf(input);
    await check(tx, workspaceId, candidate, ALL_GIVEN, null, known, input.handle);
    const now = clock.now();
    await productsRepo.explainStockChange(tx, { reason, actorUserId: actor.userId, at: now });
    const handle = input.handle ?? (await freeHandle(tx, workspaceId, input.title));
    const row = await productsRepo.insertProduct(tx, workspaceId, productFields({ ...input, handle }), now);
    await productsRepo.replaceVariants(tx, row, (input.variants ?? []).map(variantFields), now);
    await productsRepo.replaceImages(
      tx,
      row.id,
      (input.images ?? []).map((image) => imageFields(image, null)),
      now,
    );
    const product = await mustFind(tx, workspaceId, row.id);
    await record(tx, 'product.created', product, actor);
    return product;
  }

  /**
   * A partial change in the caller's transaction (a bulk edit's); the lists given replace the stored ones. Nothing
   * different: nothing written, no new version.
   */
  async function updateIn(
    tx: Db,
    workspaceId: number,
    id: number,
    change: ProductChange,
    known: FieldErrors,
    actor: Actor,
  ): Promise<ProductRecord> {
    const current = await mustFind(tx, workspaceId, id, true);
    const given = {
      currency: change.currency !== undefined,
      options: change.options !== undefined,
      variants: change.variants !== undefined,
      images: change.images !== undefined,
    };
    const candidate: Candidate = {
      currency: change.currency ?? current.currency,
      options: given.options ? asList(change.options) : current.options,
      variants: given.variants
        ? asList<VariantInput>(change.variants).map(candidateVariant)
        : current.variants.map((v) => ({ ...v, option_values: v.optionValues })),
      images: given.images ? asList(change.images) : current.images,
    };
    await check(tx, workspaceId, candidate, given, current, known, change.handle);
    const fields = changedFields(current, changeFields(change));
    const variants = change.variants?.map(variantFields);
    const images = change.images?.map((image) => imageFields(image, current));
    const variantsChanged = variants !== undefined && !sameVariants(current, variants);
    const imagesChanged = images !== undefined && !sameImages(current, images);
    if (Object.keys(fields).length === 0 && !variantsChanged && !imagesChanged) return current;
    if (fields.title !== undefined || variantsChanged)
      fields.search = searchText(
        fields.title ?? current.title,
        (variantsChanged ? variants : current.variants).map((v) => v.sku),
      );
    const now = clock.now();
    await productsRepo.updateProduct(tx, id, fields, now);
    await productsRepo.explainStockChange(tx, { reason: 'edit', actorUserId: actor.userId, at: now });
    if (variantsChanged) await productsRepo.replaceVariants(tx, current, variants, now);
    if (imagesChanged) await productsRepo.replaceImages(tx, id, images, now);
    const product = await mustFind(tx, workspaceId, id);
    await record(tx, 'product.updated', product, actor, current);
    await deps.listings.productsChanged(tx, [id]);
    return product;
  }

  return {
    /** A page as JSON text the database wrote (`items`, the products joined by commas), and the total. */
    listJson: (workspaceId: number, page: { limit: number; offset: number }, q?: string) =>
      productsRepo.listProductsJson(db, workspaceId, page, q?.trim() || undefined),

    get: (workspaceId: number, id: number) => mustFind(db, workspaceId, id),

    all: (workspaceId: number) => productsRepo.allProducts(db, workspaceId),

    /** A new product; `known` are the problems the request's schema already found. */
    async create(workspaceId: number, input: ProductInput, known: FieldErrors, actor: Actor): Promise<ProductRecord> {
      return skuRace(() => db.transaction((tx) => createIn(tx, workspaceId, input, known, actor)));
    },

    createIn,

    /** A partial change; the lists given replace the stored ones. Nothing different: nothing written, no new version. */
    async update(workspaceId: number, id: number, change: ProductChange, known: FieldErrors, actor: Actor): Promise<ProductRecord> {
      return skuRace(() => db.transaction((tx) => updateIn(tx, workspaceId, id, change, known, actor)));
    },

    updateIn,

    /**
     * Appends an uploaded image (DESIGN §9): its bytes stored once by their hash and served at
     * `{app_url}/media/<sha256>.<extension>`. A product change: version + 1, audit entry, event.
     */
    async addUploadedImage(
      workspaceId: number,
      id: number,
      upload: { bytes: Buffer; alt: string | null },
      actor: Actor,
    ): Promise<{ product: ProductRecord; image: productsRepo.ImageRow }> {
      const inspected = inspectImage(upload.bytes);
      if ('refused' in inspected) throw invalidField('file', imageRefusalMessage(inspected));
      return db.transaction(async (tx) => {
        const current = await mustFind(tx, workspaceId, id, true);
        if (current.images.length >= PRODUCT_IMAGES_MAX) throw invalidField('file', `A product has at most ${PRODUCT_IMAGES_MAX} images.`);
        const now = clock.now();
        await mediaRepo.storeMedia(tx, { ...inspected, bytes: upload.bytes }, now);
        const url = `${deps.appUrl}${mediaPath(inspected)}`;
        const image = await productsRepo.appendImage(tx, id, { url, alt: upload.alt, mediaSha256: inspected.sha256 }, now);
        await productsRepo.updateProduct(tx, id, {}, now);
        const product = await mustFind(tx, workspaceId, id);
        await record(tx, 'product.updated', product, actor);
        await deps.listings.productsChanged(tx, [id]);
        return { product, image };
      });
    },

    async remove(workspaceId: number, id: number, actor: Actor): Promise<void> {
      await db.transaction(async (tx) => {
        // The lock also holds off a listing being made of it meanwhile (its foreign key waits on the row).
        const product = await mustFind(tx, workspaceId, id, true);
        // DESIGN §2 fixes the message: `Conflict`.
        if (await listingsRepo.productIsListed(tx, id)) throw new AppError('conflict');
        await productsRepo.deleteProduct(tx, id);
        await record(tx, 'product.deleted', product, actor);
      });
    },
  };
}

/** A variant of the body as the rules read it; something that is not an object stays as it is (the schema refused it). */
function candidateVariant(variant: VariantInput): Candidate['variants'][number] {
  return isObject(variant) ? { ...variant, option_values: variant.option_values ?? {} } : (variant as Candidate['variants'][number]);
}

function candidateOf(input: ProductInput): Candidate {
  return {
    currency: input.currency,
    options: asList(input.options),
    variants: asList<VariantInput>(input.variants).map(candidateVariant),
    images: asList(input.images),
  };
}

/**
 * A handle for a product of this title no product of the workspace has (DESIGN §9: made from the title when not
 * given): the title's, else with `-2`, `-3`… A concurrent product taking it meanwhile fails the insert on the unique
 * index, and skuRace's second run picks the next.
 */
export async function freeHandle(tx: Db, workspaceId: number, title: string): Promise<string> {
  const base =
    handleFrom(title)
      .slice(0, HANDLE_LENGTH_MAX - 8)
      .replace(/-+$/, '') || 'product';
  const taken = await productsRepo.handlesLike(tx, workspaceId, base);
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}
