/**
 * TikTok Shop's product API answers (listings.md §2.3–2.7), parsed without I/O: the envelope of every call and what
 * its result codes mean for a listing, the reference data (categories, attributes, rules, brands, the seller's
 * responsible persons, manufacturers and size charts, warehouses), an uploaded
 * image, a created product, a product as Get Product shows it, a search page, the listing check, and the batch calls
 * that answer success with per-item failures.
 */
import Type, { type Static } from 'typebox';
import type { CategoryAttribute, ListingIssue, ListingStatus } from '../../domain/index.js';
import { isPassingFailure } from '../../lib/outbound-http.js';
import { ListingRefused, PlatformError } from '../contracts/errors.js';
import type { PlatformListing } from '../contracts/listings.js';
import { parseBody } from '../parse.js';
import { failureOf } from './responses.js';

const Envelope = Type.Object({ code: Type.Number(), message: Type.Optional(Type.String()), data: Type.Optional(Type.Unknown()) });

/** The product API's own codes (12xxxxxx) refuse the listing; 12001000 is TikTok's internal error, a passing one. */
const INTERNAL = 12_001_000;
const isProductCode = (code: number) => code >= 12_000_000 && code < 13_000_000 && code !== INTERNAL;
/** TikTok answers a parameter it refuses with its common 36009004 and "Invalid parameter…" (the rest of 36009004 is the app's). */
const isParameterRefusal = (code: number, message: string) => code === 36_009_004 && /^invalid parameter/i.test(message);
/** ASSUMPTION: the code of a product id that names no product (the sandbox's; TikTok documents none for Get Product). */
export const PRODUCT_MISSING = 12_052_700;
/**
 * A create refused because the shop's daily allowance of new products is spent (listings.md §2.5 "listing limit
 * exceeded", §2.2: 100 a day on probation, 1,000 after). UNCONFIRMED that this is the code of the daily limit rather than
 * of a total one: TikTok names it only "listing limit exceeded"; integrators read it as the day's allowance.
 */
export const DAILY_UPLOADS_SPENT = 12_052_093;
/** A stock update that leaves out a warehouse of a multi-warehouse SKU (listings.md §2.7: 12019028). */
export const ALL_WAREHOUSES = 12_019_028;
/** A batch item in a status the call cannot act on (listings.md §2.7: 12052901). */
export const WRONG_STATUS = 12_052_901;

export const platformIssue = (code: number | string, message: string, field: string | null, severity: ListingIssue['severity'] = 'error') =>
  ({ severity, code: String(code), message, field, source: 'platform' }) satisfies ListingIssue;

/**
 * The `data` of an answer with code 0. A product code or a refused parameter refuses the listing itself (TikTok's code
 * and words as its issue); the rest is read as the connect calls read it (the grant, the app, a passing failure).
 */
export function productData<T extends ReturnType<typeof Type.Object>>(schema: T, status: number, body: unknown): Static<T> {
  const envelope = parseBody(Envelope, body);
  if (envelope && envelope.code !== 0 && (isProductCode(envelope.code) || isParameterRefusal(envelope.code, envelope.message ?? '')))
    throw new ListingRefused([
      platformIssue(envelope.code, envelope.message ?? `TikTok Shop refused the product (${envelope.code}).`, null),
    ]);
  if (isPassingFailure(status) || envelope?.code === INTERNAL)
    throw new PlatformError('unavailable', 'TikTok Shop could not complete the request');
  if (!envelope) throw new PlatformError('unavailable', `TikTok Shop answered without a result code (HTTP ${status})`);
  if (envelope.code !== 0)
    throw failureOf(envelope.code, envelope.message ?? '', 'TikTok Shop no longer accepts this authorization; connect the shop again.');
  const data = parseBody(schema, envelope.data ?? {});
  if (!data) throw new PlatformError('unavailable', 'TikTok Shop answered with data of an unexpected shape');
  return data;
}

/** A reader of one call's answer, for PlatformHttp's readAnswer. */
export const reader =
  <T extends ReturnType<typeof Type.Object>>(schema: T) =>
  (status: number, body: unknown) =>
    productData(schema, status, body);

/** Seller sku to the warehouses TikTok keeps each SKU's stock in, as Get Product shows them. */
export const locationsOf = (product: TikTokProduct): Record<string, string[]> =>
  Object.fromEntries(
    product.skus.flatMap((sku) => (sku.seller_sku ? [[sku.seller_sku, sku.inventory.map((entry) => entry.warehouse_id)]] : [])),
  );

