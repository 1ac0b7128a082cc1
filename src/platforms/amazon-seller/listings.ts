/**
 * Amazon's listings capability (SP-API, listings.md §3): the site's marketplaces and conditions as its settings, product
 * types as categories with the attributes their JSON Schemas describe, each SKU validated locally against that schema
 * and by VALIDATION_PREVIEW, and a product's life as SKUs (one per catalogue variant): put whole when its product
 * part changes (idempotent: a SKU put twice is one listing), its price and stock patched without a new submission,
 * switched off and on by its stock (Amazon has no inactive state, listings.md §3.5), deleted, read with its summaries
 * and issues, and imported from the All Listings report (searchListingsItems pages through 1,000 SKUs at most). Every
 * call goes to the listing's marketplace's region, with the LWA access token in `x-amz-access-token`.
 */
import { gunzipSync } from 'node:zlib';
import type { ValidateFunction } from 'ajv/dist/2019.js';
import { parse } from 'csv-parse/sync';
import type { Static } from 'typebox';
import { type CategoryAttribute, DEFAULT_AMAZON_REGION, type ListingIssue } from '../../domain/index.js';
import type { Clock } from '../../lib/clock.js';
import { readCache } from '../../lib/read-cache.js';
import { ListingRefused, PlatformError } from '../contracts/errors.js';
import type {
  ExistingListing,
  ListingDraft,
  ListingProgress,
  ListingsAdapter,
  ListingsCall,
  PlatformListing,
  RateLimits,
} from '../contracts/listings.js';
import { type PlatformHttp, readAnswer } from '../http.js';
import { parseBody } from '../parse.js';
import type { AmazonSellerConfig } from './connect.js';
import { existingListing } from './existing.js';
import {
  type AmazonItem,
  CreatedReport,
  Definition,
  ITEM_DATA,
  Item,
  isNotFound,
  issuesOf,
  listingStatus,
  ProductTypeSchema,
  ProductTypes,
  Report,
  ReportDocument,
  reader,
  readerOrGone,
  refusedSubmission,
  Submission,
  shapesOf,
  skuState,
} from './listing-answers.js';
import {
  type AmazonMarketplace,
  ASIN,
  type AttributeShape,
  BRAND,
  BULLETS,
  CONDITION,
  forgetSku,
  heldSkus,
  IDENTIFIER,
  isFilled,
  itemPath,
  marketplaceLabel,
  marketplaceOf,
  offerPatch,
  productPageOf,
  putBody,
  requirementsOf,
  type SkuContext,
  skuPrints,
  stockPatch,
} from './listing-requests.js';
import { checkAmazonDraft, compileSchema, schemaIssues, uniqueIssues } from './listing-rules.js';
import { AMAZON_SELLER_LISTING_SETTINGS } from './listing-settings.js';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type Requirements = 'LISTING' | 'LISTING_OFFER_ONLY';

/** Product type definitions and their schemas are read again after an hour (the checksum says when a schema changed). */
const DEFINITIONS_TTL_MS = 3600_000;
/** Rows of the All Listings report an import page takes: each is then read whole (getListingsItem), 100 calls a page. */
const REPORT_PAGE_SIZE = 100;
/** A report Amazon has not finished is looked at again after this (Amazon's take minutes). */
const REPORT_WAIT_MS = 30_000;
/** The conditions a site can list in (the Listings Items model's condition values; the common ones). */
const CONDITIONS: readonly [string, string][] = [
  ['new_new', 'New'],
  ['new_open_box', 'New - Open Box'],
  ['new_oem', 'New - OEM'],
  ['refurbished_refurbished', 'Refurbished'],
  ['used_like_new', 'Used - Like New'],
  ['used_very_good', 'Used - Very Good'],
  ['used_good', 'Used - Good'],
  ['used_acceptable', 'Used - Acceptable'],
  ['collectible_like_new', 'Collectible - Like New'],
  ['collectible_very_good', 'Collectible - Very Good'],
  ['collectible_good', 'Collectible - Good'],
  ['collectible_acceptable', 'Collectible - Acceptable'],
];

/**
 * SP-API's default usage plans (listings.md §3.11: rate per second, burst), per selling partner and operation. Each
 * operation's calls are paced by the engine to the rate (the burst is not counted on: the pace stays under the plan),
 * or to the one `x-amzn-RateLimit-Limit` says; a 429 from another instance's share is tried again after a back-off.
 * A rate under one a second (the reports') is left to Amazon's 429s.
 */
