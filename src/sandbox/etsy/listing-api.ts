/**
 * Everything the Etsy simulator serves for listing products (DESIGN §10 "Sandbox"): the seller taxonomy, the shop's
 * prerequisites, listings with their images and inventory, and the sandbox's own inspection of what a shop holds.
 */
import type { FastifyInstance } from 'fastify';
import { accountOf } from '../buyer.js';
import type { SandboxContext } from '../context.js';
import { shopIdOf } from './api-access.js';
import { createEtsyGuard } from './guard.js';
import { registerImages } from './images.js';
import {
  activate,
  createListingStore,
  deactivate,
  enabledOfferings,
  type ListingStore,
  type StoredListing,
  settleStock,
} from './listing-store.js';
import { registerListings } from './listings.js';
import { registerOrders } from './orders.js';
import { registerProperties } from './properties.js';
import { registerShopSetup, type ShopSetups, shopSetups } from './shop-setup.js';
import { type StockChoice, stockShop } from './stock.js';
import { propertiesOf, TAXONOMY, taxonomyNode } from './taxonomy.js';

/** A 16x16 PNG of four blue and orange squares: every image the sandbox hosts. */
const PLACEHOLDER_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAIUlEQVR42mP4v98dK5KP348VMYxqoIkGXBK4DBrVQBMNALxyoRB9qZcRAAAAAElFTkSuQmCC',
  'base64',
);

/** Registers the listing API; answers how to stock an account's shop with listings made outside Storelink (stock.ts). */
export function registerEtsyListingApi(app: FastifyInstance, context: SandboxContext) {
  const guard = createEtsyGuard(context);
  const store = createListingStore(`${context.sandboxUrl}/etsy/images`, context.stateParts);
  const now = () => context.clock.nowMs();

  // The seller taxonomy is public: Etsy's OAS gives both routes the api_key security only, no OAuth scope.
  app.get('/v3/application/seller-taxonomy/nodes', async (request, reply) => {
    if (!(await guard.admitKey(request, reply, { operation: 'getSellerTaxonomyNodes' }))) return reply;
    return reply.send({ count: TAXONOMY.length, results: TAXONOMY });
  });
  app.get('/v3/application/seller-taxonomy/nodes/:taxonomyId/properties', async (request, reply) => {
    if (!(await guard.admitKey(request, reply, { operation: 'getPropertiesByTaxonomyId' }))) return reply;
    const id = Number((request.params as { taxonomyId: string }).taxonomyId);
    if (!taxonomyNode(id)) return reply.code(404).send({ error: `Could not find a taxonomy node with taxonomy_id = ${id}` });
    const results = propertiesOf(id);
    return reply.send({ count: results.length, results });
  });

  // Etsy's CDN, as the sandbox hosts it: every image's every size is one small picture (the bytes are not kept).
  app.get('/images/:file', async (request, reply) => {
    if (!/^il_[0-9a-zA-Z]+\.[0-9]{1,15}\.jpg$/.test((request.params as { file: string }).file)) return reply.code(404).send();
    return reply.header('cache-control', 'public, max-age=86400').type('image/png').send(PLACEHOLDER_PNG);
  });

  const shops = shopSetups(context);
  registerShopSetup(app, guard, shops);
  registerListings(app, guard, store, shops, now);
  registerImages(app, guard, store, now);
  registerProperties(app, guard, store, now);
  registerOrders(app, guard, store, context);
  registerInspection(app, store);
  registerSellerEdits(app, store, shops, now);
  return { stock: (account: number, choice: StockChoice) => stockShop(store, account, choice, now()) };
}

/**
 * `PATCH /sandbox/etsy/accounts/{account}/listings/{listing_id}`: the seller editing the listing on etsy.com, outside
 * Storelink (sandbox only, no auth), so a change made on the platform can be tried: `{title?, description?, state?:
 * "active"|"inactive", skus?: [{sku, price?, quantity?}]}`. Etsy's own rules apply (activating needs an image and
 * stock, and is a publish); the answer is the listing as the inspection shows it.
 */
