/**
 * Etsy's listing endpoints (listings.md §1.4–1.9): createDraftListing, getListing, getListingsByShop, updateListing,
 * deleteListing, and the listing's inventory. Errors are Etsy's `{error}` except createDraftListing's validation
 * problems, answered as the `[{path, type, message}]` array Etsy's validator was seen to send on that route (§1.11).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { userIdOf } from './api-access.js';
import type { EtsyGuard } from './guard.js';
import { readInventory } from './inventory.js';
import { errorText, type Problem, priceProblem, QUANTITY_MAX, readFields, readParameters } from './listing-fields.js';
import {
  activate,
  deactivate,
  type Inventory,
  LISTING_STATES,
  type ListingFields,
  type ListingImage,
  type ListingStore,
  ownListingOf,
  type StoredListing,
  settleStock,
} from './listing-store.js';
import { presentInventory, presentListing } from './present.js';
import { dropForeignProperties } from './properties.js';
import type { ShopSetups } from './shop-setup.js';

const REQUIRED: readonly (keyof ListingFields | 'quantity' | 'price')[] = [
  'quantity',
  'title',
  'description',
  'price',
  'who_made',
  'when_made',
  'taxonomy_id',
  'shipping_profile_id',
  'readiness_state_id',
];
/** getListing's `includes` values; the sandbox serves Images and Inventory and refuses the rest of Etsy's list loudly. */
const SERVED_INCLUDES = ['Images', 'Inventory'];
/**
 * getListingsByShop's `sort_on` values (Etsy's OAS: created, price, updated, title); a listing's price is its lowest
 * offering's, as present.ts shows it. `updated` is what a reader of recent changes sorts on (listing-api.ts bumps it).
 */
const LISTING_SORTS = {
  created: (listing: StoredListing): number | string => listing.created,
  price: (listing: StoredListing): number | string => Math.min(...listing.inventory.products.map((product) => product.offering.price)),
  updated: (listing: StoredListing): number | string => listing.updated,
  title: (listing: StoredListing): number | string => listing.fields.title.toLowerCase(),
};
const LIMIT_MAX = 100;

type Params = { shopId?: string; listingId?: string };
const paramsOf = (request: FastifyRequest) => request.params as Params;
const queryOf = (request: FastifyRequest) => (request.query ?? {}) as Record<string, string | undefined>;

/** The `includes` of a query, or null when it names something not served. */
function includesOf(text: string | undefined): Set<string> | null {
  const names = (text ?? '').split(',').filter(Boolean);
  return names.every((name) => SERVED_INCLUDES.includes(name)) ? new Set(names) : null;
}

/** createDraftListing's own parameters, besides the listing fields: quantity and price become the first offering. */
function readCreate(parameters: Record<string, string>, shopId: number, shops: ShopSetups) {
  const { fields, problems } = readFields(parameters, shopId, ['quantity', 'price', 'type', 'image_ids'], shops);
  for (const name of REQUIRED)
    if (parameters[name] === undefined) problems.push({ path: `/${name}`, type: 'required', message: 'is required' });
  const quantity = Number(parameters.quantity);
  if (parameters.quantity !== undefined && !(/^[0-9]+$/.test(parameters.quantity) && quantity >= 1 && quantity <= QUANTITY_MAX))
    problems.push({ path: '/quantity', type: 'minimum', message: `must be an integer from 1 to ${QUANTITY_MAX}` });
  const price = Number(parameters.price);
  const badPrice = parameters.price === undefined ? null : priceProblem('price', /^[0-9.]+$/.test(parameters.price) ? price : Number.NaN);
  if (badPrice) problems.push(badPrice);
  // The sandbox's shops sell physical items only (DESIGN §10's sandbox needs no digital files).
  if (parameters.type !== undefined && parameters.type !== 'physical')
    problems.push({ path: '/type', type: 'enum', message: 'the sandbox serves physical listings only' });
  // The observed answer to an empty image_ids (listings.md §1.7, E11c). A new draft has no images of its own yet, and
  // the sandbox keeps images per listing, so any id is unknown: images come after the draft, by upload.
  if (parameters.image_ids === '') problems.push({ path: '/images', type: 'array_too_short', message: 'cannot be less than 1 items' });
  else if (parameters.image_ids !== undefined)
    problems.push({ path: '/image_ids', type: 'not_found', message: 'are not images of this shop' });
  return { fields, problems, quantity, price };
}