/** Get Product when the product is gone: null rather than a refusal. */
export function productOrGone(status: number, body: unknown): TikTokProduct | null {
  const envelope = parseBody(Envelope, body);
  if (envelope?.code === PRODUCT_MISSING) return null;
  const product = productData(Product, status, body);
  return product.status === 'DELETED' ? null : product;
}

export const Categories = Type.Object({
  categories: Type.Array(Type.Object({ id: Type.String(), parent_id: Type.String(), local_name: Type.String(), is_leaf: Type.Boolean() })),
});
export type TikTokCategory = Static<typeof Categories>['categories'][number];

const Value = Type.Object({ id: Type.String(), name: Type.String() });
export const Attributes = Type.Object({
  attributes: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      type: Type.String(),
      // TikTok's own spelling (listings.md §2.3).
      is_requried: Type.Optional(Type.Boolean()),
      values: Type.Optional(Type.Array(Value)),
      is_customizable: Type.Optional(Type.Boolean()),
      is_multiple_selection: Type.Optional(Type.Boolean()),
    }),
  ),
});
export type TikTokAttribute = Static<typeof Attributes>['attributes'][number];

/**
 * The category's product properties as attributes (sales properties are the product's options). A property with
 * choices that also takes the seller's own text is `text` with its choices listed: a text naming a choice sends it.
 */
export const categoryAttributesOf = (attributes: readonly TikTokAttribute[]) =>
  attributes
    .filter((a) => a.type === 'PRODUCT_PROPERTY')
    .map((a): CategoryAttribute => {
      const values = (a.values ?? []).map((v) => ({ value: v.id, label: v.name }));
      const type = a.is_multiple_selection ? 'multiselect' : values.length > 0 && !a.is_customizable ? 'select' : 'text';
      return { name: a.id, label: a.name, required: a.is_requried === true, type, values };
    });

const Requirement = Type.Optional(Type.Object({ is_required: Type.Optional(Type.Boolean()) }));
/**
 * Get Category Rules (listings.md §2.3; TikTok's "Get Category Rules" doc 6509c0febace3e02b74594a9): a certification's
 * `requirement_conditions` apply only when it is not always required, and any one met requires it.
 */
export const Rules = Type.Object({
  product_certifications: Type.Optional(
    Type.Array(
      Type.Object({
        id: Type.String(),
        name: Type.Optional(Type.String()),
        is_required: Type.Optional(Type.Boolean()),
        requirement_conditions: Type.Optional(
          Type.Array(
            Type.Object({
              condition_type: Type.Optional(Type.String()),
              attribute_id: Type.Optional(Type.String()),
              attribute_value_id: Type.Optional(Type.String()),
            }),
          ),
        ),
      }),
    ),
  ),
  size_chart: Type.Optional(Type.Object({ is_supported: Type.Optional(Type.Boolean()), is_required: Type.Optional(Type.Boolean()) })),
  package_dimension: Requirement,
  responsible_person: Requirement,
  manufacturer: Requirement,
});
export type TikTokRules = Static<typeof Rules>;

/** One locale's details of a responsible person or manufacturer (202501's `regional_profiles`). */
const Profile = Type.Object({
  locale: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
});
/** A responsible person or manufacturer: 202501 answers its details per locale, 202409 answered them flat. */
const Entity = Type.Object({
  id: Type.String(),
  name: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
  regional_profiles: Type.Optional(Type.Array(Profile)),
});
export type TikTokEntity = Static<typeof Entity>;
const NextPage = Type.Optional(Type.String());
/** Search Responsible Persons (202501). */
export const ResponsiblePersons = Type.Object({ responsible_persons: Type.Optional(Type.Array(Entity)), next_page_token: NextPage });
/** Search Manufacturers (202501). */
export const Manufacturers = Type.Object({ manufacturers: Type.Optional(Type.Array(Entity)), next_page_token: NextPage });
/** Search Size Charts (202407): the seller's templates. */
export const SizeCharts = Type.Object({
  size_chart: Type.Optional(Type.Array(Type.Object({ template_id: Type.String(), template_name: Type.Optional(Type.String()) }))),
  next_page_token: NextPage,
});

export const Brands = Type.Object({
  brands: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      authorized_status: Type.Optional(Type.String()),
      brand_status: Type.Optional(Type.String()),
      is_t1_brand: Type.Optional(Type.Boolean()),
    }),
  ),
});

/** Check Prerequisites (listings.md §2.3): each item TikTok checks, failed or not, with its reasons. */
export const Prerequisites = Type.Object({
  check_results: Type.Array(
    Type.Object({ check_item: Type.String(), is_failed: Type.Boolean(), fail_reasons: Type.Optional(Type.Array(Type.String())) }),
  ),
});

