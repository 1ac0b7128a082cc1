/**
 * The sandbox's own routes around the Amazon listings, at `/sandbox/amazon-seller` without auth (sandbox only): the
 * inspection of what an account holds (DESIGN §10), the seller's own edits in Seller Central, the usage plans'
 * multiplier, and the images the sandbox hosts for listings made outside Storelink and for its catalogue.
 */
import type { FastifyInstance } from 'fastify';
import { accountOf } from '../buyer.js';
import type { SandboxContext } from '../context.js';
import { sandboxSellerId } from '../lwa/simulator.js';
import { presentInspected } from './listings-present.js';
import { amazonLimits, setAmazonSellerRateLimit, USAGE_PLANS } from './listings-rate-limits.js';
import { type Attributes, type ListingsStore, quantityOf, type StoredListing } from './listings-store.js';
import { FBA_CHANNELS } from './product-type-schemas.js';
import { marketplaceOf } from './product-types.js';

/** A 16x16 PNG of four blue and orange squares: every image the sandbox hosts. */
const PLACEHOLDER_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAIUlEQVR42mP4v98dK5KP348VMYxqoIkGXBK4DBrVQBMNALxyoRB9qZcRAAAAAElFTkSuQmCC',
  'base64',
);

export function registerSandboxRoutes(app: FastifyInstance, context: SandboxContext, store: ListingsStore) {
  // `GET /sandbox/amazon-seller/accounts/{account}/listings`: one entry per SKU and marketplace, oldest first.
  app.get('/accounts/:account/listings', async (request, reply) => {
    const account = accountOf(reply, (request.params as { account: string }).account);
    if (account === null) return reply;
    return store.ofAccount(account).map((listing) => presentInspected(store, listing));
  });

  app.patch('/accounts/:account/listings/:sku', async (request, reply) => {
    const params = request.params as { account: string; sku: string };
    const account = accountOf(reply, params.account);
    if (account === null) return reply;
    const body = (request.body ?? {}) as {
      marketplace_id?: unknown;
      title?: unknown;
      price?: unknown;
      quantity?: unknown;
      handling_time?: unknown;
      fulfillment_channel?: unknown;
    };
    const found = store
      .ofAccount(account)
      .filter(
        (listing) => listing.sku === params.sku && (body.marketplace_id === undefined || listing.marketplaceId === body.marketplace_id),
      );
    if (found.length === 0) return reply.code(404).send({ error: 'No such listing in this account' });
    if (found.length > 1) return reply.code(400).send({ error: 'The SKU is listed in several marketplaces: name one with marketplace_id' });
    if (body.title !== undefined && (typeof body.title !== 'string' || body.title.trim() === ''))
      return reply.code(400).send({ error: 'title must be text' });
    if (
      body.price !== undefined &&
      !(typeof body.price === 'string' && /^[0-9]{1,7}(\.[0-9]{1,2})?$/.test(body.price) && Number(body.price) > 0)
    )
      return reply.code(400).send({ error: 'price must be decimal text, as "12.50"' });
    if (body.quantity !== undefined && !(Number.isInteger(body.quantity) && (body.quantity as number) >= 0))
      return reply.code(400).send({ error: 'quantity must be a whole number of 0 or more' });
    if (
      body.handling_time !== undefined &&
      !(Number.isInteger(body.handling_time) && (body.handling_time as number) >= 0 && (body.handling_time as number) <= 30)
    )
      return reply.code(400).send({ error: 'handling_time must be a whole number of days from 0 to 30' });
    if (body.fulfillment_channel !== undefined && !['DEFAULT', ...FBA_CHANNELS].includes(body.fulfillment_channel as string))
      return reply.code(400).send({ error: `fulfillment_channel must be one of DEFAULT, ${FBA_CHANNELS.join(', ')}` });
    const listing = found[0]!;
    const edited = store.accept({ ...listing, attributes: editedAttributes(listing, body as SellerEdit) }, { settled: true });
    return presentInspected(store, edited);
  });

  app.get('/limits', async () => ({ multiplier: amazonLimits(context).multiplier, plans: USAGE_PLANS }));
  app.post('/limits', async (request, reply) => {
    const multiplier = (request.body ?? {}) as { multiplier?: unknown; account?: unknown };
    const value = Number(multiplier.multiplier);
    if (typeof multiplier.multiplier !== 'number' || !(value > 0) || value > 1e9)
      return reply.code(400).send({ error: "multiplier must be a number above 0 (1 is Amazon's default usage plans)" });
    // With `account`, that sandbox seller's plans alone: Amazon may rate one selling partner otherwise than the default.
    if (multiplier.account !== undefined && !(Number.isInteger(multiplier.account) && (multiplier.account as number) > 0))
      return reply.code(400).send({ error: 'account must be a sandbox account number (a whole number above 0)' });
    setAmazonSellerRateLimit(context, value, multiplier.account === undefined ? undefined : sandboxSellerId(multiplier.account as number));
    return reply.code(204).send();
  });

  // The pictures of listings made outside Storelink and of the sandbox catalogue; every one is the same small image.
  app.get('/images/:file', async (request, reply) => {
    if (!/^[a-z0-9-]{1,80}\.(jpg|png)$/.test((request.params as { file: string }).file)) return reply.code(404).send();
    return reply.header('cache-control', 'public, max-age=86400').type('image/png').send(PLACEHOLDER_PNG);
  });
}

