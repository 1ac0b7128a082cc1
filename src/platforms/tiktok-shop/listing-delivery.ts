/**
 * A product delivered to TikTok Shop (listings.md §2.2–2.5): its images uploaded to TikTok (it shows only images it
 * hosts), its certificates uploaded once each (a PDF by Upload Product File, an image at `CERTIFICATION_IMAGE`),
 * created once under an idempotency key and reviewed by TikTok, its price and stock updated without review, its
 * content changed by partial edit (back to review; a live product stays live on its earlier version meanwhile). Each
 * part's fingerprint in `progress.delivered` says what was sent.
 */
import { randomUUID } from 'node:crypto';
import type { Static } from 'typebox';
import { storelinkIssue } from '../../domain/index.js';
import { AllowanceSpent, ListingRefused } from '../contracts/errors.js';
import type { DraftFile, ListingDraft, ListingProgress, ListingsAdapter, ListingsCall } from '../contracts/listings.js';
import type { TikTokCategories } from './categories.js';
import {
  CERTIFICATION_PREFIX,
  certificateName,
  certificationFiles,
  contentBody,
  deliveredPrints,
  inventoryBody,
  MAIN_IMAGES_MAX,
  pricesBody,
  skusBody,
  type TikTokCertification,
} from './listing-requests.js';
import {
  ALL_WAREHOUSES,
  Created,
  DAILY_UPLOADS_SPENT,
  Edited,
  locationsOf,
  platformIssue,
  productOrGone,
  reader,
  type TikTokAttribute,
  UploadedFile,
  UploadedImage,
  WRONG_STATUS,
} from './listing-responses.js';
import type { TikTokListingValidation } from './listing-validation.js';
import { type OpenApi, PRODUCT_API, type TikTokListingsDeps, warehouseOf } from './open-api.js';

type Save = (progress: ListingProgress) => Promise<void>;

/**
 * When TikTok's next day of product uploads opens after `now`. ASSUMPTION: at 00:00 UTC; TikTok documents the daily
 * allowance (100 a day for a new shop on probation, 1,000 after: listings.md §2.2, [T1]) but not when its day turns.
 */
const nextDay = (now: Date) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));

/** What the seller reads while a publish waits for the shop's next day of uploads. */
const allowanceIssue = (until: Date, words: string | null) =>
  platformIssue(
    DAILY_UPLOADS_SPENT,
    `TikTok Shop's daily allowance of new products for this shop is spent${words ? ` ("${words}")` : ''}: a new shop may create 100 products a day while on probation, 1,000 after. Storelink sends this listing when the next day's allowance opens (${until.toISOString().slice(0, 16).replace('T', ' ')} UTC); nothing is needed from you.`,
    null,
    'warning',
  );

const skuIdsOf = (skus: readonly { id: string; seller_sku?: string | undefined }[]) =>
  Object.fromEntries(skus.flatMap((sku) => (sku.seller_sku ? [[sku.seller_sku, sku.id]] : [])));
const warningsOf = (warnings: readonly { message: string }[] | undefined) =>
  (warnings ?? []).map((w) => platformIssue('warning', w.message, null, 'warning'));

