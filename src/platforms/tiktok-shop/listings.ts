/**
 * TikTok Shop's listings capability (listings.md §2): the site's warehouses, categories with their attributes, brands
 * and the choices their rules ask for (category-rules.ts), the listing check behind `mode: "validate"`, and a product's life: its images uploaded to TikTok (it shows
 * only images it hosts), created once under an idempotency key, reviewed by TikTok (`in_review` until its audit passes
 * or fails), its price and stock updated without review, its content changed by partial edit (back to review; a live
 * product stays live on its earlier version meanwhile), activated, deactivated and deleted by the batch calls, whose
 * per-item failures are read for the one product asked about. Every call is signed (listings.md §2.1).
 */
import { randomUUID } from 'node:crypto';
import type { Category, CategoryAttribute } from '../../domain/index.js';
import type { Clock } from '../../lib/clock.js';
import { readCache } from '../../lib/read-cache.js';
import { ListingRefused, PlatformError } from '../contracts/errors.js';
import type { ExistingListing, ListingDraft, ListingProgress, ListingsAdapter, ListingsCall, RateLimits } from '../contracts/listings.js';
import { type PlatformHttp, readAnswer } from '../http.js';
import { createCategoryRules } from './category-rules.js';
import type { TikTokShopConfig } from './connect.js';
import { existingListing } from './existing.js';
import {
  Attributes,
  BatchAnswer,
  Brands,
  batchFailure,
  Categories,
  Created,
  categoryAttributesOf,
  Edited,
  ListingCheck,
  PRODUCT_MISSING,
  Prerequisites,
  platformIssue,
  platformListing,
  productOrGone,
  reader,
  SearchPage,
  type TikTokAttribute,
  type TikTokCategory,
  UploadedImage,
  Warehouses,
  WRONG_STATUS,
} from './listing-answers.js';
import {
  BRAND_ATTRIBUTE,
  contentBody,
  deliveredPrints,
  inventoryBody,
  MAIN_IMAGES_MAX,
  pricesBody,
  signedUrl,
  skusBody,
} from './listing-requests.js';
import { checkCertifications, checkEmptyChoices, checkTikTokDraft } from './listing-rules.js';

type Save = (progress: ListingProgress) => Promise<void>;
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

const P = '/product/202309';
/** 50 requests a second per API, per app and shop, by default (listings.md §2.8): what each shop's API is paced to. */
const LIMITS: RateLimits = { perSecond: 50, remainingThisSecond: null, perDay: null, remainingToday: null };
/**
 * TikTok asks that categories be read in real time rather than cached (listings.md §2.3); an hour keeps a seller's
 * browsing of the tree from costing a call a click while a change of TikTok's still arrives the same day.
 */
const CATEGORIES_TTL_MS = 3600_000;
const SEARCH_RESULTS_MAX = 50;
const READY_TTL_MS = 10 * 60_000;
/** Products a search page answers: each is then read whole (Get Product), so a page is 21 calls. */
const EXISTING_PAGE_SIZE = 20;