const PLANS = {
  getListingsItem: [5, 10],
  putListingsItem: [5, 10],
  patchListingsItem: [5, 5],
  deleteListingsItem: [5, 5],
  searchDefinitionsProductTypes: [5, 10],
  getDefinitionsProductType: [5, 10],
  createReport: [0.0167, 15],
  getReport: [2, 15],
  getReportDocument: [0.0167, 15],
} as const;
type Operation = keyof typeof PLANS;
/** A rate as the engine's pacer hears it: whole calls a second (a rate under one is not paced). */
const limitsOf = (rate: number): RateLimits => ({
  perSecond: Math.floor(rate),
  remainingThisSecond: null,
  perDay: null,
  remainingToday: null,
});

interface Schema {
  validate: ValidateFunction;
  shapes: Record<string, AttributeShape>;
  titles: Record<string, string>;
  properties: Set<string>;
}

interface ReportCursor {
  /** The report asked for, not yet done. */
  r?: string;
  /** Its document, once done. */
  d?: string;
  /** The rows taken so far. */
  o: number;
}

export function createAmazonSellerListingsAdapter(config: AmazonSellerConfig, deps: { http: PlatformHttp; clock: Clock }) {
  const definitions = readCache<Static<typeof Definition> | null>(deps.clock, DEFINITIONS_TTL_MS);
  const schemas = readCache<Schema>(deps.clock, DEFINITIONS_TTL_MS);
  /** The rate per second Amazon last said for each operation (`x-amzn-RateLimit-Limit`), over the default plan's. */
  const rates = new Map<Operation, number>();

  /** Deletes one SKU; one deleted already (a delete whose answer was lost, or the seller's in Seller Central) is done. */
  async function deleteSku(call: ListingsCall, marketplace: AmazonMarketplace, sku: string) {
    const submission = await send(
      call,
      marketplace,
      'deleteListingsItem',
      'DELETE',
      itemPath(call.externalId, sku),
      reader(Submission, true),
      {
        query: { marketplaceIds: marketplace.id },
      },
    );
    const refused = !isNotFound(submission) && refusedSubmission(submission, `${sku}: `);
    if (refused) throw refused;
  }

  /** The marketplace the listing is in: the one it was first delivered to, else the site's setting, else the site's first. */
  function marketplaceFor(call: ListingsCall, progress?: ListingProgress): AmazonMarketplace {
    const own = Array.isArray(call.data.marketplace_ids) ? call.data.marketplace_ids.map(String) : [];
    const id = progress?.delivered.marketplace ?? call.settings.marketplace_id ?? own[0];
    const found = marketplaceOf(id);
    if (found) return found;
    if (typeof id === 'string' && id !== '') {
      // A marketplace Storelink's table lacks: in the region of the site's own (connecting stored no region).
      const known = own.map(marketplaceOf).find(Boolean);
      return { id, region: known?.region ?? DEFAULT_AMAZON_REGION, country: '', site: '', currency: '', language: 'en_US' };
    }
    throw new PlatformError('misconfigured', 'The Amazon site has no marketplace: connect it again or set its marketplace.');
  }

  async function send<T>(
    call: ListingsCall,
    marketplace: AmazonMarketplace,
    operation: Operation,
    method: Method,
    path: string,
    parse: (status: number, body: unknown) => T,
    options: { query?: Record<string, string>; json?: unknown } = {},
  ): Promise<T> {
    // Each operation has its own usage plan per seller: the engine paces it apart, at the rate Amazon last said.
    call.onLimits?.(limitsOf(rates.get(operation) ?? PLANS[operation][0]), operation);
    await call.beforeCall?.(operation);
    const query = new URLSearchParams(options.query ?? {}).toString();
    const base = config.regions[marketplace.region].apiUrl;
    const answer = await deps.http.request(`${base}${path}${query ? `?${query}` : ''}`, {
      method,
      headers: { 'x-amz-access-token': call.accessToken },
      signal: call.signal,
      ...(options.json === undefined ? {} : { json: options.json }),
    });
    const said = Number(answer.headers?.get('x-amzn-RateLimit-Limit'));
    if (Number.isFinite(said) && said > 0) rates.set(operation, said);
    return readAnswer(answer, parse);
  }

  /** A product type's definition for the marketplace and requirements; null for one Amazon does not know. Read once an hour. */
  async function definitionOf(call: ListingsCall, marketplace: AmazonMarketplace, type: string, requirements: Requirements) {
    if (!/^[A-Z0-9_]{1,80}$/.test(type)) return null;
    return definitions.get(`${type}|${marketplace.id}|${requirements}`, () =>
      send(
        call,
        marketplace,
        'getDefinitionsProductType',
        'GET',
        `/definitions/2020-09-01/productTypes/${type}`,
        readerOrGone(Definition),
        { query: { marketplaceIds: marketplace.id, requirements, locale: 'DEFAULT', sellerId: call.externalId } },
      ),
    );
  }

  /** The JSON Schema at the definition's link (unauthenticated, as Amazon's presigned link), compiled; kept by its checksum. */
  function schemaOf(call: ListingsCall, definition: Static<typeof Definition>): Promise<Schema> {
    return schemas.get(definition.schema.checksum, async () => {
      const answer = await deps.http.request(definition.schema.link.resource, { method: 'GET', signal: call.signal });
      if (answer.status !== 200)
        throw new PlatformError('unavailable', `Amazon's schema for ${definition.productType} answered HTTP ${answer.status}`);
      const raw = answer.body as Record<string, unknown>;
      const parsed = parseBody(ProductTypeSchema, raw);
      if (!parsed) throw new PlatformError('unavailable', `Amazon's schema for ${definition.productType} has no attributes`);
      let validate: ValidateFunction;
      try {
        validate = compileSchema(raw);
      } catch (error) {
        throw new PlatformError(
          'unavailable',
          `Amazon's schema for ${definition.productType} cannot be compiled: ${(error as Error).message}`,
        );
      }
      return { validate, ...shapesOf(parsed) };
    });
  }

  /** The product type's schema for the listing's requirements; a product type Amazon does not know refuses the listing. */
  async function schemaFor(call: ListingsCall, marketplace: AmazonMarketplace, type: string, requirements: Requirements) {
    const definition = await definitionOf(call, marketplace, type, requirements);
    if (!definition)
      throw new ListingRefused([
        {
          severity: 'error',
          code: 'category_unknown',
          message: `Amazon has no product type ${type}.`,
          field: 'category_id',
          source: 'storelink',
        },
      ]);
    return schemaOf(call, definition);
  }

  const contextOf = (
    call: ListingsCall,
    marketplace: AmazonMarketplace,
    schema: Pick<Schema, 'shapes' | 'properties'>,
    off: boolean,
  ): SkuContext => ({
    marketplace,
    condition: String(call.settings.condition_type ?? AMAZON_SELLER_LISTING_SETTINGS.defaults.condition_type),
    shapes: schema.shapes,
    properties: schema.properties,
    off,
  });

  /** Each SKU's body validated against the schema; the issues, the same one of several SKUs once. */
  function localIssues(draft: ListingDraft, schema: Schema, context: SkuContext): ListingIssue[] {
    const issues = draft.variants.flatMap((variant, i) =>
      schema.validate(putBody(draft, variant, context).attributes)
        ? []
        : schemaIssues(schema.validate.errors ?? [], draft, i, schema.titles),
    );
    return uniqueIssues(issues);
  }

  const prefixOf = (skus: number, sku: string) => (skus > 1 ? `${sku}: ` : '');

  async function putSku(call: ListingsCall, marketplace: AmazonMarketplace, sku: string, body: unknown, preview: boolean) {
    return send(call, marketplace, 'putListingsItem', 'PUT', itemPath(call.externalId, sku), reader(Submission, true), {
      query: { marketplaceIds: marketplace.id, includedData: 'issues,identifiers', ...(preview ? { mode: 'VALIDATION_PREVIEW' } : {}) },
      json: body,
    });
  }

  async function patchSku(call: ListingsCall, marketplace: AmazonMarketplace, sku: string, body: unknown) {
    const submission = await send(
      call,
      marketplace,
      'patchListingsItem',
      'PATCH',
      itemPath(call.externalId, sku),
      reader(Submission, true),
      {
        query: { marketplaceIds: marketplace.id, includedData: 'issues' },
        json: body,
      },
    );
    const refused = refusedSubmission(submission, `${sku}: `);
    if (refused) throw refused;
  }

  async function readItem(call: ListingsCall, marketplace: AmazonMarketplace, sku: string): Promise<AmazonItem | null> {
    return send(call, marketplace, 'getListingsItem', 'GET', itemPath(call.externalId, sku), readerOrGone(Item, true), {
      query: { marketplaceIds: marketplace.id, includedData: ITEM_DATA },
    });
  }

  /** The listing's SKUs as Amazon holds them (those it no longer has left out). */
  async function readItems(call: ListingsCall, marketplace: AmazonMarketplace, progress: ListingProgress) {
    const items: AmazonItem[] = [];
    for (const sku of heldSkus(progress.delivered, progress.externalId)) {
      const item = await readItem(call, marketplace, sku);
      if (item) items.push(item);
    }
    return items;
  }

  /**
   * The listing's state from its SKUs': active if one is, else in review, else rejected, else inactive; Amazon's word
   * the first SKU's; every SKU's issues (named by SKU in a product of several). The ASINs are recorded as variant ids.
   */
  function stateOf(items: readonly AmazonItem[], marketplace: AmazonMarketplace, progress: ListingProgress): PlatformListing {
    const now = deps.clock.now();
    const states = items.map((item) => skuState(item, marketplace.id, now));
    const issues = items.flatMap((item) => issuesOf(item.issues, prefixOf(items.length, item.sku)));
    let asin: string | undefined;
    for (const item of items) {
      const found = item.summaries?.find((each) => each.marketplaceId === marketplace.id)?.asin;
      if (found) progress.variantIds[item.sku] = found;
      asin ??= found;
    }
    const externalUrl = productPageOf(marketplace.id, asin);
    if (externalUrl) progress.externalUrl = externalUrl;
    return { status: listingStatus(states.map((s) => s.status)), platformStatus: states[0]!.platformStatus, externalUrl, issues };
  }

  async function readListing(call: ListingsCall, progress: ListingProgress): Promise<PlatformListing | null> {
    const marketplace = marketplaceFor(call, progress);
    const items = await readItems(call, marketplace, progress);
    return items.length === 0 ? null : stateOf(items, marketplace, progress);
  }

  /** A SKU as an import reads it, with what its product type's schema says of its attributes. */
  async function existingOf(call: ListingsCall, marketplace: AmazonMarketplace, item: AmazonItem): Promise<ExistingListing> {
    const summary = item.summaries?.find((each) => each.marketplaceId === marketplace.id) ?? item.summaries?.[0];
    const type = summary?.productType ?? 'PRODUCT';
    const offerOnly = ASIN in (item.attributes ?? {}) && !('item_name' in (item.attributes ?? {}));
    const definition = await definitionOf(call, marketplace, type, offerOnly ? 'LISTING_OFFER_ONLY' : 'LISTING');
    const schema = definition ? await schemaOf(call, definition) : null;
    const { off: _, ...context } = contextOf(call, marketplace, schema ?? { shapes: {}, properties: new Set<string>() }, false);
    return existingListing(item, context, deps.clock.now());
  }

  /** The All Listings report's rows (tab-separated, Amazon's header), from a fresh link to its document. */
  async function reportRows(call: ListingsCall, marketplace: AmazonMarketplace, documentId: string): Promise<Record<string, string>[]> {
    const document = await send(
      call,
      marketplace,
      'getReportDocument',
      'GET',
      `/reports/2021-06-30/documents/${encodeURIComponent(documentId)}`,
      reader(ReportDocument),
    );
    const answer = await deps.http.request(document.url, { method: 'GET', signal: call.signal, read: 'bytes' });
    if (answer.status !== 200) throw new PlatformError('unavailable', `Amazon's report document answered HTTP ${answer.status}`);
    let bytes = answer.body as Buffer;
    if (document.compressionAlgorithm === 'GZIP') bytes = gunzipSync(bytes);
    const charset = /charset=([^;]+)/i.exec(answer.headers?.get('content-type') ?? '')?.[1]?.trim() ?? 'utf-8';
    let text: string;
    try {
      text = new TextDecoder(charset).decode(bytes);
    } catch {
      text = new TextDecoder().decode(bytes);
    }
    return parse(text, { delimiter: '\t', columns: true, quote: false, relax_column_count: true, skip_empty_lines: true, bom: true });
  }

  return {
    platform: 'amazon-seller',

    /** The site's own marketplaces (what connecting read from the Sellers API: no call) and the conditions. */
    async listingOptions(call) {
      const ids = Array.isArray(call.data.marketplace_ids) ? call.data.marketplace_ids.map(String) : [];
      return {
        marketplace_id: ids.map((id) => ({ value: id, label: marketplaceLabel(id) })),
        condition_type: CONDITIONS.map(([value, label]) => ({ value, label })),
      };
    },

    /** Product types by keywords (every one without a search): each a leaf, Amazon's types having no tree. */
    async categories(call, { q, parentId }) {
      if (parentId) return [];
      const marketplace = marketplaceFor(call);
      const found = await send(
        call,
        marketplace,
        'searchDefinitionsProductTypes',
        'GET',
        '/definitions/2020-09-01/productTypes',
        reader(ProductTypes),
        {
          query: { marketplaceIds: marketplace.id, ...(q?.trim() ? { keywords: q.trim() } : {}) },
        },
      );
      return found.productTypes.map((type) => {
        const name = type.displayName ?? type.name;
        return { id: type.name, name, path: [name], leaf: true };
      });
    },

    async category(call, categoryId) {
      const definition = await definitionOf(call, marketplaceFor(call), categoryId, 'LISTING');
      if (!definition) return null;
      const name = definition.displayName ?? definition.productType;
      return { id: definition.productType, name, path: [name], leaf: true };
    },

    /**
     * What the product type's schema describes that Storelink does not fill from the product: each attribute a listing
     * gives with one value (a choice from its enum, a text, a number, yes or no; required where the schema requires it),
     * and Storelink's own: the brand, the condition, the barcode, the bullet points and the ASIN to offer on. An
     * attribute of a structure of its own (dimensions, say) is not offered (see docs/listings.md).
     */
    async categoryAttributes(call, categoryId): Promise<CategoryAttribute[] | null> {
      const marketplace = marketplaceFor(call);
      const definition = await definitionOf(call, marketplace, categoryId, 'LISTING');
      if (!definition) return null;
      const schema = await schemaOf(call, definition);
      const offered: CategoryAttribute[] = [];
      for (const [name, shape] of Object.entries(schema.shapes)) {
        if (isFilled(name) || name === BRAND || name === CONDITION || name === BULLETS || name === ASIN) continue;
        const choices = shape.enum ?? [];
        offered.push({
          name,
          label: shape.title,
          required: shape.required,
          type:
            choices.length > 0 ? 'select' : shape.valueType === 'boolean' ? 'boolean' : shape.valueType === 'string' ? 'text' : 'number',
          values: choices.map((value, i) => ({ value, label: shape.enumNames?.[i] ?? value })),
        });
      }
      const own: CategoryAttribute[] = [
        { name: BRAND, label: 'Brand (when the product has none, or to list under another)', required: false, type: 'text', values: [] },
        {
          name: CONDITION,
          label: "Condition (instead of the site's)",
          required: false,
          type: 'select',
          values: CONDITIONS.map(([value, label]) => ({ value, label })),
        },
        { name: BULLETS, label: 'Bullet points (one a line)', required: false, type: 'text', values: [] },
        {
          name: IDENTIFIER,
          label: 'Barcode (UPC, EAN or GTIN) of a product of one variant without one',
          required: false,
          type: 'text',
          values: [],
        },
        { name: ASIN, label: 'ASIN to offer on (an existing Amazon product)', required: false, type: 'text', values: [] },
      ];
      return [...offered, ...own.filter((attribute) => schema.properties.has(attribute.name) || attribute.name === BULLETS)];
    },

    check: (draft, _attributes, call) => checkAmazonDraft(draft, call.settings.marketplace_id),

    /**
     * Each SKU's body validated locally against the product type's schema (nothing sent when it fails), then by
     * Amazon's VALIDATION_PREVIEW (a PUT that changes nothing): its INVALID issues in Amazon's words.
     */
    async validate(call, draft) {
      const marketplace = marketplaceFor(call);
      const requirements = requirementsOf(draft);
      const schema = await schemaFor(call, marketplace, draft.categoryId, requirements);
      const context = contextOf(call, marketplace, schema, false);
      const local = localIssues(draft, schema, context);
      if (local.length > 0) return local;
      const issues: ListingIssue[] = [];
      for (const variant of draft.variants) {
        const submission = await putSku(call, marketplace, variant.sku, putBody(draft, variant, context), true);
        issues.push(...issuesOf(submission.issues, prefixOf(draft.variants.length, variant.sku)));
      }
      return issues;
    },

    async deliver(call, draft, progress, save) {
      const marketplace = marketplaceFor(call, progress);
      const creating = !progress.externalId;
      const requirements = requirementsOf(draft);
      const schema = await schemaFor(call, marketplace, draft.categoryId, requirements);
      const off = progress.delivered.off === '1';
      const context = contextOf(call, marketplace, schema, off);
      progress.delivered.marketplace = marketplace.id;
      progress.delivered.type = draft.categoryId;
      const warnings: ListingIssue[] = [];
      let checked = false;
      for (const variant of draft.variants) {
        const wanted = skuPrints(draft, variant, context);
        const { sku } = variant;
        if (progress.delivered[`item.${sku}`] !== wanted[`item.${sku}`]) {
          if (!checked) {
            // Amazon's own rules first: a listing its schema refuses is refused before anything is sent.
            const local = localIssues(draft, schema, context);
            if (local.length > 0) throw new ListingRefused(local);
            checked = true;
          }
          const submission = await putSku(call, marketplace, sku, putBody(draft, variant, context), false);
          const refused = refusedSubmission(submission, prefixOf(draft.variants.length, sku));
          if (refused) throw refused;
          warnings.push(...issuesOf(submission.issues, prefixOf(draft.variants.length, sku)));
          const asin = submission.identifiers?.find((each) => each.marketplaceId === marketplace.id)?.asin;
          if (asin) progress.variantIds[sku] = asin;
          // A put is whole: the offer and the stock went with it.
          Object.assign(progress.delivered, wanted);
          progress.createStartedAt ??= deps.clock.now().toISOString();
          progress.externalId ??= draft.variants[0]!.sku;
          await save(progress);
        } else if (
          progress.delivered[`offer.${sku}`] !== wanted[`offer.${sku}`] ||
          progress.delivered[`quantity.${sku}`] !== wanted[`quantity.${sku}`]
        ) {
          await patchSku(call, marketplace, sku, offerPatch(draft.categoryId, draft, variant, context));
          progress.delivered[`offer.${sku}`] = wanted[`offer.${sku}`]!;
          progress.delivered[`quantity.${sku}`] = wanted[`quantity.${sku}`]!;
        }
      }
      // A variant the product no longer has is a SKU Amazon no longer lists.
      const current = new Set(draft.variants.map((variant) => variant.sku));
      for (const sku of heldSkus(progress.delivered, null)) {
        if (current.has(sku)) continue;
        await deleteSku(call, marketplace, sku);
        forgetSku(progress.delivered, sku);
        delete progress.variantIds[sku];
      }
      if (progress.externalId && !current.has(progress.externalId)) progress.externalId = draft.variants[0]!.sku;
      // A new listing is Amazon's to process before buyers see it (listings.md §3.4: ACCEPTED is not live).
      return creating && progress.externalId
        ? { status: 'in_review' as const, platformStatus: 'ACCEPTED', externalUrl: null, issues: warnings }
        : null;
    },

    /**
     * Off is a stock of 0 on every SKU (listings.md §3.5, INFERENCE: the API has no inactive state), read back; on is
     * the stock as last listed again, which Amazon processes before the listing is buyable: `in_review` meanwhile.
     */
    async setActive(call, progress, active) {
      const marketplace = marketplaceFor(call, progress);
      const type = progress.delivered.type ?? 'PRODUCT';
      const skus = heldSkus(progress.delivered, progress.externalId);
      let stocked = false;
      for (const sku of skus) {
        const quantity = active ? Number(progress.delivered[`quantity.${sku}`] ?? 0) : 0;
        stocked ||= quantity > 0;
        await patchSku(call, marketplace, sku, stockPatch(type, quantity));
      }
      if (active) delete progress.delivered.off;
      else progress.delivered.off = '1';
      if (active && stocked) return { status: 'in_review', platformStatus: 'ACCEPTED', externalUrl: progress.externalUrl, issues: [] };
      const read = await readListing(call, progress);
      if (!read) throw new PlatformError('unavailable', 'Amazon no longer shows the SKUs it just changed');
      return read;
    },

    async remove(call, progress) {
      const marketplace = marketplaceFor(call, progress);
      for (const sku of heldSkus(progress.delivered, progress.externalId)) {
        await deleteSku(call, marketplace, sku);
      }
    },

    read: (call, progress) => readListing(call, progress),

    /** The listing's SKUs read as an import reads them, as one product: the variants the SKUs, the title the first's. */
    async readExisting(call, progress) {
      const marketplace = marketplaceFor(call, progress);
      const items = await readItems(call, marketplace, progress);
      if (items.length === 0) return null;
      const found: ExistingListing[] = [];
      for (const item of items) found.push(await existingOf(call, marketplace, item));
      const [first] = found as [ExistingListing, ...ExistingListing[]];
      return {
        ...first,
        externalId: progress.externalId ?? first.externalId,
        state: stateOf(items, marketplace, progress),
        product: {
          ...first.product,
          // The product's own title: the item names of a product of several variants end with an em dash and their option values.
          title: found.length > 1 ? first.product.title.replace(/ \u2014 [^\u2014]*$/, '') : first.product.title,
          variants: found.flatMap((listing) => listing.product.variants),
        },
        progress: {
          ...first.progress,
          externalId: progress.externalId,
          delivered: Object.assign({}, ...found.map((listing) => listing.progress.delivered)),
          variantIds: Object.assign({}, ...found.map((listing) => listing.progress.variantIds)),
        },
      };
    },

    /**
     * What Amazon holds now, recorded as delivered where a seller edits it in Seller Central: each SKU's item name and
     * description, price and stock (the stock not while the listing is off), so the next delivery sends the catalogue's
     * again, and only there. The rest of a SKU's attributes is not compared: Amazon adds attributes of its own.
     */
    reconcile(progress, existing) {
      const delivered = { ...progress.delivered };
      for (const [key, value] of Object.entries(existing.progress.delivered)) {
        if (!/^(text|offer|quantity)\./.test(key) || !(key in delivered)) continue;
        if (key.startsWith('quantity.') && delivered.off === '1') continue;
        if (key.startsWith('text.') && delivered[key] !== value) {
          // The item name or description changed on Amazon: the SKU is put whole again.
          delivered[`item.${key.slice('text.'.length)}`] = 'changed on Amazon';
        }
        delivered[key] = value;
      }
      return { ...progress, delivered, variantIds: { ...progress.variantIds, ...existing.progress.variantIds } };
    },

    /**
     * The All Listings report (searchListingsItems reaches 1,000 SKUs at most, listings.md §3.7): asked for once, its
     * document read a page of rows at a time from a fresh link (Amazon's is valid five minutes), each SKU then read whole.
     * A report Amazon has not finished is an empty page whose cursor looks again (and a passing failure until it is).
     */
    async existing(call, cursor) {
      const marketplace = marketplaceFor(call);
      let at: ReportCursor = cursor ? (JSON.parse(cursor) as ReportCursor) : { o: 0 };
      if (!at.r && !at.d) {
        const created = await send(call, marketplace, 'createReport', 'POST', '/reports/2021-06-30/reports', reader(CreatedReport), {
          json: { reportType: 'GET_MERCHANT_LISTINGS_ALL_DATA', marketplaceIds: [marketplace.id] },
        });
        at = { r: created.reportId, o: 0 };
      }
      if (!at.d) {
        const report = await send(
          call,
          marketplace,
          'getReport',
          'GET',
          `/reports/2021-06-30/reports/${encodeURIComponent(at.r!)}`,
          reader(Report),
        );
        if (report.processingStatus === 'CANCELLED') return { listings: [], next: null };
        if (report.processingStatus === 'FATAL') throw new PlatformError('unavailable', 'Amazon could not make the All Listings report');
        if (report.processingStatus !== 'DONE' || !report.reportDocumentId) {
          if (cursor?.includes('"r"'))
            throw new PlatformError('unavailable', 'Amazon is still making the All Listings report', REPORT_WAIT_MS);
          return { listings: [], next: JSON.stringify(at) };
        }
        at = { d: report.reportDocumentId, o: 0 };
      }
      const rows = await reportRows(call, marketplace, at.d!);
      const listings: ExistingListing[] = [];
      for (const row of rows.slice(at.o, at.o + REPORT_PAGE_SIZE)) {
        const sku = row['seller-sku'];
        if (!sku) continue;
        const item = await readItem(call, marketplace, sku);
        if (item) listings.push(await existingOf(call, marketplace, item));
      }
      const next = at.o + REPORT_PAGE_SIZE;
      return { listings, next: next < rows.length ? JSON.stringify({ d: at.d, o: next }) : null };
    },
  } satisfies ListingsAdapter;
}
