/**
 * Listings (DESIGN §10): what a site needs first (its listing settings, and the choices, categories and attributes read
 * from its platform), then publishing a product to it (or validating it), and reading the listings.
 */

import type { FastifySchemaCompiler } from 'fastify';
import Type, { type TSchema } from 'typebox';
import type { ListingImport } from '../core/listings/listing-import.js';
import type { ListingsService } from '../core/listings/listings.service.js';
import type { SiteListingsService } from '../core/listings/site-listings.service.js';
import {
  ATTRIBUTE_TYPES,
  EXCHANGE_RATE_PATTERN,
  IMPORT_STATUSES,
  ISSUE_SEVERITIES,
  ISSUE_SOURCES,
  LISTING_STATUSES,
  PLATFORM_NAMES,
  PRICE_ADJUSTMENT_MAX,
  PRICE_ADJUSTMENT_MIN,
  PRICE_PATTERN,
  PRODUCT_IMAGES_MAX,
  PRODUCT_VARIANTS_MAX,
  QUANTITY_MAX,
  SITE_PLATFORMS,
  type SitePlatform,
  SYNC_STATUSES,
} from '../domain/index.js';
import { AppError } from '../errors.js';
import { type App, actorOf, workspaceOf } from './access.js';
import { Dictionary, Id, Named, Ok, OkPage, OneOf, ok, okPage, PageQuery, pageOf, Timestamp } from './schemas.js';
import { toFieldErrors, validatorCompiler } from './validation.js';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** The settings every platform has; each platform's own are declared in its folder (src/platforms/<platform>/listing-settings.ts). */
const COMMON = {
  price_adjustment_percent: Type.Number({
    minimum: PRICE_ADJUSTMENT_MIN,
    maximum: PRICE_ADJUSTMENT_MAX,
    description: 'The listed price is each variant price raised or lowered by this much, rounded to the cent (default 0)',
  }),
  stock_buffer: Type.Integer({
    minimum: 0,
    maximum: QUANTITY_MAX,
    description: 'The listed quantity is the stock less this, never below 0 (default 0)',
  }),
  exchange_rates: Type.Record(Type.String({ pattern: '^[A-Z]{3}$' }), Type.String({ pattern: EXCHANGE_RATE_PATTERN }), {
    additionalProperties: false,
    maxProperties: 50,
    description:
      'From a product\'s currency to the listing\'s (`{"USD": "0.79"}`, decimal strings): a product in another currency lists at price × rate, then the adjustment (default {})',
  }),
};

/** A platform's settings as PUT takes them: every field optional (absent or null: not set), no other field. */
const settingsOf = (fields: Record<string, TSchema>) =>
  Type.Object(Object.fromEntries(Object.entries({ ...COMMON, ...fields }).map(([name, schema]) => [name, Type.Optional(schema)])), {
    additionalProperties: false,
  });

/** "Etsy: `shipping_profile_id`, …." for each platform: the fields its listings settings declare. */
const fieldsByPlatform = (fieldsOf: (platform: SitePlatform) => Record<string, TSchema>) =>
  SITE_PLATFORMS.map((platform) => {
    const names = Object.keys(fieldsOf(platform)).map((name) => `\`${name}\``);
    return `${PLATFORM_NAMES[platform]}: ${names.join(', ')}.`;
  }).join(' ');

/** PUT's body as the API document shows it: any record; the handler checks it against the site's platform's fields. */
const settingsBody = (fieldsOf: (platform: SitePlatform) => Record<string, TSchema>) =>
  Dictionary(Type.String(), Type.Unknown(), {
    description: `Every platform: \`price_adjustment_percent\` (−90 to 500), \`stock_buffer\` (≥ 0), \`exchange_rates\` ({currency: rate}). ${fieldsByPlatform(fieldsOf)} A field left out (or null) is not set; GET /sites/{site_id}/listing-options lists the choices. Etsy's \`new_shipping_profile\`, \`new_return_policy\` and \`new_processing_profile\` are not settings: each is created on the shop (scope shops_w) before the settings are stored, and its id fills \`shipping_profile_id\`, \`return_policy_id\` or \`readiness_state_id\` (docs/listings.md, "A new Etsy shop"); a refusal is a 422 on its field and stores nothing.`,
    examples: [
      {
        price_adjustment_percent: 10,
        stock_buffer: 1,
        shipping_profile_id: '1001',
        return_policy_id: '2001',
        readiness_state_id: '3001',
        who_made: 'i_did',
        when_made: 'made_to_order',
        is_supply: false,
      },
    ],
  });
