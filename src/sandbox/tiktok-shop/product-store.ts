/**
 * The TikTok Shop simulator's products, in memory per app (listings.md §2.2): what Create Product stores, the audit
 * that settles `SANDBOX_REVIEW_SECONDS` after a submission (DESIGN §10 "Sandbox"), the two versions
 * of a live product under re-review (the live one stays live if the new one fails), the uploaded images, the
 * idempotency keys, the per-shop rate limit, and the product status webhook (type 5) sent when an audit settles (on
 * the next call of the shop, or the product API's sweep each second, whichever comes first).
 */
import type { SandboxContext } from '../context.js';
import { refill, registerStatePart } from '../state.js';
import { sendNotification } from './notifications.js';

export type ProductStatus =
  | 'DRAFT'
  | 'PENDING'
  | 'FAILED'
  | 'ACTIVATE'
  | 'SELLER_DEACTIVATED'
  | 'PLATFORM_DEACTIVATED'
  | 'FREEZE'
  | 'DELETED';
export type AuditStatus = 'NONE' | 'AUDITING' | 'FAILED' | 'PRE_APPROVED' | 'APPROVED';
/**
 * Why a product that passed its audit is not for sale yet (listings.md §2.2, [T6]; TikTok's changelog: such products
 * "remain in the `PENDING` status and `PRE_APPROVED` audit status … unavailable to buyers until the seller has acquired
 * the necessary permission(s)").
 */
export const PRE_APPROVED_REASONS = ['KYC_PENDING', 'RESTRICTED_CATEGORY_PENDING'] as const;
export type PreApprovedReason = (typeof PRE_APPROVED_REASONS)[number];

export interface Sku {
  id: string;
  seller_sku: string;
  external_sku_id: string;
  price: { amount: string; currency: string };
  inventory: { warehouse_id: string; quantity: number }[];
  sales_attributes: { id?: string; name?: string; value_id?: string; value_name?: string }[];
}

/** A file TikTok hosts (Upload Product File): a certificate's PDF. */
export interface HostedFile {
  id: string;
  url: string;
  name: string;
  format: 'PDF';
}

export interface HostedImage {
  uri: string;
  url: string;
  width: number;
  height: number;
  use_case: string;
}

/** One version of a product's content: what a full edit replaces. */
export interface ProductVersion {
  title: string;
  description: string;
  category_id: string;
  brand_id: string | null;
  main_images: HostedImage[];
  skus: Sku[];
  package_weight: { value: string; unit: string };
  package_dimensions: { length: string; width: string; height: string; unit: string } | null;
  product_attributes: { id: string; name: string; values: { id?: string; name?: string }[] }[];
  external_product_id: string;
  /** The category's certifications sent (Create Product's `certifications`). */
  certifications: { id: string; images: { uri: string }[]; files: { id: string; name: string; format: string }[] }[];
  /** A size chart template or image; kept only where the category supports size charts. */
  size_chart: { template?: { id: string }; image?: { uri: string } } | null;
  /** The EU's responsible persons and manufacturers (a shop of a seller local to the EU keeps them). */
  responsible_person_ids: string[];
  manufacturer_ids: string[];
}

export interface AuditFailure {
  position: string;
  reasons: string[];
  suggestions: string[];
  listing_platform: 'TIKTOK_SHOP';
}

export interface StoredProduct {
  id: string;
  shopId: string;
  status: ProductStatus;
  audit: AuditStatus;
  /** What buyers see once live; before the first pass, the version under audit. */
  version: ProductVersion;
  /** The version under audit and when it was submitted, or null. */
  review: { version: ProductVersion; submittedAt: number } | null;
  auditFailedReasons: AuditFailure[];
  /** What the shop still has to do before a pre-approved product goes on sale (`audit.pre_approved_reasons`). */
  preApprovedReasons: PreApprovedReason[];
  /** Whether the product ever passed audit, which decides the webhook's PRODUCT_FIRST_PASS_REVIEW. */
  passedOnce: boolean;
  createTime: number;
  updateTime: number;
}

/** The id sequences start at fixed numbers so every run answers the same ids. */
const FIRST_PRODUCT_ID = 1_729_592_969_712_207_000n;
const FIRST_SKU_ID = 1_729_592_969_712_300_000n;
const PROHIBITED = /\bprohibited\b/i;

/** Sets the TikTok Shop product API's requests per second, per shop and API, for a running sandbox (tests, load). */
export function setTikTokShopRateLimit(context: SandboxContext, perSecond: number): void {
  context.tiktokLimits.perSecond = perSecond;
}

/**
 * Sets how many products a shop may create a day (TikTok's daily upload allowance: 100 for a new shop on probation, the
 * sandbox's default, and 1,000 after, listings.md §2.2), for a running sandbox (tests; the bench by POST /limits).
 */
export function setTikTokShopDailyUploads(context: SandboxContext, perDay: number): void {
  context.tiktokLimits.uploadsPerDay = perDay;
}