export function createTikTokShopListingsAdapter(config: TikTokShopConfig, deps: { http: PlatformHttp; clock: Clock }) {
  // The tree is the app's (one key); attributes are per category; a brand's authorization is the shop's own.
  const categories = readCache<TikTokCategory[]>(deps.clock, CATEGORIES_TTL_MS);
  const attributeCache = readCache<TikTokAttribute[] | null>(deps.clock, CATEGORIES_TTL_MS);
  // When each shop (by cipher) was last found ready to list.
  const readyAt = new Map<string, number>();
  const brandCache = readCache<{ value: string; label: string }[]>(deps.clock, CATEGORIES_TTL_MS);

  async function send<T>(
    call: ListingsCall,
    method: Method,
    path: string,
    parse: (status: number, body: unknown) => T,
    options: { query?: Record<string, string>; json?: unknown; multipart?: FormData; shopless?: boolean } = {},
  ): Promise<T> {
    const cipher = call.data.cipher;
    if (typeof cipher !== 'string' || cipher === '')
      throw new PlatformError('rejected', 'The site has no TikTok Shop shop cipher; connect the shop again.');
    // TikTok's limit is per shop and API (listings.md §2.8): each API is paced apart, ids out of its path.
    const budget = `${method} ${path.replace(/\/[0-9]+(?=\/|$)/g, '/{id}')}`;
    call.onLimits?.(LIMITS, budget);
    await call.beforeCall?.(budget);
    const body = options.json === undefined ? '' : JSON.stringify(options.json);
    const url = signedUrl({
      apiUrl: config.apiUrl,
      path,
      query: options.query,
      body,
      multipart: options.multipart !== undefined,
      appKey: config.appKey,
      appSecret: config.appSecret,
      // The seller's own calls (its responsible persons, manufacturers, size charts) refuse a shop_cipher.
      cipher: options.shopless ? null : cipher,
      now: deps.clock.now(),
    });
    const headers: Record<string, string> = { 'x-tts-access-token': call.accessToken };
    // TikTok wants the JSON content type on every call that is not an upload, a GET included (platforms.md §2.6).
    if (!options.multipart) headers['content-type'] = 'application/json';
    const answer = await deps.http.request(url, {
      method,
      headers,
      signal: call.signal,
      ...(options.json === undefined ? {} : { json: options.json }),
      ...(options.multipart ? { multipart: options.multipart } : {}),
    });
    return readAnswer(answer, parse);
  }

  const rules = createCategoryRules(send, deps.clock);

  /** A certification the rules require refuses the product before it is sent: Storelink has no certificate to send. */
  async function refuseUncertified(call: ListingsCall, draft: ListingDraft, attributes: readonly TikTokAttribute[]) {
    const issues = checkCertifications(await rules.rulesOf(call, draft.categoryId), draft, categoryAttributesOf(attributes));
    if (issues.length > 0) throw new ListingRefused(issues);
  }

  async function categoryTree(call: ListingsCall): Promise<TikTokCategory[]> {
    return categories.get('tree', async () => (await send(call, 'GET', `${P}/categories`, reader(Categories))).categories);
  }

  function categoryOf(nodes: readonly TikTokCategory[], node: TikTokCategory): Category {
    const path: string[] = [];
    for (let at: TikTokCategory | undefined = node; at; at = nodes.find((each) => each.id === at!.parent_id)) path.unshift(at.local_name);
    return { id: node.id, name: node.local_name, path, leaf: node.is_leaf };
  }

  /** The category's attributes as TikTok answers them; null for a category it does not know or that is not a leaf. */
  async function rawAttributes(call: ListingsCall, categoryId: string): Promise<TikTokAttribute[] | null> {
    if (!/^[0-9]{1,20}$/.test(categoryId)) return null;
    return attributeCache.get(categoryId, async () => {
      try {
        return (await send(call, 'GET', `${P}/categories/${categoryId}/attributes`, reader(Attributes))).attributes;
      } catch (error) {
        // 12052023 (no such category) and 12052024 (not a leaf) refuse the category, not the call.
        if (!(error instanceof ListingRefused)) throw error;
        return null;
      }
    });
  }

  /** Brands a listing may name in the category: available ones, authorized or not a T1 brand (listings.md §2.3); an hour. */
  async function brandChoices(call: ListingsCall, categoryId: string) {
    return brandCache.get(`${String(call.data.cipher)}:${categoryId}`, async () => {
      const { brands } = await send(call, 'GET', `${P}/brands`, reader(Brands), {
        query: { category_id: categoryId, page_size: '100' },
      });
      return brands
        .filter((b) => (b.brand_status ?? 'AVAILABLE') === 'AVAILABLE' && (b.authorized_status === 'AUTHORIZED' || !b.is_t1_brand))
        .map((b) => ({ value: b.id, label: b.name }));
    });
  }

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
      const uploaded = await send(call, 'POST', `${P}/images/upload`, reader(UploadedImage), { multipart: form });
      progress.images[image.key] = uploaded.uri;
    }
    const keys = new Set(images.map((image) => image.key));
    for (const key of Object.keys(progress.images)) if (!keys.has(key)) delete progress.images[key];
    return images.map((image) => progress.images[image.key]!);
  }

  const warehouseOf = (call: ListingsCall) => String(call.settings.warehouse_id ?? '');
  const skuIdsOf = (skus: readonly { id: string; seller_sku?: string | undefined }[]) =>
    Object.fromEntries(skus.flatMap((sku) => (sku.seller_sku ? [[sku.seller_sku, sku.id]] : [])));
  const warningsOf = (warnings: readonly { message: string }[] | undefined) =>
    (warnings ?? []).map((w) => platformIssue('warning', w.message, null, 'warning'));

  /** Creates the product once: a create sent again (its answer lost) carries the same idempotency key, so TikTok answers the first. */
  async function create(
    call: ListingsCall,
    draft: ListingDraft,
    progress: ListingProgress,
    save: Save,
    uris: string[],
    attributes: TikTokAttribute[],
  ) {
    progress.createStartedAt ??= deps.clock.now().toISOString();
    progress.createKey ??= randomUUID();
    await save(progress);
    const body = {
      ...contentBody(draft, uris, attributes),
      skus: skusBody(draft, warehouseOf(call), attributes, {}, true),
      save_mode: 'LISTING',
      idempotency_key: progress.createKey,
    };
    const created = await send(call, 'POST', `${P}/products`, reader(Created), { json: body });
    progress.externalId = created.product_id;
    progress.variantIds = skuIdsOf(created.skus);
    Object.assign(progress.delivered, deliveredPrints(draft, uris, attributes, warehouseOf(call)));
    await save(progress);
    // A created product goes to review (listings.md §2.2); TikTok's warnings (a brand it cleared) are the listing's.
    return { status: 'in_review' as const, platformStatus: 'PENDING', externalUrl: null, issues: warningsOf(created.warnings) };
  }

  /** A partial edit: the content (and the SKUs whole, with their price and stock) goes back to review. */
  async function edit(call: ListingsCall, progress: ListingProgress, body: Record<string, unknown>) {
    const edited = await send(call, 'POST', `${P}/products/${progress.externalId}/partial_edit`, reader(Edited), { json: body });
    if (edited.skus) progress.variantIds = { ...progress.variantIds, ...skuIdsOf(edited.skus) };
  }

  /** Price or stock: no review, live products only. A product not live takes them by partial edit (back to review). */
  async function update(call: ListingsCall, progress: ListingProgress, kind: 'prices' | 'inventory', body: unknown, whole: () => unknown) {
    try {
      await send(call, 'POST', `${P}/products/${progress.externalId}/${kind}/update`, reader(Edited), { json: body });
    } catch (error) {
      if (!(error instanceof ListingRefused && error.issues.some((issue) => issue.code === String(WRONG_STATUS)))) throw error;
      await edit(call, progress, { skus: whole() });
    }
  }

  async function readProduct(call: ListingsCall, externalId: string) {
    return send(call, 'GET', `${P}/products/${encodeURIComponent(externalId)}`, productOrGone);
  }

  async function existingOf(call: ListingsCall, externalId: string): Promise<ExistingListing | null> {
    const product = await readProduct(call, externalId);
    if (!product) return null;
    const categoryId = product.category_chains?.at(-1)?.id ?? '';
    return existingListing(product, (await rawAttributes(call, categoryId)) ?? [], warehouseOf(call));
  }

  /** Activates or deactivates, reading the batch's answer for this product: its failure refuses the listing. */
  async function batch(call: ListingsCall, action: 'activate' | 'deactivate', externalId: string) {
    const answer = await send(call, 'POST', `${P}/products/${action}`, reader(BatchAnswer), { json: { product_ids: [externalId] } });
    const failure = batchFailure(answer, externalId);
    if (failure) throw new ListingRefused([platformIssue(failure.code, failure.message, null)]);
  }

  return {
    platform: 'tiktok-shop',

    async listingOptions(call) {
      const { warehouses } = await send(call, 'GET', '/logistics/202309/warehouses', reader(Warehouses));
      const selling = warehouses.filter((w) => (w.type ?? 'SALES_WAREHOUSE') === 'SALES_WAREHOUSE' && w.effect_status !== 'DISABLED');
      return { warehouse_id: selling.map((w) => ({ value: w.id, label: w.is_default ? `${w.name} (default)` : w.name })) };
    },

    async categories(call, { q, parentId }) {
      const nodes = await categoryTree(call);
      const text = q?.trim().toLowerCase();
      const found = text
        ? nodes.filter((node) => node.local_name.toLowerCase().includes(text))
        : nodes.filter((node) => node.parent_id === (parentId ?? '0'));
      return found.slice(0, SEARCH_RESULTS_MAX).map((node) => categoryOf(nodes, node));
    },

    async category(call, categoryId) {
      const nodes = await categoryTree(call);
      const node = nodes.find((each) => each.id === categoryId);
      return node ? categoryOf(nodes, node) : null;
    },

    /** The category's product properties, its brand, and what its rules ask the seller to choose (category-rules.ts). */
    async categoryAttributes(call, categoryId): Promise<CategoryAttribute[] | null> {
      const attributes = await rawAttributes(call, categoryId);
      if (!attributes) return null;
      const brands = await brandChoices(call, categoryId);
      const ruled = await rules.attributesOf(call, await rules.rulesOf(call, categoryId));
      return [
        ...categoryAttributesOf(attributes),
        { name: BRAND_ATTRIBUTE, label: 'Brand', required: false, type: 'select', values: brands },
        ...ruled,
      ];
    },

    /**
     * Check Prerequisites: each failed item is an issue of the site in TikTok's words. A shop found ready is taken as
     * ready for ten minutes (a publish of many products asks once); one that is not is asked again every time.
     */
    async readiness(call) {
      const key = String(call.data.cipher);
      const now = deps.clock.now().getTime();
      if ((readyAt.get(key) ?? Number.NEGATIVE_INFINITY) > now - READY_TTL_MS) return [];
      const { check_results: results } = await send(call, 'GET', '/product/202312/prerequisites', reader(Prerequisites));
      const failed = results.filter((result) => result.is_failed);
      if (failed.length === 0) readyAt.set(key, now);
      return failed.map((result) =>
        platformIssue(
          result.check_item,
          `TikTok Shop says the shop cannot list products yet (${result.check_item}): ${(result.fail_reasons ?? []).join(' ') || 'see Seller Center.'}`,
          null,
        ),
      );
    },

    /** TikTok's rules on the product, then the category's as categoryAttributes() read them for the shop just before. */
    check: (draft, attributes, call) => [
      ...checkTikTokDraft(draft, typeof call.data.region === 'string' ? call.data.region : null),
      ...checkCertifications(rules.knownRules(call, draft.categoryId), draft, attributes),
      ...checkEmptyChoices(draft, attributes),
    ],

    /**
     * Check Product Listing (listings.md §2.6) on the product as it would be created, without its images: uploading
     * them is not a dry run, and Storelink checked them itself, so TikTok's "main image required" is not repeated.
     */
    async validate(call, draft) {
      const attributes = (await rawAttributes(call, draft.categoryId)) ?? [];
      const body = { ...contentBody(draft, [], attributes), skus: skusBody(draft, warehouseOf(call), attributes, {}, true) };
      const checked = await send(call, 'POST', `${P}/products/listing_check`, reader(ListingCheck), { json: body });
      const failures = (checked.fail_reasons ?? []).filter((reason) => String(reason.code) !== '12052028');
      const diagnoses = (checked.diagnoses ?? []).flatMap((d) =>
        (d.diagnosis_results ?? []).map((result) =>
          platformIssue(
            result.code ?? 'diagnosis',
            result.how_to_solve ?? 'TikTok Shop suggests improving this field.',
            d.field ?? null,
            'warning',
          ),
        ),
      );
      return [...failures.map((reason) => platformIssue(reason.code ?? 'check_failed', reason.message, null)), ...diagnoses];
    },

    async deliver(call, draft, progress, save) {
      const attributes = (await rawAttributes(call, draft.categoryId)) ?? [];
      if (!progress.externalId) {
        await refuseUncertified(call, draft, attributes);
        return create(call, draft, progress, save, await uploadImages(call, draft, progress), attributes);
      }
      const uris = await uploadImages(call, draft, progress);
      const warehouse = warehouseOf(call);
      const wanted = deliveredPrints(draft, uris, attributes, warehouse);
      const whole = () => skusBody(draft, warehouse, attributes, progress.variantIds, false);
      if (progress.delivered.fields !== wanted.fields) {
        await refuseUncertified(call, draft, attributes);
        await edit(call, progress, { ...contentBody(draft, uris, attributes), skus: whole() });
        Object.assign(progress.delivered, wanted);
        return null;
      }
      if (progress.delivered.prices !== wanted.prices) {
        await update(call, progress, 'prices', pricesBody(draft, progress.variantIds), whole);
        progress.delivered.prices = wanted.prices;
      }
      if (progress.delivered.inventory !== wanted.inventory) {
        await update(call, progress, 'inventory', inventoryBody(draft, warehouse, progress.variantIds), whole);
        progress.delivered.inventory = wanted.inventory;
      }
      return null;
    },

    async setActive(call, progress, active) {
      const externalId = progress.externalId!;
      await batch(call, active ? 'activate' : 'deactivate', externalId);
      const product = await readProduct(call, externalId);
      if (!product) throw new PlatformError('unavailable', 'TikTok Shop no longer shows the product it just changed');
      return platformListing(product);
    },

    async remove(call, progress) {
      if (!progress.externalId) return;
      const answer = await send(call, 'DELETE', `${P}/products`, reader(BatchAnswer), { json: { product_ids: [progress.externalId] } });
      const failure = batchFailure(answer, progress.externalId);
      if (!failure || failure.code === PRODUCT_MISSING) return;
      // Deleted already (a delete whose answer was lost, or the seller's on TikTok) is what was asked.
      if (failure.code === WRONG_STATUS && !(await readProduct(call, progress.externalId))) return;
      throw new ListingRefused([platformIssue(failure.code, failure.message, null)]);
    },

    async read(call, progress) {
      if (!progress.externalId) return null;
      const product = await readProduct(call, progress.externalId);
      return product && platformListing(product);
    },

    async readExisting(call, progress) {
      return progress.externalId ? existingOf(call, progress.externalId) : null;
    },

    reconcile(progress, existing) {
      const held = new Set(Object.values(existing.progress.images));
      const images = Object.fromEntries(Object.entries(progress.images).filter(([, uri]) => held.has(uri)));
      return {
        ...progress,
        images,
        variantIds: { ...progress.variantIds, ...existing.progress.variantIds },
        delivered: { ...progress.delivered, ...existing.progress.delivered },
      };
    },

    /** Search Products, every status but deleted, a page at a time; each product then read whole for its content. */
    async existing(call, cursor) {
      const query: Record<string, string> = { page_size: String(EXISTING_PAGE_SIZE), ...(cursor ? { page_token: cursor } : {}) };
      const page = await send(call, 'POST', `${P}/products/search`, reader(SearchPage), { query, json: { status: 'ALL' } });
      const listings: ExistingListing[] = [];
      for (const summary of page.products) {
        if (summary.status === 'DELETED') continue;
        const listing = await existingOf(call, summary.id);
        if (listing) listings.push(listing);
      }
      return { listings, next: page.next_page_token ? page.next_page_token : null };
    },
  } satisfies ListingsAdapter;
}
