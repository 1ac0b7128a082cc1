/**
 * Everything the Etsy simulator serves for listing products (DESIGN §10 "Sandbox"): the seller taxonomy, the shop's
 * prerequisites, listings with their images and inventory, and the sandbox's own inspection of what a shop holds.
 */
import type { FastifyInstance } from 'fastify';
import type { SandboxContext } from '../context.js';
import { shopIdOf } from './api-access.js';
import { createEtsyGuard } from './guard.js';
import { registerImages } from './images.js';
import { createListingStore, enabledOfferings, type ListingStore } from './listing-store.js';
import { registerListings } from './listings.js';
import { registerProperties } from './properties.js';
import { registerShopSetup } from './shop-setup.js';
import { type StockChoice, stockShop } from './stock.js';
import { propertiesOf, TAXONOMY, taxonomyNode } from './taxonomy.js';

/** Registers the listing API; answers how to stock an account's shop with listings made outside Storelink (stock.ts). */
export function registerEtsyListingApi(app: FastifyInstance, context: SandboxContext) {
  const guard = createEtsyGuard(context);
  const store = createListingStore();
  const now = () => context.clock.now().getTime();

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

  registerShopSetup(app, guard);
  registerListings(app, guard, store, now);
  registerImages(app, guard, store, now);
  registerProperties(app, guard, store, now);
  registerInspection(app, store);
  return { stock: (account: number, choice: StockChoice) => stockShop(store, account, choice, now()) };
}

/**
 * `GET /sandbox/etsy/accounts/{account}/listings`: what the simulated shop holds, without auth (sandbox only), as
 * DESIGN §10 asks (`id, title, state, skus`), plus the image count, the properties, the publishes and fees counted per
 * listing, and when the listing last changed.
 * Prices are decimal text, as Storelink's API writes them; the SKUs are those of enabled offerings.
 */
function registerInspection(app: FastifyInstance, store: ListingStore) {
  app.get('/accounts/:account/listings', async (request, reply) => {
    const { account } = request.params as { account: string };
    if (!/^[0-9]{1,6}$/.test(account) || Number(account) === 0)
      return reply.code(400).send({ error: 'account must be a sandbox account number' });
    return store.ofShop(shopIdOf(Number(account))).map((listing) => ({
      id: listing.listing_id,
      title: listing.fields.title,
      state: listing.state,
      skus: listing.inventory.products
        .filter((product) => enabledOfferings(listing).includes(product.offering))
        .map((product) => ({ sku: product.sku, price: (product.offering.price / 100).toFixed(2), quantity: product.offering.quantity })),
      images: listing.images.length,
      properties: [...listing.properties.values()].map(({ property_id, value_ids, values }) => ({ property_id, value_ids, values })),
      publishes: listing.publishes,
      fees: listing.fees,
      // When the shop last took a change of the listing (to the millisecond), so a client can time a change's arrival.
      updated_at: new Date(listing.updated).toISOString(),
    }));
  });
}