/** ASSUMPTION: the reasons' wording; the shape is Get Product's `audit_failed_reasons` (listings.md §2.2). */
export const PROHIBITED_TITLE: AuditFailure = {
  position: 'title',
  reasons: ['The product title contains a prohibited word.'],
  suggestions: ['Remove the prohibited word from the title and submit the product again.'],
  listing_platform: 'TIKTOK_SHOP',
};

export type ProductStore = ReturnType<typeof createProductStore>;

export function createProductStore(context: SandboxContext) {
  const products = new Map<string, StoredProduct>();
  const images = new Map<string, HostedImage>();
  const files = new Map<string, HostedFile>();
  const idempotency = new Map<string, unknown>();
  const budget = new Map<string, { second: number; count: number }>();
  /** Each shop's creates on its last day of uploads. ASSUMPTION: TikTok's day turns at 00:00 UTC (undocumented). */
  const uploads = new Map<string, { day: string; count: number }>();
  const today = () => new Date(now()).toISOString().slice(0, 10);
  const stocked = new Set<string>();
  /** The prerequisite each shop still lacks (the consent page's `pending`): its audits that pass end PRE_APPROVED. */
  const lacking = new Map<string, PreApprovedReason>();
  /** The first shop of each account's latest authorization: where its buyers' orders go by default. */
  const homes = new Map<number, string>();
  let nextProduct = FIRST_PRODUCT_ID;
  let nextSku = FIRST_SKU_ID;
  const now = () => context.clock.nowMs();
  registerStatePart(context.stateParts, 'tiktok-shop:products', {
    save: () => ({ products, images, idempotency, stocked, homes, nextProduct, nextSku }),
    load: (state) => {
      const saved = state as {
        products: typeof products;
        images: typeof images;
        idempotency: typeof idempotency;
        stocked: typeof stocked;
        homes: typeof homes;
        nextProduct: bigint;
        nextSku: bigint;
      };
      refill(products, saved.products);
      refill(images, saved.images);
      refill(idempotency, saved.idempotency);
      refill(stocked, saved.stocked);
      refill(homes, saved.homes);
      nextProduct = saved.nextProduct;
      nextSku = saved.nextSku;
    },
  });

  /** Tells Storelink the audit settled, as TikTok's type 5 webhook does; not awaited, errors ignored. */
  const notify = (product: StoredProduct, status: string, suspendedReason: string) => {
    // ASSUMPTION: product_id is sent as a string (TikTok's sample has a number too large for a JSON double).
    const data = { product_id: product.id, status, suspended_reason: suspendedReason, update_time: Math.floor(product.updateTime / 1000) };
    sendNotification(context, 5, product.shopId, data);
  };

  /**
   * The product audit status change webhook (type 37, listings.md §2.9). ASSUMPTION: `data` carries the product id and
   * `audit{status, pre_approved_reasons}` as Get Product shows them (the docs' table lists `pre_approved_reasons`).
   */
  const notifyAudit = (product: StoredProduct) => {
    const audit = { status: product.audit, pre_approved_reasons: product.preApprovedReasons };
    sendNotification(context, 37, product.shopId, { product_id: product.id, audit, update_time: Math.floor(product.updateTime / 1000) });
  };

  /** Settles the product's audit when its review time has passed: live, or failed with reasons. */
  const settle = (product: StoredProduct) => {
    const review = product.review;
    if (!review || now() < review.submittedAt + context.reviewSeconds * 1000) return;
    product.review = null;
    product.updateTime = review.submittedAt + context.reviewSeconds * 1000;
    if (PROHIBITED.test(review.version.title)) {
      product.audit = 'FAILED';
      product.auditFailedReasons = [PROHIBITED_TITLE];
      // A live product keeps its live version when the edited one fails (listings.md §2.2, [T7]).
      if (product.status !== 'ACTIVATE') Object.assign(product, { status: 'FAILED', version: review.version });
      notify(product, 'PRODUCT_AUDIT_FAILURE', PROHIBITED_TITLE.reasons[0]!);
      return;
    }
    const reason = lacking.get(product.shopId);
    // A product never live waits for the shop's prerequisite in PENDING; a live one's edit goes live as it passes.
    if (reason && product.status !== 'ACTIVATE') {
      Object.assign(product, {
        status: 'PENDING',
        audit: 'PRE_APPROVED',
        version: review.version,
        auditFailedReasons: [],
        preApprovedReasons: [reason],
      });
      notifyAudit(product);
      return;
    }
    const first = !product.passedOnce;
    Object.assign(product, {
      status: 'ACTIVATE',
      audit: 'APPROVED',
      version: review.version,
      auditFailedReasons: [],
      preApprovedReasons: [],
      passedOnce: true,
    });
    notify(product, first ? 'PRODUCT_FIRST_PASS_REVIEW' : 'PRODUCT_STATUS_CHANGED', '');
  };

  return {
    images,
    files,
    /** The product with its audit settled, or undefined. */
    get(id: unknown): StoredProduct | undefined {
      const product = typeof id === 'string' ? products.get(id) : undefined;
      if (product) settle(product);
      return product;
    },
    /** Every product of the shop, oldest first, audits settled. */
    ofShop(shopId: string): StoredProduct[] {
      const found = [...products.values()].filter((product) => product.shopId === shopId);
      for (const product of found) settle(product);
      return found;
    },
    /** Settles every audit that is due, as TikTok does on its own: its webhook goes out without a call waking it. */
    settleDue() {
      for (const product of products.values()) if (product.review) settle(product);
    },
    nextSkuId: () => String(nextSku++),
    /** Stores a new product: a draft, or submitted to audit. */
    add(shopId: string, version: ProductVersion, draft: boolean): StoredProduct {
      const at = now();
      const product: StoredProduct = {
        id: String(nextProduct++),
        shopId,
        status: draft ? 'DRAFT' : 'PENDING',
        audit: draft ? 'NONE' : 'AUDITING',
        version,
        review: draft ? null : { version, submittedAt: at },
        auditFailedReasons: [],
        preApprovedReasons: [],
        passedOnce: false,
        createTime: at,
        updateTime: at,
      };
      products.set(product.id, product);
      return product;
    },
    /** Sets the prerequisite the shop lacks (null: none): its products that pass audit from now on wait for it. */
    lack(shopId: string, reason: PreApprovedReason | null) {
      if (reason) lacking.set(shopId, reason);
      else lacking.delete(shopId);
    },
    /**
     * The shop completed its prerequisite (the seller's KYC, the category's permission from the Qualification Center):
     * every pre-approved product of the shop goes on sale (status change webhook, as a first pass) and later audits pass.
     */
    complete(shopId: string): StoredProduct[] {
      lacking.delete(shopId);
      const released = [...products.values()].filter((product) => product.shopId === shopId && product.audit === 'PRE_APPROVED');
      for (const product of released) {
        Object.assign(product, { status: 'ACTIVATE', audit: 'APPROVED', preApprovedReasons: [], passedOnce: true, updateTime: now() });
        notifyAudit(product);
        notify(product, 'PRODUCT_FIRST_PASS_REVIEW', '');
      }
      return released;
    },
    /** The account authorized the app for shops whose first is `shopId` (the consent page's Allow). */
    authorized: (account: number, shopId: string) => void homes.set(account, shopId),
    /** The first shop of the account's latest authorization, or undefined before any. */
    homeOf: (account: number) => homes.get(account),
    /** Whether the shop is to be stocked now: true the first time it is asked only (stock.ts). */
    stock: (shopId: string) => !stocked.has(shopId) && Boolean(stocked.add(shopId)),
    /**
     * Stores a product made outside Storelink (stock.ts) as it stands once its audit settled at `at`: live, switched
     * off by its seller after it passed, or refused for a prohibited title.
     */
    place(shopId: string, version: ProductVersion, status: 'ACTIVATE' | 'SELLER_DEACTIVATED' | 'FAILED', at: number): StoredProduct {
      const failed = status === 'FAILED';
      const product: StoredProduct = {
        id: String(nextProduct++),
        shopId,
        status,
        audit: failed ? 'FAILED' : 'APPROVED',
        version,
        review: null,
        auditFailedReasons: failed ? [PROHIBITED_TITLE] : [],
        preApprovedReasons: [],
        passedOnce: !failed,
        createTime: at,
        updateTime: at,
      };
      products.set(product.id, product);
      return product;
    },
    /** Sends a version to audit: a live product stays live on its current version meanwhile. */
    submit(product: StoredProduct, version: ProductVersion) {
      const at = now();
      product.review = { version, submittedAt: at };
      product.audit = 'AUDITING';
      product.updateTime = at;
      if (product.status !== 'ACTIVATE') Object.assign(product, { status: 'PENDING', version });
    },
    touch: (product: StoredProduct) => void (product.updateTime = now()),
    /** The answer stored under a shop's idempotency key, or undefined. */
    remembered: (shopId: string, key: string) => idempotency.get(`${shopId}:${key}`),
    remember: (shopId: string, key: string, answer: unknown) => void idempotency.set(`${shopId}:${key}`, answer),
    /** The shop's creates today and its allowance. */
    uploadsOf(shopId: string) {
      const entry = uploads.get(shopId);
      const day = today();
      return { day, count: entry?.day === day ? entry.count : 0, limit: context.tiktokLimits.uploadsPerDay };
    },
    /** Counts one create of the shop today. */
    countUpload(shopId: string) {
      const day = today();
      const entry = uploads.get(shopId);
      uploads.set(shopId, { day, count: entry?.day === day ? entry.count + 1 : 1 });
    },
    /** Spends one request of the shop's per-second budget for the API; false when it is spent. */
    spend(shopId: string, api: string): boolean {
      const second = Math.floor(now() / 1000);
      const key = `${shopId}:${api}`;
      const entry = budget.get(key);
      const current = entry && entry.second === second ? entry : { second, count: 0 };
      budget.set(key, current);
      if (current.count >= context.tiktokLimits.perSecond) return false;
      current.count += 1;
      return true;
    },
  };
}