const SettingsSchema = Dictionary(Type.String(), Type.Unknown(), {
  description: "The site's settings: each of its platform's fields, null where not set, and the defaults",
});
const Choice = Type.Object({ value: Type.String(), label: Type.String() });
const OptionChoice = Type.Object({
  value: Type.String(),
  label: Type.String(),
  currency: Type.Optional(Type.String({ description: "A marketplace's currency: what its listings are priced in (DESIGN §15)" })),
});
const CategorySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  path: Type.Array(Type.String(), { description: 'Names from the top category down to this one' }),
  leaf: Type.Boolean({ description: 'Only a leaf category can hold a listing' }),
});
const AttributeSchema = Type.Object({
  name: Type.String({ description: 'The key of the value in a listing’s `attributes`' }),
  label: Type.String(),
  required: Type.Boolean(),
  type: OneOf(ATTRIBUTE_TYPES, {
    description: '`file`: the `name` of a file uploaded with POST /files (a PDF or an image, such as a certificate)',
  }),
  values: Type.Array(Choice, { description: 'The choices of a select or multiselect' }),
});

const SiteParams = Type.Object({ site_id: Id });
const CategoryParams = Type.Object({ site_id: Id, category_id: Type.String({ minLength: 1, maxLength: 100 }) });
const CategoryQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 100, description: 'Text in the name of the category' })),
  parent_id: Type.Optional(Type.String({ maxLength: 100, description: 'The children of this category; the top ones without' })),
});

