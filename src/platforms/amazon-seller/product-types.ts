/**
 * Amazon's product types (Product Type Definitions API, listings.md §3.2): a type's definition for a marketplace and
 * requirements, and the JSON Schema it links to, compiled. Both are kept an hour, the schemas by their checksum.
 */
import type { ValidateFunction } from 'ajv/dist/2019.js';
import { readCache } from '../../lib/read-cache.js';
import { ListingRefused, PlatformError } from '../contracts/errors.js';
import type { ListingsCall } from '../contracts/listings.js';
import { parseBody } from '../parse.js';
import type { AmazonMarketplace, AttributeShape } from './listing-requests.js';
import { type AmazonDefinition, Definition, ProductTypeSchema, readerOrGone, shapesOf } from './listing-responses.js';
import { compileSchema } from './listing-rules.js';
import type { AmazonListingsDeps, SpApi } from './sp-api.js';

/** Product type definitions and their schemas are read again after an hour (the checksum says when a schema changed). */
const DEFINITIONS_TTL_MS = 3600_000;

export type Requirements = 'LISTING' | 'LISTING_OFFER_ONLY';

/** A product type's JSON Schema, compiled, and what it says of each attribute. */
export interface Schema {
  validate: ValidateFunction;
  shapes: Record<string, AttributeShape>;
  titles: Record<string, string>;
  properties: Set<string>;
  /** The variation themes the product type offers (its `variation_theme` enum), in its order. */
  themes: string[];
}

/** The JSON Schema Amazon answered, compiled; one it cannot be read or compiled is a passing failure of Amazon's. */
function compiledSchema(definition: AmazonDefinition, status: number, raw: Record<string, unknown>): Schema {
  if (status !== 200) throw new PlatformError('unavailable', `Amazon's schema for ${definition.productType} answered HTTP ${status}`);
  const parsed = parseBody(ProductTypeSchema, raw);
  if (!parsed) throw new PlatformError('unavailable', `Amazon's schema for ${definition.productType} has no attributes`);
  let validate: ValidateFunction;
  try {
    validate = compileSchema(raw);
  } catch (error) {
    throw new PlatformError('unavailable', `Amazon's schema for ${definition.productType} cannot be compiled: ${(error as Error).message}`);
  }
  return { validate, ...shapesOf(parsed) };
}

/** The product types of one adapter, with their caches. */
export function createProductTypes({ send }: SpApi, deps: AmazonListingsDeps) {
  const definitions = readCache<AmazonDefinition | null>(deps.clock, DEFINITIONS_TTL_MS);
  const schemas = readCache<Schema>(deps.clock, DEFINITIONS_TTL_MS);

  /** A product type's definition for the marketplace and requirements; null for one Amazon does not know. Read once an hour. */
  async function definitionOf(call: ListingsCall, marketplace: AmazonMarketplace, type: string, requirements: Requirements) {
    if (!/^[A-Z0-9_]{1,80}$/.test(type)) return null;
    const query = { marketplaceIds: marketplace.id, requirements, locale: 'DEFAULT', sellerId: call.externalId };
    const path = `/definitions/2020-09-01/productTypes/${type}`;
    return definitions.get(`${type}|${marketplace.id}|${requirements}`, () =>
      send(call, marketplace, 'getDefinitionsProductType', 'GET', path, readerOrGone(Definition), { query }),
    );
  }

  /** The JSON Schema at the definition's link (unauthenticated, as Amazon's presigned link), compiled; kept by its checksum. */
  function schemaOf(call: ListingsCall, definition: AmazonDefinition): Promise<Schema> {
    return schemas.get(definition.schema.checksum, async () => {
      const answer = await deps.http.request(definition.schema.link.resource, { method: 'GET', signal: call.signal });
      return compiledSchema(definition, answer.status, answer.body as Record<string, unknown>);
    });
  }

  /** The product type's schema for the listing's requirements; a product type Amazon does not know refuses the listing. */
  async function schemaFor(call: ListingsCall, marketplace: AmazonMarketplace, type: string, requirements: Requirements) {
    const definition = await definitionOf(call, marketplace, type, requirements);
    if (!definition) {
      const message = `Amazon has no product type ${type}.`;
      throw new ListingRefused([{ severity: 'error', code: 'category_unknown', message, field: 'category_id', source: 'storelink' }]);
    }
    return schemaOf(call, definition);
  }

  return { definitionOf, schemaOf, schemaFor };
}

export type AmazonProductTypes = ReturnType<typeof createProductTypes>;