type SellerEdit = { title?: string; price?: string; quantity?: number; handling_time?: number; fulfillment_channel?: string };

/**
 * The seller's edit in Seller Central, outside Storelink: the item name, the price of the offer to all buyers, the
 * quantity the seller fulfils and its handling time (`lead_time_to_ship_max_days`, days before it ships). It takes
 * effect at once (no processing time).
 */
function editedAttributes(listing: StoredListing, edit: SellerEdit): Attributes {
  const attributes = structuredClone(listing.attributes);
  const values = (name: string) => (Array.isArray(attributes[name]) ? (attributes[name] as Record<string, unknown>[]) : []);
  if (edit.title !== undefined) {
    const names = values('item_name');
    attributes.item_name =
      names.length > 0
        ? names.map((each, i) => (i === 0 ? { ...each, value: edit.title } : each))
        : [{ value: edit.title, marketplace_id: listing.marketplaceId }];
  }
  if (edit.price !== undefined) {
    const offers = values('purchasable_offer');
    const index = Math.max(
      0,
      offers.findIndex((each) => (each.audience ?? 'ALL') === 'ALL'),
    );
    const currency = marketplaceOf(listing.marketplaceId)?.currency;
    const offer = offers[index] ?? { marketplace_id: listing.marketplaceId, currency, audience: 'ALL' };
    offers[index] = { ...offer, our_price: [{ schedule: [{ value_with_tax: Number(edit.price) }] }] };
    attributes.purchasable_offer = offers;
  }
  if (edit.fulfillment_channel !== undefined && edit.fulfillment_channel !== 'DEFAULT') {
    // Sent to FBA: Amazon's channel alone, its count the quantity given (else the stock the seller had).
    const quantity = edit.quantity ?? quantityOf(listing);
    attributes.fulfillment_availability = [{ fulfillment_channel_code: edit.fulfillment_channel, quantity }];
  } else if (edit.quantity !== undefined || edit.handling_time !== undefined || edit.fulfillment_channel === 'DEFAULT') {
    // Back to the seller's own channel from FBA: Amazon's entry goes.
    const entries =
      edit.fulfillment_channel === 'DEFAULT'
        ? []
        : values('fulfillment_availability').filter((each) => each.fulfillment_channel_code !== 'DEFAULT');
    const current = values('fulfillment_availability').find((each) => each.fulfillment_channel_code === 'DEFAULT');
    attributes.fulfillment_availability = [
      ...entries,
      {
        quantity: 0,
        ...current,
        fulfillment_channel_code: 'DEFAULT',
        ...(edit.quantity === undefined ? {} : { quantity: edit.quantity }),
        ...(edit.handling_time === undefined ? {} : { lead_time_to_ship_max_days: edit.handling_time }),
      },
    ];
  }
  return attributes;
}