export const Warehouses = Type.Object({
  warehouses: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      effect_status: Type.Optional(Type.String()),
      type: Type.Optional(Type.String()),
      is_default: Type.Optional(Type.Boolean()),
    }),
  ),
});

export const UploadedImage = Type.Object({ uri: Type.String({ minLength: 1 }), url: Type.Optional(Type.String()) });
/** Upload Product File's answer: `{id, url, name, format}` (a certificate's PDF). */
export const UploadedFile = Type.Object({ id: Type.String({ minLength: 1 }), name: Type.Optional(Type.String()) });

const SkuIds = Type.Array(Type.Object({ id: Type.String(), seller_sku: Type.Optional(Type.String()) }));
export const Created = Type.Object({
  product_id: Type.String({ minLength: 1 }),
  skus: SkuIds,
  warnings: Type.Optional(Type.Array(Type.Object({ message: Type.String() }))),
});
export const Edited = Type.Object({
  skus: Type.Optional(SkuIds),
  warnings: Type.Optional(Type.Array(Type.Object({ message: Type.String() }))),
});

const SalesAttribute = Type.Object({
  id: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  value_id: Type.Optional(Type.String()),
  value_name: Type.Optional(Type.String()),
});
const Inventory = Type.Array(Type.Object({ warehouse_id: Type.String(), quantity: Type.Integer() }));
const Price = Type.Object({
  currency: Type.String(),
  sale_price: Type.Optional(Type.String()),
  tax_exclusive_price: Type.Optional(Type.String()),
});
export const Product = Type.Object({
  id: Type.String(),
  status: Type.String(),
  title: Type.String(),
  description: Type.Optional(Type.String()),
  category_chains: Type.Optional(Type.Array(Type.Object({ id: Type.String(), is_leaf: Type.Optional(Type.Boolean()) }))),
  brand: Type.Optional(Type.Union([Type.Object({ id: Type.String() }), Type.Null()])),
  main_images: Type.Optional(Type.Array(Type.Object({ uri: Type.String(), urls: Type.Optional(Type.Array(Type.String())) }))),
  skus: Type.Array(
    Type.Object({
      id: Type.String(),
      seller_sku: Type.Optional(Type.String()),
      price: Price,
      inventory: Inventory,
      sales_attributes: Type.Optional(Type.Array(SalesAttribute)),
    }),
  ),
  product_attributes: Type.Optional(
    Type.Array(
      Type.Object({
        id: Type.String(),
        values: Type.Array(Type.Object({ id: Type.Optional(Type.String()), name: Type.Optional(Type.String()) })),
      }),
    ),
  ),
  package_weight: Type.Optional(Type.Object({ value: Type.Optional(Type.String()), unit: Type.Optional(Type.String()) })),
  package_dimensions: Type.Optional(
    Type.Union([
      Type.Object({
        length: Type.Optional(Type.String()),
        width: Type.Optional(Type.String()),
        height: Type.Optional(Type.String()),
        unit: Type.Optional(Type.String()),
      }),
      Type.Null(),
    ]),
  ),
  size_chart: Type.Optional(
    Type.Union([Type.Object({ template: Type.Optional(Type.Union([Type.Object({ id: Type.String() }), Type.Null()])) }), Type.Null()]),
  ),
  responsible_person_ids: Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()])),
  manufacturer_ids: Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()])),
  audit: Type.Optional(
    Type.Object({ status: Type.String(), pre_approved_reasons: Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()])) }),
  ),
  audit_failed_reasons: Type.Optional(
    Type.Array(
      Type.Object({
        position: Type.Optional(Type.String()),
        reasons: Type.Optional(Type.Array(Type.String())),
        suggestions: Type.Optional(Type.Array(Type.String())),
      }),
    ),
  ),
});
export type TikTokProduct = Static<typeof Product>;

export const SearchPage = Type.Object({
  products: Type.Array(Type.Object({ id: Type.String(), status: Type.String(), update_time: Type.Optional(Type.Integer()) })),
  next_page_token: Type.Optional(Type.String()),
});

export const ListingCheck = Type.Object({
  check_result: Type.String(),
  fail_reasons: Type.Optional(
    Type.Array(Type.Object({ code: Type.Optional(Type.Union([Type.String(), Type.Number()])), message: Type.String() })),
  ),
  diagnoses: Type.Optional(
    Type.Array(
      Type.Object({
        field: Type.Optional(Type.String()),
        diagnosis_results: Type.Optional(
          Type.Array(Type.Object({ code: Type.Optional(Type.String()), how_to_solve: Type.Optional(Type.String()) })),
        ),
      }),
    ),
  ),
});

