/**
 * What a publish form reads of TikTok Shop (listings.md §2.3): the shop's sales warehouses as its settings' choices,
 * the category tree, a category's attributes, the brands a listing may name in it, and what its rules ask the seller
 * to choose (category-rules.ts).
 */
import type { Category, CategoryAttribute } from '../../domain/index.js';
import { readCache } from '../../lib/read-cache.js';
import { ListingRefused } from '../contracts/errors.js';
import type { ListingsAdapter, ListingsCall } from '../contracts/listings.js';
import type { CategoryRules } from './category-rules.js';
import { BRAND_ATTRIBUTE } from './listing-requests.js';
import {
  Attributes,
  Brands,
  Categories,
  categoryAttributesOf,
  reader,
  type TikTokAttribute,
  type TikTokCategory,
  Warehouses,
} from './listing-responses.js';
import { type OpenApi, PRODUCT_API, type TikTokListingsDeps } from './open-api.js';

/**
 * TikTok asks that categories be read in real time rather than cached (listings.md §2.3); an hour keeps a seller's
 * browsing of the tree from costing a call a click while a change of TikTok's still arrives the same day.
 */
const CATEGORIES_TTL_MS = 3600_000;
const SEARCH_RESULTS_MAX = 50;

/** The category with its path of names from the tree's root. */
function categoryOf(nodes: readonly TikTokCategory[], node: TikTokCategory): Category {
  const path: string[] = [];
  for (let at: TikTokCategory | undefined = node; at; at = nodes.find((each) => each.id === at!.parent_id)) path.unshift(at.local_name);
  return { id: node.id, name: node.local_name, path, leaf: node.is_leaf };
}

/** The reads of one adapter a publish form makes, with their caches. */
export function createCategories({ send }: OpenApi, rules: CategoryRules, deps: Pick<TikTokListingsDeps, 'clock'>) {
  // The tree is the app's (one key); attributes are per category; a brand's authorization is the shop's own.
  const tree = readCache<TikTokCategory[]>(deps.clock, CATEGORIES_TTL_MS);
  const attributeCache = readCache<TikTokAttribute[] | null>(deps.clock, CATEGORIES_TTL_MS);
  const brandCache = readCache<{ value: string; label: string }[]>(deps.clock, CATEGORIES_TTL_MS);

  async function categoryTree(call: ListingsCall): Promise<TikTokCategory[]> {
    return tree.get('tree', async () => (await send(call, 'GET', `${PRODUCT_API}/categories`, reader(Categories))).categories);
  }

  /** The category's attributes as TikTok answers them; null for a category it does not know or that is not a leaf. */
  async function rawAttributes(call: ListingsCall, categoryId: string): Promise<TikTokAttribute[] | null> {
    if (!/^[0-9]{1,20}$/.test(categoryId)) return null;
    return attributeCache.get(categoryId, async () => {
      try {
        return (await send(call, 'GET', `${PRODUCT_API}/categories/${categoryId}/attributes`, reader(Attributes))).attributes;
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
      const query = { category_id: categoryId, page_size: '100' };
      const { brands } = await send(call, 'GET', `${PRODUCT_API}/brands`, reader(Brands), { query });
      return brands
        .filter((b) => (b.brand_status ?? 'AVAILABLE') === 'AVAILABLE' && (b.authorized_status === 'AUTHORIZED' || !b.is_t1_brand))
        .map((b) => ({ value: b.id, label: b.name }));
    });
  }

  const formReads = {
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
  } satisfies Pick<ListingsAdapter, 'listingOptions' | 'categories' | 'category' | 'categoryAttributes'>;

  return { rawAttributes, ...formReads };
}

export type TikTokCategories = ReturnType<typeof createCategories>;