/** What a listing shows instead of its product's (DESIGN §15); stored as given, without the fields reverted. */
const OverridesFields = {
  title: Type.String({ minLength: 1, maxLength: 500, description: "The title as listed; the platform's length limit applies" }),
  description: Type.String({ maxLength: 50_000 }),
  images: Type.Array(Type.Integer({ minimum: 1 }), {
    maxItems: PRODUCT_IMAGES_MAX,
    uniqueItems: true,
    description: "The product's image ids, in the order listed",
  }),
  variants: Type.Array(
    Type.Object(
      { sku: Type.String({ minLength: 1, maxLength: 64 }), price: Type.String({ pattern: PRICE_PATTERN.source }) },
      { additionalProperties: false },
    ),
    {
      maxItems: PRODUCT_VARIANTS_MAX,
      description: "Prices in the listing's currency, as listed: they take precedence over the exchange rate and the price adjustment",
    },
  ),
};
const OverridesSchema = Type.Object(
  Object.fromEntries(Object.entries(OverridesFields).map(([name, schema]) => [name, Type.Optional(schema)])) as {
    [K in keyof typeof OverridesFields]: ReturnType<typeof Type.Optional<(typeof OverridesFields)[K]>>;
  },
  { additionalProperties: false },
);
const OverridesInput = Nullable(
  Type.Object(
    Object.fromEntries(Object.entries(OverridesFields).map(([name, schema]) => [name, Type.Optional(Nullable(schema))])) as {
      [K in keyof typeof OverridesFields]: ReturnType<typeof Type.Optional<ReturnType<typeof Nullable<(typeof OverridesFields)[K]>>>>;
    },
    {
      additionalProperties: false,
      description:
        "What this listing shows instead of the product's: a field given replaces it, null goes back to the product's; null for all",
    },
  ),
);
export const IssueSchema = Named('ListingIssue', {
  severity: OneOf(ISSUE_SEVERITIES),
  code: Type.String(),
  message: Type.String({ description: "The platform's own words where `source` is platform" }),
  field: Type.Union([Type.String(), Type.Null()]),
  source: OneOf(ISSUE_SOURCES),
});
const ListingSchema = Named('Listing', {
  id: Id,
  site_id: Id,
  product_id: Id,
  platform_id: Type.Integer(),
  status: OneOf(LISTING_STATUSES),
  sync_status: OneOf(SYNC_STATUSES),
  platform_status: Type.Union([Type.String(), Type.Null()], { description: "The platform's own word for the listing's state" }),
  external_id: Type.Union([Type.String(), Type.Null()]),
  external_url: Type.Union([Type.String(), Type.Null()]),
  title: Type.String({ description: "The title as listed: the override's, else the product's" }),
  overrides: Nullable(OverridesSchema),
  category_id: Type.String(),
  attributes: Dictionary(Type.String(), Type.Unknown()),
  marketplace_id: Type.Union([Type.String(), Type.Null()]),
  variants: Type.Array(
    Type.Object({
      sku: Type.String(),
      price: Type.String(),
      quantity: Type.Integer(),
      external_id: Type.Union([Type.String(), Type.Null()]),
      fulfilled_by: OneOf(['seller', 'platform'] as const, {
        description:
          "Who ships the variant: the seller, or the platform from its own warehouses (Amazon's FBA), which counts its stock: Storelink never writes that stock",
      }),
    }),
    { description: "As listed: after the site's price adjustment and stock buffer" },
  ),
  price: Type.Union([Type.String(), Type.Null()]),
  quantity: Type.Union([Type.Integer(), Type.Null()]),
  currency: Type.String(),
  synced_version: Type.Union([Type.Integer(), Type.Null()], { description: 'The product version the platform has' }),
  issues: Type.Array(IssueSchema),
  differences: Type.Array(Type.Object({ field: Type.String(), platform: Nullable(Type.String()), catalogue: Nullable(Type.String()) }), {
    description:
      "What the platform shows that the catalogue does not, as last read (changed on the platform outside Storelink, or imported as the shop had it): `title`, `description`, `tags`, `images` (their count), `variants.<sku>.price`, `variants.<sku>.quantity`, `variants.<sku>`. POST /listings/{id}/refresh sends the catalogue's values; POST /listings/{id}/adopt takes the platform's into the catalogue.",
  }),
  read_at: Nullable(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp,
});
const PublishBody = Type.Object(
  {
    product_id: Id,
    category_id: Type.String({ minLength: 1, maxLength: 100 }),
    attributes: Type.Optional(Dictionary(Type.String({ maxLength: 100 }), Type.Unknown(), { maxProperties: 100 })),
    overrides: Type.Optional(OverridesInput),
    mode: Type.Optional(
      OneOf(['publish', 'validate'] as const, {
        description: 'publish (default): 202 and the listing in pending; validate: 200 {valid, issues}, nothing stored',
      }),
    ),
  },
  { additionalProperties: false, examples: [{ product_id: 1, category_id: '1633', attributes: { '200': '1' } }] },
);
const ListingQuery = Type.Object({
  ...PageQuery.properties,
  status: Type.Optional(OneOf(LISTING_STATUSES)),
  product_id: Type.Optional(Id),
});

type Check = ((data: unknown) => boolean) & { errors?: Parameters<typeof toFieldErrors>[0] | null };

/** The services the routes use. */
export interface ListingRoutesServices {
  readonly siteListings: SiteListingsService;
  readonly listings: ListingsService;
  readonly listingImport: ListingImport;
}

export function registerListingRoutes(app: App, deps: ListingRoutesServices) {
  const { siteListings } = deps;
  const compile = validatorCompiler as FastifySchemaCompiler<TSchema>;
  const checks = Object.fromEntries(
    SITE_PLATFORMS.map((platform) => [
      platform,
      compile({
        schema: settingsOf(siteListings.settingsFields(platform)),
        method: 'PUT',
        url: '/sites/:site_id/listing-settings',
        httpPart: 'body',
      }) as Check,
    ]),
  ) as Record<SitePlatform, Check>;

  const { listings } = deps;

  app.post(
    '/sites/:site_id/listings',
    {
      config: { access: 'workspace' },
      schema: {
        summary: 'Publish a product to the site (202, the listing in pending), or only validate it (mode: validate, 200)',
        description:
          'Everything is checked before anything is stored: the product and the category (a leaf of the platform), the attributes the category requires, the site connected with its required listing settings, and the platform’s own rules (Etsy: at most two options, an uploaded image, a price of at least 0.20, stock). Any problem is a 422 on its field; 409 when the product already has a listing on the site that is not deleted. Etsy charges the seller USD 0.20 for each publish: Storelink publishes a listing once, and again only when the seller asks.',
        tags: ['listings'],
        params: SiteParams,
        body: PublishBody,
        response: {
          200: Ok(Type.Object({ valid: Type.Boolean(), issues: Type.Array(IssueSchema) })),
          202: Ok(ListingSchema),
        },
      },
    },
    async (request, reply) => {
      const workspace = workspaceOf(request);
      const { site_id: siteId } = request.params;
      if (request.body.mode === 'validate') return ok(await listings.validate(workspace.id, siteId, request.body));
      return reply.code(202).send(ok(await listings.publish(workspace.id, siteId, request.body, actorOf(request))));
    },
  );

  app.get(
    '/sites/:site_id/listings',
    {
      config: { access: 'workspace' },
      schema: {
        summary: "The site's listings; `?status=` and `?product_id=` narrow them",
        tags: ['listings'],
        params: SiteParams,
        querystring: ListingQuery,
        response: { 200: OkPage(ListingSchema) },
      },
    },
    async (request) => {
      const { status, product_id: productId } = request.query;
      const filter = { status, productId };
      const { rows, total } = await listings.list(workspaceOf(request).id, request.params.site_id, pageOf(request.query), filter);
      return okPage(rows, total, request.query);
    },
  );

  app.get(
    '/listings/:listing_id',
    {
      config: { access: 'workspace' },
      schema: { summary: 'One listing', tags: ['listings'], params: Type.Object({ listing_id: Id }), response: { 200: Ok(ListingSchema) } },
    },
    async (request) => ok(await listings.get(workspaceOf(request).id, request.params.listing_id)),
  );

  const ListingParams = Type.Object({ listing_id: Id });
  const accepted = { 202: Ok(ListingSchema) };

  app.patch(
    '/listings/:listing_id',
    {
      config: { access: 'workspace' },
      schema: {
        summary:
          'Change the listing’s category, attributes or overrides (202): checked as publishing checks them, then sent to the platform',
        tags: ['listings'],
        params: ListingParams,
        body: Type.Object(
          {
            category_id: Type.Optional(PublishBody.properties.category_id),
            attributes: Type.Optional(PublishBody.properties.attributes),
            overrides: Type.Optional(OverridesInput),
          },
          { additionalProperties: false },
        ),
        response: accepted,
      },
    },
    async (request, reply) =>
      reply.code(202).send(ok(await listings.change(workspaceOf(request).id, request.params.listing_id, request.body, actorOf(request)))),
  );

  for (const [path, wants, summary] of [
    ['/listings/:listing_id/activate', 'active', 'Put the listing live again (202); on Etsy a publish, which the seller pays for'],
    ['/listings/:listing_id/deactivate', 'inactive', 'Take the listing off sale (202); it stays on the platform, inactive'],
  ] as const) {
    app.post(
      path,
      { config: { access: 'workspace' }, schema: { summary, tags: ['listings'], params: ListingParams, response: accepted } },
      async (request, reply) =>
        reply.code(202).send(ok(await listings.want(workspaceOf(request).id, request.params.listing_id, wants, actorOf(request)))),
    );
  }

  app.delete(
    '/listings/:listing_id',
    {
      config: { access: 'workspace' },
      schema: {
        summary: 'Remove the listing from the platform (202); the record stays, `deleted`',
        tags: ['listings'],
        params: ListingParams,
        response: accepted,
      },
    },
    async (request, reply) =>
      reply.code(202).send(ok(await listings.want(workspaceOf(request).id, request.params.listing_id, 'deleted', actorOf(request)))),
  );

  app.post(
    '/listings/:listing_id/refresh',
    {
      config: { access: 'workspace' },
      schema: {
        summary:
          'Read the listing back from the platform (202): its status, the platform’s word for it and its issues; values that differ from the catalogue (`differences`) are sent again',
        tags: ['listings'],
        params: ListingParams,
        response: accepted,
      },
    },
    async (request, reply) =>
      reply.code(202).send(ok(await listings.refresh(workspaceOf(request).id, request.params.listing_id, actorOf(request)))),
  );

  const ImportSchema = Type.Object({
    id: Id,
    site_id: Id,
    status: OneOf(IMPORT_STATUSES, { description: 'running until the last page of the shop is read; failed says why in `error`' }),
    pages: Type.Integer({ description: 'Pages of the shop read so far' }),
    found: Type.Integer({ description: "The shop's listings read so far" }),
    created: Type.Integer({ description: 'Listings whose product the import made (no product had their sku)' }),
    linked: Type.Integer({ description: "Listings linked to the catalogue's product with the same sku" }),
    updated: Type.Integer({ description: 'Listings Storelink held already (by the platform’s id): their status brought up to date' }),
    skipped: Type.Integer({ description: 'Listings not taken; `skips` says why (the first 100)' }),
    skips: Type.Array(Type.Object({ external_id: Type.String(), title: Type.String(), message: Type.String() })),
    error: Nullable(Type.String()),
    started_at: Timestamp,
    updated_at: Timestamp,
    finished_at: Nullable(Timestamp),
  });
  const { listingImport } = deps;

  app.post(
    '/sites/:site_id/listings/import',
    {
      config: { access: 'workspace' },
      schema: {
        summary: "Import the site's existing listings (202): each linked to the catalogue's product with the same sku, or its product made",
        description:
          'Reads every listing of the shop, a page at a time in the background (`GET` this path for the progress). A listing is linked to the catalogue product with one of its skus, or a product is made from it (a variant without a sku gets `<PLATFORM>-<listing id>`); one Storelink already holds is brought up to date, never taken twice. The import writes nothing to the platform; a linked product that differs from the shop is then delivered as any product change is (only what differs). The site must be connected with its listing settings set (422). While an import of the site runs, this answers it.',
        tags: ['listings'],
        params: SiteParams,
        response: { 202: Ok(ImportSchema) },
      },
    },
    async (request, reply) => {
      const site = await siteListings.siteOf(workspaceOf(request).id, request.params.site_id);
      return reply.code(202).send(ok(await listingImport.start(site, actorOf(request))));
    },
  );

  app.get(
    '/sites/:site_id/listings/import',
    {
      config: { access: 'workspace' },
      schema: {
        summary: "The site's latest import of its existing listings, running or finished; null before its first",
        tags: ['listings'],
        params: SiteParams,
        response: { 200: Ok(Nullable(ImportSchema)) },
      },
    },
    async (request) => {
      const site = await siteListings.siteOf(workspaceOf(request).id, request.params.site_id);
      return ok(await listingImport.latest(site.workspaceId, site.id));
    },
  );

  app.post(
    '/listings/:listing_id/adopt',
    {
      config: { access: 'workspace' },
      schema: {
        summary: "Take the platform's values of the listing's `differences` into the catalogue's product (202)",
        description:
          "The product changes as a PATCH would change it (title, description, tags, and each variant's price and quantity, the site's price adjustment and stock buffer undone), so every listing of the product follows; this one holds the values already. 409 when the listing shows no difference the catalogue can take (images, or a variant on one side only, are changed in the product). To send the catalogue's values to the platform instead, POST /listings/{id}/refresh.",
        tags: ['listings'],
        params: ListingParams,
        response: accepted,
      },
    },
    async (request, reply) =>
      reply.code(202).send(ok(await listings.adopt(workspaceOf(request).id, request.params.listing_id, actorOf(request)))),
  );

  app.get(
    '/sites/:site_id/listing-settings',
    {
      config: { access: 'workspace' },
      schema: { summary: "The site's listing settings", tags: ['listings'], params: SiteParams, response: { 200: Ok(SettingsSchema) } },
    },
    async (request) => ok(await siteListings.settings(workspaceOf(request).id, request.params.site_id)),
  );

  app.put(
    '/sites/:site_id/listing-settings',
    {
      config: { access: 'workspace', role: 'admin' },
      schema: {
        summary: "Replace the site's listing settings (a field left out is not set)",
        tags: ['listings'],
        params: SiteParams,
        body: settingsBody(siteListings.settingsFields),
        response: { 200: Ok(SettingsSchema) },
      },
    },
    async (request) => {
      const workspace = workspaceOf(request);
      const site = await siteListings.siteOf(workspace.id, request.params.site_id);
      const check = checks[site.platform];
      if (!check(request.body)) throw new AppError('validation_failed', { fields: toFieldErrors(check.errors ?? [], 'body') });
      return ok(await siteListings.replaceSettings(workspace.id, site.id, request.body));
    },
  );

  app.get(
    '/sites/:site_id/listing-options',
    {
      config: { access: 'workspace' },
      schema: {
        summary: "The choices of the site's settings, read from its platform: `{<settings field>: [{value, label}]}`",
        tags: ['listings'],
        params: SiteParams,
        response: { 200: Ok(Dictionary(Type.String(), Type.Array(OptionChoice))) },
      },
    },
    async (request) => ok(await siteListings.options(workspaceOf(request).id, request.params.site_id)),
  );

  app.get(
    '/sites/:site_id/categories',
    {
      config: { access: 'workspace' },
      schema: {
        summary: "The platform's categories: those whose name holds `q` (at most 50), or the children of `parent_id`, or the top ones",
        tags: ['listings'],
        params: SiteParams,
        querystring: CategoryQuery,
        response: { 200: Ok(Type.Array(CategorySchema)) },
      },
    },
    async (request) => {
      const query = { q: request.query.q?.trim() || null, parentId: request.query.parent_id || null };
      return ok(await siteListings.categories(workspaceOf(request).id, request.params.site_id, query));
    },
  );

  app.get(
    '/sites/:site_id/categories/:category_id/attributes',
    {
      config: { access: 'workspace' },
      schema: {
        summary: 'What a listing in the category can or must say (Etsy: the category’s properties)',
        tags: ['listings'],
        params: CategoryParams,
        response: { 200: Ok(Type.Array(AttributeSchema)) },
      },
    },
    async (request) =>
      ok(await siteListings.categoryAttributes(workspaceOf(request).id, request.params.site_id, request.params.category_id)),
  );
}