/** A batch call's per-item failures (listings.md §2.7: `code: 0` with `data.errors`). */
export const BatchAnswer = Type.Object({
  errors: Type.Optional(
    Type.Array(
      Type.Object({
        code: Type.Number(),
        message: Type.String(),
        detail: Type.Optional(Type.Object({ product_id: Type.Optional(Type.String()) })),
      }),
    ),
  ),
});

/** The failure a batch answered for one product, or null when it took it. */
export function batchFailure(answer: Static<typeof BatchAnswer>, productId: string) {
  return answer.errors?.find((error) => error.detail?.product_id === productId) ?? null;
}

/** TikTok's statuses in Storelink's words (listings.md §2.2); DELETED reads as no product. */
const STATUS: Record<string, ListingStatus> = {
  DRAFT: 'inactive',
  PENDING: 'in_review',
  FAILED: 'rejected',
  ACTIVATE: 'active',
  SELLER_DEACTIVATED: 'inactive',
  PLATFORM_DEACTIVATED: 'inactive',
  FREEZE: 'inactive',
};

/** The audit's reasons as issues on the field TikTok names, with its suggestions after its reasons. */
function auditIssues(product: TikTokProduct): ListingIssue[] {
  return (product.audit_failed_reasons ?? []).map((reason) => {
    const text = [...(reason.reasons ?? []), ...(reason.suggestions ?? [])].join(' ');
    return platformIssue('audit_failed', text || 'TikTok Shop did not pass the product in its review.', reason.position ?? null);
  });
}

/**
 * What each of TikTok's `pre_approved_reasons` asks of the seller (listings.md §2.2, [T6]: the product "has passed the
 * audit but is not yet listed due to pending prerequisites"; it stays `PENDING`, "unavailable to buyers until the seller
 * has acquired the necessary permission(s) through the Qualification Center").
 */
const PRE_APPROVED: Record<string, string> = {
  KYC_PENDING:
    "TikTok Shop passed the product in its review but holds it back from sale until the shop's identity verification (KYC) is complete: finish it in TikTok Shop Seller Center. The product then goes on sale with nothing more to send.",
  RESTRICTED_CATEGORY_PENDING:
    "TikTok Shop passed the product in its review but holds it back from sale: its category is open by invitation and the shop has no permission for it yet. Apply for it in Seller Center's Qualification Center; the product then goes on sale with nothing more to send.",
};

/** A pre-approved product's reasons as issues the seller reads (a reason TikTok adds later is named as it is). */
function preApprovedIssues(product: TikTokProduct): ListingIssue[] {
  const reasons = product.audit?.pre_approved_reasons?.length ? product.audit.pre_approved_reasons : ['PRE_APPROVED'];
  return reasons.map((reason) =>
    platformIssue(
      reason,
      PRE_APPROVED[reason] ??
        `TikTok Shop passed the product in its review but holds it back from sale until the shop meets a prerequisite (${reason}): see TikTok Shop Seller Center.`,
      null,
      'warning',
    ),
  );
}

/**
 * A product in Storelink's words. A live product whose edit failed review stays live on its earlier version (listings.md
 * §2.2): it reads `active` with the audit's reasons as issues, so both are shown.
 */
export function platformListing(product: TikTokProduct): PlatformListing {
  const issues = product.status === 'FAILED' || product.audit?.status === 'FAILED' ? auditIssues(product) : [];
  // Passed, and not for sale until the shop meets a prerequisite: still in review for Storelink, the reason in words.
  if (product.audit?.status === 'PRE_APPROVED' && product.status !== 'ACTIVATE') issues.push(...preApprovedIssues(product));
  if (product.status === 'ACTIVATE' && product.audit?.status === 'AUDITING')
    issues.push(
      platformIssue('under_review', 'TikTok Shop is reviewing the last edit; the live version stays live meanwhile.', null, 'warning'),
    );
  if (product.status === 'PLATFORM_DEACTIVATED' || product.status === 'FREEZE')
    issues.push(
      platformIssue(
        product.status.toLowerCase(),
        product.status === 'FREEZE'
          ? 'TikTok Shop froze the product for a policy violation; appeal in Seller Center.'
          : 'TikTok Shop deactivated the product; edit it to send it back to review.',
        null,
      ),
    );
  return { status: STATUS[product.status] ?? 'inactive', platformStatus: product.status, externalUrl: null, issues };
}