function registerSellerEdits(app: FastifyInstance, store: ListingStore, shops: ShopSetups, now: () => number) {
  app.patch('/accounts/:account/listings/:listingId', async (request, reply) => {
    const params = request.params as { account: string; listingId: string };
    const account = accountOf(reply, params.account);
    if (account === null) return reply;
    const listing = store.get(Number(params.listingId));
    if (!listing || listing.shop_id !== shopIdOf(account)) return reply.code(404).send({ error: 'No such listing in this shop' });
    const body = (request.body ?? {}) as { title?: unknown; description?: unknown; state?: unknown; skus?: unknown };
    const skus = Array.isArray(body.skus) ? (body.skus as { sku?: unknown; price?: unknown; quantity?: unknown }[]) : [];
    for (const edit of skus) {
      const product = listing.inventory.products.find((p) => p.sku === edit.sku);
      if (!product) return reply.code(400).send({ error: `No offering with the sku ${String(edit.sku)}` });
      if (edit.price !== undefined && !(typeof edit.price === 'string' && /^[0-9]{1,6}(\.[0-9]{1,2})?$/.test(edit.price)))
        return reply.code(400).send({ error: 'price must be decimal text, as "12.50"' });
      if (edit.quantity !== undefined && !(Number.isInteger(edit.quantity) && (edit.quantity as number) >= 0))
        return reply.code(400).send({ error: 'quantity must be a whole number of 0 or more' });
    }
    if (body.state !== undefined && body.state !== 'active' && body.state !== 'inactive')
      return reply.code(400).send({ error: 'state must be active or inactive' });
    if (typeof body.title === 'string') listing.fields.title = body.title;
    if (typeof body.description === 'string') listing.fields.description = body.description;
    for (const edit of skus) {
      const { offering } = listing.inventory.products.find((p) => p.sku === edit.sku)!;
      if (typeof edit.price === 'string') offering.price = Math.round(Number(edit.price) * 100);
      if (typeof edit.quantity === 'number') offering.quantity = edit.quantity;
    }
    const needsReturnPolicy = shops.needsReturnPolicy(listing.shop_id);
    const refusal = body.state === 'active' ? activate(listing, needsReturnPolicy) : body.state === 'inactive' ? deactivate(listing) : null;
    if (refusal) return reply.code(409).send({ error: refusal });
    settleStock(listing);
    listing.updated = now();
    return inspected(listing);
  });
}

/**
 * `GET /sandbox/etsy/accounts/{account}/listings`: what the simulated shop holds, without auth (sandbox only), as
 * DESIGN §10 asks (`id, title, state, skus`), plus the shop profiles it names, the image count, the properties, the publishes and fees counted per
 * listing, and when the listing last changed.
 * Prices are decimal text, as Storelink's API writes them; the SKUs are those of enabled offerings.
 */
function registerInspection(app: FastifyInstance, store: ListingStore) {
  app.get('/accounts/:account/listings', async (request, reply) => {
    const account = accountOf(reply, (request.params as { account: string }).account);
    if (account === null) return reply;
    return store.ofShop(shopIdOf(account)).map(inspected);
  });
}

/** A listing as the inspection shows it. */
function inspected(listing: StoredListing) {
  return {
    id: listing.listing_id,
    title: listing.fields.title,
    state: listing.state,
    skus: listing.inventory.products
      .filter((product) => enabledOfferings(listing).includes(product.offering))
      .map((product) => ({
        sku: product.sku,
        price: (product.offering.price / 100).toFixed(2),
        quantity: product.offering.quantity,
        // Which variation property each option is on (the taxonomy's, by value_ids, or a custom 513/514, by text).
        variation: product.property_values.map(({ property_id, value_ids, values }) => ({ property_id, value_ids, values })),
      })),
    // The shop's prerequisites the listing names (a shop in the EU may name no return policy).
    shipping_profile_id: listing.fields.shipping_profile_id,
    return_policy_id: listing.fields.return_policy_id,
    readiness_state_id: listing.fields.readiness_state_id,
    images: listing.images.length,
    // The images' ids in their order on the listing (rank), so a client can see a reorder arrive.
    image_ids: [...listing.images].sort((a, b) => a.rank - b.rank).map((image) => image.listing_image_id),
    properties: [...listing.properties.values()].map(({ property_id, value_ids, values }) => ({ property_id, value_ids, values })),
    publishes: listing.publishes,
    fees: listing.fees,
    // When the shop last took a change of the listing (to the millisecond), so a client can time a change's arrival.
    updated_at: new Date(listing.updated).toISOString(),
  };
}
