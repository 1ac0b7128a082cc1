/**
 * A listing's properties, Etsy's "attributes" of a listing in its category (listings.md §1.3): getListingProperties,
 * updateListingProperty and deleteListingProperty. A property must be one of the listing's category that takes
 * attribute values (`supports_attributes`); chosen values are named by `value_ids` (Etsy fills in their `values`),
 * a property without possible values takes its text as `values`. Arrays come form-encoded, comma-separated.
 * ASSUMPTION: `values` or `value_ids` alone is enough (Etsy's release of 2021-07-28: "allows to submit values or
 * value_ids only"); a scale is optional even where the property has scales.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { EtsyGuard } from './guard.js';
import { readParameters } from './listing-fields.js';
import { type ListingStore, ownListingOf, type ProductPropertyValue, type StoredListing } from './listing-store.js';
import { propertiesOf, type TaxonomyProperty } from './taxonomy.js';

type Params = { shopId?: string; listingId?: string; propertyId?: string };
const paramsOf = (request: FastifyRequest) => request.params as Params;

const list = (text: string | undefined) =>
  (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/** The property of the listing's category that takes attribute values, by id. */
const attributeOf = (listing: StoredListing, propertyId: number): TaxonomyProperty | undefined =>
  propertiesOf(listing.fields.taxonomy_id).find((property) => property.property_id === propertyId && property.supports_attributes);

/** A listing moved to another category keeps only the properties the new one has. */
export function dropForeignProperties(listing: StoredListing): void {
  for (const id of listing.properties.keys()) if (!attributeOf(listing, id)) listing.properties.delete(id);
}

/** updateListingProperty's parameters read against the property: the value to store, or Etsy's words for the problem. */
function readValue(property: TaxonomyProperty, parameters: Record<string, string>): ProductPropertyValue | string {
  const ids = list(parameters.value_ids);
  if (ids.some((id) => !/^[0-9]{1,15}$/.test(id))) return 'value_ids must be a list of integers';
  const chosen = ids.map((id) => property.possible_values.find((value) => value.value_id === Number(id)));
  if (chosen.some((value) => value === undefined)) return `value_ids are not possible values of property ${property.property_id}`;
  // A text property takes its one value whole; a property of choices takes its values as the list of their names.
  const texts = property.possible_values.length === 0 ? [parameters.values ?? ''].filter((text) => text.trim()) : list(parameters.values);
  if (property.possible_values.length > 0 && ids.length === 0) return 'value_ids is required for a property with possible values';
  const count = Math.max(ids.length, texts.length);
  if (count === 0) return 'values or value_ids is required';
  if (!property.is_multivalued && count > 1) return `property ${property.property_id} takes one value`;
  if (property.max_values_allowed !== null && count > property.max_values_allowed)
    return `property ${property.property_id} takes at most ${property.max_values_allowed} values`;
  const scaleId = parameters.scale_id === undefined ? null : Number(parameters.scale_id);
  const scale = scaleId === null ? null : property.scales.find((candidate) => candidate.scale_id === scaleId);
  if (scaleId !== null && !scale) return `scale_id is not a scale of property ${property.property_id}`;
  return {
    property_id: property.property_id,
    property_name: property.name,
    scale_id: scale?.scale_id ?? null,
    scale_name: scale?.display_name ?? null,
    value_ids: ids.map(Number),
    values: ids.length > 0 ? chosen.map((value) => value!.name) : texts,
  };
}

export function registerProperties(app: FastifyInstance, guard: EtsyGuard, store: ListingStore, now: () => number) {
  const path = '/v3/application/shops/:shopId/listings/:listingId/properties';

  app.get('/v3/application/listings/:listingId/properties', async (request, reply) => {
    const grant = await guard.admitGrant(request, reply, { operation: 'getListingProperties', fault: 'listing', scope: 'listings_r' });
    const listing = grant && ownListingOf(store, reply, paramsOf(request).listingId, grant.account);
    if (!listing) return reply;
    const results = [...listing.properties.values()];
    return guard.answer(reply, 'listing', 200, { count: results.length, results });
  });

  /** The write's grant checked (its scope, the path's shop) and the path's listing found; null once answered. */
  const writable = async (request: FastifyRequest, reply: FastifyReply, operation: string, scope: string) => {
    const { shopId, listingId } = paramsOf(request);
    const grant = await guard.admitGrant(request, reply, { operation, fault: 'listing', scope, shopId });
    return grant && ownListingOf(store, reply, listingId, grant.account);
  };

  app.put(`${path}/:propertyId`, async (request, reply) => {
    const listing = await writable(request, reply, 'updateListingProperty', 'listings_w');
    if (!listing) return reply;
    const { propertyId } = paramsOf(request);
    const property = /^[0-9]{1,15}$/.test(propertyId ?? '') ? attributeOf(listing, Number(propertyId)) : undefined;
    if (!property)
      return reply
        .code(400)
        .send({ error: `property_id ${propertyId} is not a property of taxonomy ${listing.fields.taxonomy_id} that takes values` });
    const value = readValue(property, readParameters(request.body));
    if (typeof value === 'string') return reply.code(400).send({ error: value });
    listing.properties.set(property.property_id, value);
    listing.updated = now();
    return guard.answer(reply, 'listing', 200, value);
  });

  app.delete(`${path}/:propertyId`, async (request, reply) => {
    const listing = await writable(request, reply, 'deleteListingProperty', 'listings_d');
    if (!listing) return reply;
    const { propertyId } = paramsOf(request);
    if (!listing.properties.delete(Number(propertyId)))
      return reply.code(404).send({ error: `The listing has no property with property_id = ${propertyId}` });
    listing.updated = now();
    return guard.answer(reply, 'listing', 204);
  });
}