export function registerListings(app: FastifyInstance, guard: EtsyGuard, store: ListingStore, shops: ShopSetups, now: () => number) {
  /** The listing of the path when it belongs to the token's shop; null once a 404 or 403 was answered. */
  const ownListing = (reply: FastifyReply, listingId: string | undefined, account: number): StoredListing | null =>
    ownListingOf(store, reply, listingId, account);

  app.post('/v3/application/shops/:shopId/listings', async (request, reply) => {
    const { shopId } = paramsOf(request);
    const grant = await guard.admitGrant(request, reply, {
      operation: 'createDraftListing',
      fault: 'listings',
      scope: 'listings_w',
      shopId,
    });
    if (!grant) return reply;
    const { fields, problems, quantity, price } = readCreate(readParameters(request.body), Number(shopId), shops);
    if (problems.length > 0) return reply.code(400).send(problems);
    const at = now();
    const listing = store.add({
      shop_id: Number(shopId),
      user_id: userIdOf(grant.account),
      state: 'draft',
      fields: { return_policy_id: null, tags: [], materials: [], is_supply: false, should_auto_renew: false, ...fields } as ListingFields,
      inventory: firstInventory(store, quantity, price, fields.readiness_state_id!),
      images: [],
      properties: new Map(),
      created: at,
      updated: at,
      publishes: 0,
      fees: 0,
    });
    return guard.answer(reply, 'listings', 201, presentListing(listing));
  });

  app.get('/v3/application/shops/:shopId/listings', async (request, reply) => {
    const { shopId } = paramsOf(request);
    if (!(await guard.admitGrant(request, reply, { operation: 'getListingsByShop', fault: 'listings', scope: 'listings_r', shopId })))
      return reply;
    const { state = 'active', limit = '25', offset = '0', includes, sort_on = 'created', sort_order = 'desc' } = queryOf(request);
    const included = includesOf(includes);
    if (!LISTING_STATES.includes(state as never))
      return reply.code(400).send({ error: `state must be one of ${LISTING_STATES.join(', ')}` });
    if (!/^[0-9]{1,3}$/.test(limit) || Number(limit) < 1 || Number(limit) > LIMIT_MAX)
      return reply.code(400).send({ error: `limit must be from 1 to ${LIMIT_MAX}` });
    if (!/^[0-9]{1,9}$/.test(offset)) return reply.code(400).send({ error: 'offset must be 0 or more' });
    if (!included) return reply.code(400).send({ error: `includes: the sandbox serves ${SERVED_INCLUDES.join(', ')}` });
    const sortKey = LISTING_SORTS[sort_on as keyof typeof LISTING_SORTS];
    if (!Object.hasOwn(LISTING_SORTS, sort_on) || !sortKey)
      return reply.code(400).send({ error: `sort_on must be one of ${Object.keys(LISTING_SORTS).join(', ')}` });
    if (sort_order !== 'asc' && sort_order !== 'desc') return reply.code(400).send({ error: 'sort_order must be asc or desc' });
    // Etsy's default order: newest first (sort_on=created, sort_order=desc); a tie keeps the newer listing first.
    const direction = sort_order === 'asc' ? 1 : -1;
    const matching = store
      .ofShop(Number(shopId))
      .filter((listing) => listing.state === state)
      .reverse()
      .sort((a, b) => {
        const [x, y] = [sortKey(a), sortKey(b)];
        return x < y ? -direction : x > y ? direction : 0;
      });
    const results = matching.slice(Number(offset), Number(offset) + Number(limit)).map((listing) => presentListing(listing, included));
    return guard.answer(reply, 'listings', 200, { count: matching.length, results });
  });

  app.get('/v3/application/listings/:listingId', async (request, reply) => {
    const grant = await guard.admitGrant(request, reply, { operation: 'getListing', fault: 'listing', scope: 'listings_r' });
    const listing = grant && ownListing(reply, paramsOf(request).listingId, grant.account);
    if (!listing) return reply;
    const included = includesOf(queryOf(request).includes);
    if (!included) return reply.code(400).send({ error: `includes: the sandbox serves ${SERVED_INCLUDES.join(', ')}` });
    return guard.answer(reply, 'listing', 200, presentListing(listing, included));
  });

  app.patch('/v3/application/shops/:shopId/listings/:listingId', async (request, reply) => {
    const { shopId, listingId } = paramsOf(request);
    const grant = await guard.admitGrant(request, reply, { operation: 'updateListing', fault: 'listing', scope: 'listings_w', shopId });
    const listing = grant && ownListing(reply, listingId, grant.account);
    if (!listing) return reply;
    const parameters = readParameters(request.body);
    const problem = updateListing(listing, parameters, shops);
    if (problem) return reply.code(400).send({ error: problem });
    listing.updated = now();
    return guard.answer(reply, 'listing', 200, presentListing(listing));
  });

  app.delete('/v3/application/listings/:listingId', async (request, reply) => {
    const grant = await guard.admitGrant(request, reply, { operation: 'deleteListing', fault: 'listing', scope: 'listings_d' });
    const listing = grant && ownListing(reply, paramsOf(request).listingId, grant.account);
    if (!listing) return reply;
    store.remove(listing.listing_id);
    return guard.answer(reply, 'listing', 204);
  });

  app.get('/v3/application/listings/:listingId/inventory', async (request, reply) => {
    const grant = await guard.admitGrant(request, reply, { operation: 'getListingInventory', fault: 'inventory', scope: 'listings_r' });
    const listing = grant && ownListing(reply, paramsOf(request).listingId, grant.account);
    if (!listing) return reply;
    return guard.answer(reply, 'inventory', 200, presentInventory(listing.inventory));
  });

  app.put('/v3/application/listings/:listingId/inventory', async (request, reply) => {
    const grant = await guard.admitGrant(request, reply, { operation: 'updateListingInventory', fault: 'inventory', scope: 'listings_w' });
    const listing = grant && ownListing(reply, paramsOf(request).listingId, grant.account);
    if (!listing) return reply;
    const input = readInventory(request.body, {
      taxonomyId: listing.fields.taxonomy_id,
      readinessIds: shops.readinessIds(listing.shop_id),
      readinessStateId: listing.fields.readiness_state_id,
    });
    if ('error' in input) return reply.code(400).send({ error: input.error });
    listing.inventory = {
      ...input,
      products: input.products.map((product) => ({
        ...product,
        product_id: store.nextId('product'),
        offering: { ...product.offering, price: Math.round(product.offering.price * 100), offering_id: store.nextId('offering') },
      })),
    };
    listing.updated = now();
    settleStock(listing);
    return guard.answer(reply, 'inventory', 200, presentInventory(listing.inventory));
  });
}

