/**
 * What a site needs before its listings (DESIGN §10): GET and PUT /sites/{site_id}/listing-settings, GET
 * /sites/{site_id}/listing-options, GET /sites/{site_id}/categories and GET .../categories/{category_id}/attributes.
 */
import type { FastifySchemaCompiler } from 'fastify';
import Type, { type TSchema } from 'typebox';
import type { Deps } from '../deps.js';
import {
  ATTRIBUTE_TYPES,
  ETSY_WHEN_MADE,
  ETSY_WHO_MADE,
  PRICE_ADJUSTMENT_MAX,
  PRICE_ADJUSTMENT_MIN,
  QUANTITY_MAX,
  type SitePlatform,
} from '../domain/index.js';
import { AppError } from '../errors.js';
import { type App, workspaceOf } from './access.js';
import { Id, Ok, OneOf, ok } from './schemas.js';
import { toFieldErrors, validatorCompiler } from './validation.js';

/** A platform's id of a profile, a policy or a warehouse: digits, as text (Etsy's are above 2^53). */
const PlatformId = Type.String({ pattern: '^[0-9]{1,20}$', maxLength: 20 });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

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
};

/** A platform's settings as PUT takes them: every field optional (absent or null: not set), no other field. */
const settingsOf = (fields: Record<string, TSchema>) =>
  Type.Object(Object.fromEntries(Object.entries({ ...COMMON, ...fields }).map(([name, schema]) => [name, Type.Optional(schema)])), {
    additionalProperties: false,
  });

const SETTINGS: Record<SitePlatform, TSchema> = {
  etsy: settingsOf({
    shipping_profile_id: Nullable(PlatformId),
    return_policy_id: Nullable(PlatformId),
    readiness_state_id: Nullable(PlatformId),
    who_made: Nullable(OneOf(ETSY_WHO_MADE)),
    when_made: Nullable(OneOf(ETSY_WHEN_MADE)),
    is_supply: Type.Boolean(),
  }),
  'tiktok-shop': settingsOf({ warehouse_id: Nullable(PlatformId) }),
  'amazon-seller': settingsOf({
    marketplace_id: Nullable(Type.String({ pattern: '^[A-Z0-9]{10,16}$' })),
    condition_type: Type.String({ pattern: '^[a-z_]{3,40}$', description: 'Amazon condition_type (default new_new)' }),
  }),
};

const SettingsBody = Type.Record(Type.String(), Type.Unknown(), {
  description:
    'Every platform: `price_adjustment_percent` (−90 to 500), `stock_buffer` (≥ 0). Etsy: `shipping_profile_id`, `return_policy_id`, `readiness_state_id`, `who_made`, `when_made`, `is_supply`. TikTok Shop: `warehouse_id`. Amazon: `marketplace_id`, `condition_type`. A field left out (or null) is not set; GET /sites/{site_id}/listing-options lists the choices.',
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
const SettingsSchema = Type.Record(Type.String(), Type.Unknown(), {
  description: "The site's settings: each of its platform's fields, null where not set, and the defaults",
});
const Choice = Type.Object({ value: Type.String(), label: Type.String() });
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
  type: OneOf(ATTRIBUTE_TYPES),
  values: Type.Array(Choice, { description: 'The choices of a select or multiselect' }),
});

const SiteParams = Type.Object({ site_id: Id });
const CategoryParams = Type.Object({ site_id: Id, category_id: Type.String({ minLength: 1, maxLength: 100 }) });
const CategoryQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 100, description: 'Text in the name of the category' })),
  parent_id: Type.Optional(Type.String({ maxLength: 100, description: 'The children of this category; the top ones without' })),
});

type Check = ((data: unknown) => boolean) & { errors?: Parameters<typeof toFieldErrors>[0] | null };

export function registerListingRoutes(app: App, deps: Deps) {
  const { siteListings } = deps;
  const compile = validatorCompiler as FastifySchemaCompiler<TSchema>;
  const checks = Object.fromEntries(
    Object.entries(SETTINGS).map(([platform, schema]) => [
      platform,
      compile({ schema, method: 'PUT', url: '/sites/:site_id/listing-settings', httpPart: 'body' }) as Check,
    ]),
  ) as Record<SitePlatform, Check>;

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
      config: { access: 'workspace' },
      schema: {
        summary: "Replace the site's listing settings (a field left out is not set)",
        tags: ['listings'],
        params: SiteParams,
        body: SettingsBody,
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
        response: { 200: Ok(Type.Record(Type.String(), Type.Array(Choice))) },
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
