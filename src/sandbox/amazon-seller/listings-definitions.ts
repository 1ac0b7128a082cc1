/**
 * The Product Type Definitions API 2020-09-01 (listings.md §3.2): searchDefinitionsProductTypes and
 * getDefinitionsProductType, whose `schema.link.resource` is a URL the sandbox serves without auth (as Amazon's
 * presigned S3 link is), with `checksum` the Base64 MD5 of the text served there.
 */
import type { FastifyInstance } from 'fastify';
import type { SandboxMarketplace } from '../amazon-marketplaces.js';
import { DENIED, type SpApiGuard } from './listings-guard.js';
import { checksumOf, META_SCHEMA_TEXT, schemaFileName, schemaOf } from './product-type-schemas.js';
import {
  ENFORCEMENTS,
  type Enforcement,
  languageTagsOf,
  marketplaceOf,
  PRODUCT_TYPE_VERSION,
  type ProductType,
  productTypeOf,
  REQUIREMENTS,
  type Requirements,
  searchProductTypes,
} from './product-types.js';

/** The model's `locale` values. */
const LOCALES = new Set(
  'DEFAULT ar ar_AE de de_DE en en_AE en_AU en_CA en_GB en_IN en_SG en_US es es_ES es_MX es_US fr fr_CA fr_FR it it_IT ja ja_JP nl nl_NL pl pl_PL pt pt_BR pt_PT sv sv_SE tr tr_TR zh zh_CN zh_TW'.split(
    ' ',
  ),
);
const META_SCHEMA_FILE = 'meta-schema.json';
const SCHEMA_FILE = /^([A-Z_]+)\.([A-Z0-9]+)\.(LISTING|LISTING_PRODUCT_ONLY|LISTING_OFFER_ONLY)\.(ENFORCED|NOT_ENFORCED)\.json$/;

/** The groups a form shows the attributes in, as the definition's `propertyGroups`. */
function propertyGroupsOf(type: ProductType) {
  const group = (title: string, description: string, propertyNames: string[]) => ({ title, description, propertyNames });
  return {
    offer: group('Offer', 'Information about the offer, such as its condition, price and quantity', [
      'condition_type',
      'purchasable_offer',
      'fulfillment_availability',
    ]),
    product_identity: group(
      'Product Identity',
      'Information to uniquely identify your product (e.g., UPC, EAN, GTIN, Product Type, Brand)',
      ['item_name', 'brand', 'externally_assigned_product_identifier', 'merchant_suggested_asin'],
    ),
    product_details: group('Product Details', 'Information about the product, such as its description, bullet points and features', [
      'product_description',
      'bullet_point',
      'manufacturer',
      ...Object.keys(type.extra),
    ]),
    images: group('Images', 'Images of the product', [
      'main_product_image_locator',
      'other_product_image_locator_1',
      'other_product_image_locator_2',
      'other_product_image_locator_3',
    ]),
    // The group Amazon's definitions name "Variations" (amzn/selling-partner-api-models issue 1526).
    ...(type.themes.length > 0
      ? {
          variations: group('Variations', 'Variations that product will use', [
            'parentage_level',
            'child_parent_sku_relationship',
            'variation_theme',
          ]),
        }
      : {}),
  };
}