/** The deliveries of one adapter. */
export function createListingDelivery(
  { send }: OpenApi,
  categories: Pick<TikTokCategories, 'rawAttributes'>,
  validation: Pick<TikTokListingValidation, 'refuseUncertified'>,
  deps: Pick<TikTokListingsDeps, 'clock'>,
) {
  /**
   * Each shop whose uploads for the day TikTok said are spent (12052093), with when the next day opens: this instance's
   * count of the day, so the shop's other publishes wait too, without a call TikTok would refuse.
   */
  const spentUntil = new Map<string, Date>();
  /** Throws AllowanceSpent while the shop's day of uploads is known to be spent. */
  const refuseWhileSpent = (call: ListingsCall) => {
    const until = spentUntil.get(call.externalId);
    if (!until) return;
    if (deps.clock.now() < until) throw new AllowanceSpent(allowanceIssue(until, null), until);
    spentUntil.delete(call.externalId);
  };

  /**
   * Uploads the draft's images TikTok does not host yet, and forgets those the product no longer has. The URIs in the
   * draft's order, kept in the progress the next save writes (the create key's, or the work's outcome): an upload creates
   * nothing a buyer sees, so one lost to a crash before that save is made again at no cost, and a save per image is spared.
   */
  async function uploadImages(call: ListingsCall, draft: ListingDraft, progress: ListingProgress): Promise<string[]> {
    const images = draft.images.slice(0, MAIN_IMAGES_MAX);
    for (const [i, image] of images.entries()) {
      if (progress.images[image.key]) continue;
      const { bytes, contentType } = await image.bytes();
      const form = new FormData();
      form.set('data', new Blob([new Uint8Array(bytes)], { type: contentType }), `image-${i + 1}`);
      form.set('use_case', 'MAIN_IMAGE');
      const uploaded = await send(call, 'POST', `${PRODUCT_API}/images/upload`, reader(UploadedImage), { multipart: form });
      progress.images[image.key] = uploaded.uri;
    }
    const keys = new Set(images.map((image) => image.key));
    for (const key of Object.keys(progress.images)) if (!keys.has(key)) delete progress.images[key];
    return images.map((image) => progress.images[image.key]!);
  }

  /** Uploads one certificate's file: a PDF by Upload Product File, an image by Upload Product Image at CERTIFICATION_IMAGE. */
  async function uploadCertificate(call: ListingsCall, file: DraftFile): Promise<string> {
    const form = new FormData();
    form.set(
      'data',
      new Blob([new Uint8Array(file.bytes)], { type: file.contentType }),
      file.extension === 'pdf' ? certificateName(file.sha256) : `certificate.${file.extension}`,
    );
    if (file.extension === 'pdf') {
      form.set('name', certificateName(file.sha256));
      return (await send(call, 'POST', `${PRODUCT_API}/files/upload`, reader(UploadedFile), { multipart: form })).id;
    }
    form.set('use_case', 'CERTIFICATION_IMAGE');
    return (await send(call, 'POST', `${PRODUCT_API}/images/upload`, reader(UploadedImage), { multipart: form })).uri;
  }

  /**
   * The listing's certifications as Create Product takes them, each file uploaded once: what TikTok answered is saved
   * in `progress.files` at once (a certificate is rare and a save is cheap), so a retry, a crash or a later edit names
   * it again without a second upload. A file Storelink no longer holds refuses the listing on its attribute.
   */
  async function uploadCertificates(call: ListingsCall, draft: ListingDraft, progress: ListingProgress, save: Save) {
    const named = certificationFiles(draft.attributes);
    const uploaded = (progress.files ??= {});
    const certifications: TikTokCertification[] = [];
    for (const { id, file: name } of named) {
      if (!uploaded[name]) {
        const file = await draft.file(name);
        if (!file)
          throw new ListingRefused([
            storelinkIssue(
              `attributes.${CERTIFICATION_PREFIX}${id}`,
              'file_unknown',
              `Storelink holds no file ${name}: upload the certificate again.`,
            ),
          ]);
        uploaded[name] = await uploadCertificate(call, file);
        await save(progress);
      }
      const [sha256, extension] = name.split('.') as [string, string];
      const held = uploaded[name]!;
      certifications.push(
        extension === 'pdf' ? { id, files: [{ id: held, name: certificateName(sha256), format: 'PDF' }] } : { id, images: [{ uri: held }] },
      );
    }
    const names = new Set(named.map((each) => each.file));
    for (const name of Object.keys(uploaded)) if (!names.has(name)) delete uploaded[name];
    return certifications;
  }

  /** Creates the product once: a create sent again (its answer lost) carries the same idempotency key, so TikTok answers the first. */
  async function create(
    call: ListingsCall,
    draft: ListingDraft,
    progress: ListingProgress,
    save: Save,
    uris: string[],
    attributes: TikTokAttribute[],
    certifications: TikTokCertification[],
  ) {
    progress.createStartedAt ??= deps.clock.now().toISOString();
    progress.createKey ??= randomUUID();
    await save(progress);
    const body = {
      ...contentBody(draft, uris, attributes, certifications),
      skus: skusBody(draft, warehouseOf(call), attributes, {}, true),
      save_mode: 'LISTING',
      idempotency_key: progress.createKey,
    };
    let created: Static<typeof Created>;
    try {
      created = await send(call, 'POST', `${PRODUCT_API}/products`, reader(Created), { json: body });
    } catch (error) {
      const spent = error instanceof ListingRefused ? error.issues.find((issue) => issue.code === String(DAILY_UPLOADS_SPENT)) : undefined;
      if (!spent) throw error;
      // Not the listing's fault: it waits for the next day (its idempotency key kept), and so do the shop's others.
      const until = nextDay(deps.clock.now());
      spentUntil.set(call.externalId, until);
      throw new AllowanceSpent(allowanceIssue(until, spent.message), until);
    }
    progress.externalId = created.product_id;
    progress.variantIds = skuIdsOf(created.skus);
    Object.assign(progress.delivered, deliveredPrints(draft, uris, attributes, warehouseOf(call), certifications));
    await save(progress);
    // A created product goes to review (listings.md §2.2); TikTok's warnings (a brand it cleared) are the listing's.
    return { status: 'in_review' as const, platformStatus: 'PENDING', externalUrl: null, issues: warningsOf(created.warnings) };
  }

  /** A partial edit: the content (and the SKUs whole, with their price and stock) goes back to review. */
  async function edit(call: ListingsCall, progress: ListingProgress, body: Record<string, unknown>) {
    const path = `${PRODUCT_API}/products/${progress.externalId}/partial_edit`;
    const edited = await send(call, 'POST', path, reader(Edited), { json: body });
    if (edited.skus) progress.variantIds = { ...progress.variantIds, ...skuIdsOf(edited.skus) };
  }

  const refusedWith = (error: unknown, code: number) =>
    error instanceof ListingRefused && error.issues.some((issue) => issue.code === String(code));

  /**
   * Price or stock: no review, live products only. A product not live takes them by partial edit (back to review). A
   * stock update TikTok refuses for a warehouse left out (12019028: the seller stocked a SKU in another warehouse in
   * Seller Center) learns the SKUs' warehouses from Get Product, keeps them in the progress, and is sent again naming each.
   */
  async function update(
    call: ListingsCall,
    progress: ListingProgress,
    kind: 'prices' | 'inventory',
    body: () => unknown,
    whole: () => unknown,
  ) {
    const path = `${PRODUCT_API}/products/${progress.externalId}/${kind}/update`;
    try {
      try {
        await send(call, 'POST', path, reader(Edited), { json: body() });
      } catch (error) {
        if (!(kind === 'inventory' && refusedWith(error, ALL_WAREHOUSES))) throw error;
        const product = await send(call, 'GET', `${PRODUCT_API}/products/${encodeURIComponent(progress.externalId!)}`, productOrGone);
        if (!product) throw error;
        progress.locations = locationsOf(product);
        await send(call, 'POST', path, reader(Edited), { json: body() });
      }
    } catch (error) {
      if (!refusedWith(error, WRONG_STATUS)) throw error;
      await edit(call, progress, { skus: whole() });
    }
  }

  /** An existing product told what changed: its content by partial edit, else its price and its stock each by update. */
  async function sendChanges(
    call: ListingsCall,
    draft: ListingDraft,
    progress: ListingProgress,
    save: Save,
    attributes: TikTokAttribute[],
  ) {
    const uris = await uploadImages(call, draft, progress);
    const certifications = await uploadCertificates(call, draft, progress, save);
    const warehouse = warehouseOf(call);
    const wanted = deliveredPrints(draft, uris, attributes, warehouse, certifications);
    const whole = () => skusBody(draft, warehouse, attributes, progress.variantIds, false, progress.locations);
    if (progress.delivered.fields !== wanted.fields) {
      await validation.refuseUncertified(call, draft, attributes);
      await edit(call, progress, { ...contentBody(draft, uris, attributes, certifications), skus: whole() });
      Object.assign(progress.delivered, wanted);
      return;
    }
    if (progress.delivered.prices !== wanted.prices) {
      await update(call, progress, 'prices', () => pricesBody(draft, progress.variantIds), whole);
      progress.delivered.prices = wanted.prices;
    }
    if (progress.delivered.inventory !== wanted.inventory) {
      await update(call, progress, 'inventory', () => inventoryBody(draft, warehouse, progress.variantIds, progress.locations), whole);
      progress.delivered.inventory = wanted.inventory;
    }
  }

  return {
    async deliver(call, draft, progress, save) {
      const attributes = (await categories.rawAttributes(call, draft.categoryId)) ?? [];
      if (progress.externalId) {
        await sendChanges(call, draft, progress, save, attributes);
        return null;
      }
      await validation.refuseUncertified(call, draft, attributes);
      refuseWhileSpent(call);
      const uris = await uploadImages(call, draft, progress);
      return create(call, draft, progress, save, uris, attributes, await uploadCertificates(call, draft, progress, save));
    },
  } satisfies Pick<ListingsAdapter, 'deliver'>;
}
