/**
 * Products as TikTok Shop answers them: Get Product (listings.md §2.7, [T6]), a Search Products entry, and the
 * sandbox's inspection of a shop (DESIGN §10 "Sandbox"). Times are Unix seconds on the API, ISO on the inspection.
 */
import { categoryChain, certificationsOf } from './categories.js';
import type { ProductStatus, ProductVersion, StoredProduct } from './product-store.js';

const seconds = (ms: number) => Math.floor(ms / 1000);
const certificationName = (version: ProductVersion, id: string) =>
  certificationsOf(version.category_id).find((each) => each.id === id)?.name ?? '';

/** Get Product; `underReview` shows the version under audit instead of the live one (`return_under_review_version`). */
export function presentProduct(product: StoredProduct, underReview: boolean) {
  const version: ProductVersion = underReview && product.review ? product.review.version : product.version;
  return {
    id: product.id,
    status: product.status,
    title: version.title,
    description: version.description,
    category_chains: categoryChain(version.category_id),
    brand: version.brand_id ? { id: version.brand_id } : null,
    main_images: version.main_images.map(({ uri, url, width, height }) => ({ uri, urls: [url], width, height })),
    skus: version.skus.map((sku) => ({
      id: sku.id,
      seller_sku: sku.seller_sku,
      external_sku_id: sku.external_sku_id,
      price: { tax_exclusive_price: sku.price.amount, sale_price: sku.price.amount, currency: sku.price.currency },
      inventory: sku.inventory,
      sales_attributes: sku.sales_attributes,
    })),
    package_weight: version.package_weight,
    package_dimensions: version.package_dimensions,
    product_attributes: version.product_attributes,
    external_product_id: version.external_product_id,
    certifications: version.certifications.map(({ id, images, files }) => ({ id, title: certificationName(version, id), images, files })),
    ...(version.size_chart ? { size_chart: version.size_chart } : {}),
    manufacturer_ids: version.manufacturer_ids,
    responsible_person_ids: version.responsible_person_ids,
    audit: { status: product.audit, pre_approved_reasons: product.preApprovedReasons },
    audit_failed_reasons: product.auditFailedReasons,
    is_not_for_sale: false,
    create_time: seconds(product.createTime),
    update_time: seconds(product.updateTime),
  };
}

/** One entry of Search Products: the summary TikTok lists, not the whole product. */
export function presentSummary(product: StoredProduct) {
  return {
    id: product.id,
    title: product.version.title,
    status: product.status,
    audit: { status: product.audit, pre_approved_reasons: product.preApprovedReasons },
    sales_regions: [],
    skus: product.version.skus.map((sku) => ({
      id: sku.id,
      seller_sku: sku.seller_sku,
      price: { tax_exclusive_price: sku.price.amount, sale_price: sku.price.amount, currency: sku.price.currency },
      inventory: sku.inventory,
    })),
    create_time: seconds(product.createTime),
    update_time: seconds(product.updateTime),
  };
}

/** Storelink's plain word for each TikTok status, for the inspection's `state`. */
const STATES: Record<ProductStatus, string> = {
  DRAFT: 'draft',
  PENDING: 'in_review',
  FAILED: 'rejected',
  ACTIVATE: 'active',
  SELLER_DEACTIVATED: 'inactive',
  PLATFORM_DEACTIVATED: 'inactive',
  FREEZE: 'inactive',
  DELETED: 'deleted',
};

/** What the inspection adds of a product's size chart template, EU entities and certifications, where it has them. */
function complianceInspected(version: ProductVersion) {
  const template = version.size_chart?.template?.id;
  return {
    ...(template ? { size_chart_template_id: template } : {}),
    ...(version.responsible_person_ids.length > 0 ? { responsible_person_ids: version.responsible_person_ids } : {}),
    ...(version.manufacturer_ids.length > 0 ? { manufacturer_ids: version.manufacturer_ids } : {}),
    ...(version.certifications.length > 0 ? { certifications: version.certifications } : {}),
  };
}

/**
 * A product as the inspection shows it: DESIGN §10's shape, TikTok's status, the audit's reasons, its size chart
 * template, responsible persons, manufacturers and certifications where it has them, its creation and last change.
 */
export function presentInspected(product: StoredProduct) {
  return {
    id: product.id,
    title: product.version.title,
    state: STATES[product.status],
    status: product.status,
    skus: product.version.skus.map((sku) => ({
      sku: sku.seller_sku,
      price: sku.price.amount,
      quantity: sku.inventory.reduce((sum, entry) => sum + entry.quantity, 0),
      // A SKU kept in several warehouses shows its stock in each.
      ...(sku.inventory.length > 1 ? { inventory: sku.inventory } : {}),
    })),
    // A product that passed its audit but waits for the shop's prerequisite says so (its audit and why).
    ...(product.audit === 'PRE_APPROVED' ? { audit: product.audit, pre_approved_reasons: product.preApprovedReasons } : {}),
    audit_failed_reasons: product.auditFailedReasons,
    ...complianceInspected(product.version),
    created_at: new Date(product.createTime).toISOString(),
    updated_at: new Date(product.updateTime).toISOString(),
  };
}