export function registerDefinitions(app: FastifyInstance, guard: SpApiGuard, schemasUrl: string) {
  app.get('/definitions/2020-09-01/productTypes', async (request, reply) => {
    const caller = await guard.admit(request, reply, { operation: 'searchDefinitionsProductTypes', fault: 'listings' });
    const marketplaces = caller && guard.marketplacesOf(reply, caller);
    if (!caller || !marketplaces) return reply;
    const { keywords, itemName } = caller.query;
    if (keywords !== undefined && itemName !== undefined)
      return guard.fail(reply, 400, 'InvalidInput', "'keywords' cannot be used with 'itemName'.");
    const found = searchProductTypes({
      ...(keywords !== undefined ? { keywords: keywords.split(',') } : {}),
      ...(itemName !== undefined ? { itemName } : {}),
    });
    return reply.send({
      productTypes: found.map((type) => ({
        name: type.name,
        displayName: type.displayName,
        marketplaceIds: marketplaces.map((each) => each.id),
      })),
      productTypeVersion: PRODUCT_TYPE_VERSION,
    });
  });

  app.get('/definitions/2020-09-01/productTypes/:productType', async (request, reply) => {
    const caller = await guard.admit(request, reply, { operation: 'getDefinitionsProductType', fault: 'listings' });
    // "Note: This parameter is limited to one marketplaceId at this time."
    const marketplace = caller && guard.marketplacesOf(reply, caller, 1)?.[0];
    if (!caller || !marketplace) return reply;
    const query = caller.query;
    const requirements = (query.requirements ?? 'LISTING') as Requirements;
    const enforcement = (query.requirementsEnforced ?? 'ENFORCED') as Enforcement;
    const version = query.productTypeVersion ?? 'LATEST';
    // ASSUMPTION: the wording of these 400s, and the 403 of another seller's sellerId.
    if (!REQUIREMENTS.includes(requirements))
      return guard.fail(reply, 400, 'InvalidInput', `'requirements' must be one of ${REQUIREMENTS.join(', ')}.`);
    if (!ENFORCEMENTS.includes(enforcement))
      return guard.fail(reply, 400, 'InvalidInput', `'requirementsEnforced' must be one of ${ENFORCEMENTS.join(', ')}.`);
    if (query.locale !== undefined && !LOCALES.has(query.locale))
      return guard.fail(reply, 400, 'InvalidInput', `Invalid 'locale': ${query.locale}.`);
    if (query.parentageLevel !== undefined && !['NONE', 'CHILD', 'PARENT'].includes(query.parentageLevel))
      return guard.fail(reply, 400, 'InvalidInput', "'parentageLevel' must be NONE, CHILD or PARENT.");
    if (!['LATEST', 'RELEASE_CANDIDATE', PRODUCT_TYPE_VERSION].includes(version))
      return guard.fail(reply, 400, 'InvalidInput', `Invalid 'productTypeVersion': ${version}.`);
    if (query.sellerId !== undefined && query.sellerId !== caller.sellerId) return guard.fail(reply, 403, 'Unauthorized', DENIED);
    const type = productTypeOf((request.params as { productType: string }).productType);
    // ASSUMPTION: an unknown product type is a 404 NOT_FOUND (the model lists a 404; its sandbox example is a 400).
    if (!type)
      return guard.fail(
        reply,
        404,
        'NOT_FOUND',
        `No product type definition found for '${(request.params as { productType: string }).productType}'.`,
      );
    return reply.send(definitionOf(type, marketplace, requirements, enforcement, query.locale, schemasUrl));
  });
}

function definitionOf(
  type: ProductType,
  marketplace: SandboxMarketplace,
  requirements: Requirements,
  enforcement: Enforcement,
  locale: string | undefined,
  schemasUrl: string,
) {
  const served = schemaOf(type, marketplace, requirements, enforcement);
  const link = (file: string) => ({ resource: `${schemasUrl}/${file}`, verb: 'GET' });
  return {
    metaSchema: { link: link(META_SCHEMA_FILE), checksum: checksumOf(META_SCHEMA_TEXT) },
    schema: { link: link(schemaFileName(type.name, marketplace.id, requirements, enforcement)), checksum: served.checksum },
    requirements,
    requirementsEnforced: enforcement,
    propertyGroups: propertyGroupsOf(type),
    // ASSUMPTION: titles stay in English whatever the locale; the locale answered is the one asked, or the marketplace's.
    locale: locale === undefined || locale === 'DEFAULT' ? languageTagsOf(marketplace)[0] : locale,
    marketplaceIds: [marketplace.id],
    productType: type.name,
    displayName: type.displayName,
    productTypeVersion: { version: PRODUCT_TYPE_VERSION, latest: true, releaseCandidate: false },
  };
}

/** Serves the schemas and the meta-schema at their links, without auth (sandbox-wide, at the NA simulator's base). */
export function registerSchemaHosting(app: FastifyInstance) {
  app.get('/schemas/:file', async (request, reply) => {
    const file = (request.params as { file: string }).file;
    if (file === META_SCHEMA_FILE) return reply.type('application/json').send(META_SCHEMA_TEXT);
    const [, name, marketplaceId, requirements, enforcement] = SCHEMA_FILE.exec(file) ?? [];
    const type = productTypeOf(name);
    const marketplace = marketplaceOf(marketplaceId ?? '');
    if (!type || !marketplace) return reply.code(404).type('application/xml').send('<Error><Code>NoSuchKey</Code></Error>');
    return reply.type('application/json').send(schemaOf(type, marketplace, requirements as Requirements, enforcement as Enforcement).text);
  });
}