/** The inventory createDraftListing gives a listing: one product, no SKU, one offering of the quantity and price sent. */
function firstInventory(store: ListingStore, quantity: number, price: number, readinessStateId: number): Inventory {
  const offering = {
    offering_id: store.nextId('offering'),
    price: Math.round(price * 100),
    quantity,
    is_enabled: true,
    readiness_state_id: readinessStateId,
  };
  return {
    products: [{ product_id: store.nextId('product'), sku: '', property_values: [], offering }],
    price_on_property: [],
    quantity_on_property: [],
    sku_on_property: [],
    readiness_state_on_property: [],
  };
}

/**
 * updateListing: the fields sent, then the state. Price and quantity are not its parameters (listings.md §1.6), so
 * they are refused as unknown; `image_ids` orders the listing's own images.
 */
function updateListing(listing: StoredListing, parameters: Record<string, string>, shops: ShopSetups): string | null {
  const { fields, problems } = readFields(parameters, listing.shop_id, ['state', 'image_ids'], shops);
  const { state, image_ids: imageIds } = parameters;
  if (state !== undefined && state !== 'active' && state !== 'inactive')
    problems.push({ path: '/state', type: 'enum', message: 'must be one of active, inactive' });
  const order = imageIds === undefined ? null : imageIds.split(',').map(Number);
  if (order && (order.length === 0 || order.some((id) => !listing.images.some((image) => image.listing_image_id === id))))
    problems.push({ path: '/image_ids', type: 'not_found', message: "are not this listing's images" } satisfies Problem);
  if (problems.length > 0) return errorText(problems);
  const before = { ...listing.fields };
  Object.assign(listing.fields, fields);
  const needsReturnPolicy = shops.needsReturnPolicy(listing.shop_id);
  const refusal = state === 'active' ? activate(listing, needsReturnPolicy) : state === 'inactive' ? deactivate(listing) : null;
  // A refused state change changes nothing else either.
  if (refusal) {
    listing.fields = before;
    return refusal;
  }
  // ASSUMPTION: a listing moved to another category keeps only the properties the new one has.
  if (fields.taxonomy_id !== undefined && fields.taxonomy_id !== before.taxonomy_id) dropForeignProperties(listing);
  if (order) {
    // The images named come first, in their order; the others keep theirs after them.
    const rank = (image: ListingImage) =>
      order.includes(image.listing_image_id) ? order.indexOf(image.listing_image_id) : order.length + image.rank;
    listing.images.sort((a, b) => rank(a) - rank(b)).forEach((image, i) => void (image.rank = i + 1));
  }
  return null;
}
