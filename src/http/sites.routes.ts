/** GET /sites, GET /sites/{site_id}, DELETE /sites/{site_id} (DESIGN §5). */

import Type from 'typebox';
import type { Site, SitesService } from '../core/sites/sites.service.js';
import { AMAZON_REGIONS, SITE_PLATFORMS, SITE_STATUSES } from '../domain/index.js';
import { type App, principalOf, workspaceOf } from './access.js';
import { Dictionary, Id, iso, Named, Ok, OkPage, OneOf, ok, okPage, PageQuery, pageOf, Timestamp } from './schemas.js';

export const SiteSchema = Named('Site', {
  id: Id,
  platform_id: Type.Integer(),
  platform: OneOf(SITE_PLATFORMS),
  name: Type.String(),
  external_id: Type.String({ description: 'Shop id (Etsy and TikTok Shop) or selling_partner_id (Amazon)' }),
  region: Type.Union([OneOf(AMAZON_REGIONS), Type.Null()], {
    description: 'Amazon: the region the seller connected in; null for other platforms',
  }),
  currency: Type.Union([Type.String({ pattern: '^[A-Z]{3}$' }), Type.Null()], {
    description:
      "What the site sells in (ISO 4217): the Etsy shop's currency, the TikTok Shop market's. Null on Amazon, whose listings are in their marketplace's (listing-options), and on an Etsy site connected before Storelink read it (connect it again)",
  }),
  missing_scopes: Type.Array(Type.String(), {
    description: 'Scopes Storelink needs that this connection was not granted (Etsy); connecting the site again adds them and keeps its id',
  }),
  status: OneOf(SITE_STATUSES),
  status_reason: Type.Union([Type.String(), Type.Null()], { description: 'Why the site needs reauthorization, when it does' }),
  last_refreshed_at: Type.Union([Timestamp, Type.Null()], { description: 'When its access token was last renewed' }),
  next_refresh_at: Type.Union([Timestamp, Type.Null()], { description: 'When its access token will next be renewed' }),
  advertising: Type.Union(
    [
      Type.Object({
        connected: Type.Boolean(),
        region: Type.Union([OneOf(AMAZON_REGIONS), Type.Null()], { description: 'The region advertising was granted in' }),
        profiles: Type.Array(
          Type.Object({
            id: Type.String(),
            country_code: Type.String(),
            name: Type.String(),
            marketplace_id: Type.Optional(Type.String()),
            currency: Type.Optional(Type.String()),
          }),
        ),
      }),
      Type.Null(),
    ],
    { description: 'Amazon Ads, for Amazon seller sites; null for other platforms' },
  ),
  tracking: Dictionary(Type.String(), Type.String(), { description: "TikTok Shop custom_field_value's tracking pairs" }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export function presentSite(site: Site) {
  return {
    id: site.id,
    platform_id: site.platformId,
    platform: site.platform,
    name: site.name,
    external_id: site.externalId,
    region: site.region,
    currency: site.currency,
    missing_scopes: site.missingScopes,
    status: site.status,
    status_reason: site.statusReason,
    last_refreshed_at: iso(site.refreshedAt),
    next_refresh_at: iso(site.nextRefreshAt),
    advertising:
      site.platform === 'amazon-seller'
        ? { connected: site.advertisingProfiles !== null, region: site.advertisingRegion, profiles: site.advertisingProfiles ?? [] }
        : null,
    tracking: site.tracking,
    created_at: iso(site.createdAt),
    updated_at: iso(site.updatedAt),
  };
}

const SiteParams = Type.Object({ site_id: Id });

/** The services the routes use. */
export interface SiteRoutesServices {
  readonly sites: SitesService;
}

export function registerSiteRoutes(app: App, deps: SiteRoutesServices) {
  const { sites } = deps;

  app.get(
    '/sites',
    {
      config: { access: 'workspace' },
      schema: {
        summary: "The workspace's connected sites",
        tags: ['sites'],
        querystring: PageQuery,
        response: { 200: OkPage(SiteSchema) },
      },
    },
    async (request) => {
      const { rows, total } = await sites.list(workspaceOf(request).id, pageOf(request.query));
      return okPage(rows.map(presentSite), total, request.query);
    },
  );

  app.get(
    '/sites/:site_id',
    {
      config: { access: 'workspace' },
      schema: { summary: 'One connected site', tags: ['sites'], params: SiteParams, response: { 200: Ok(SiteSchema) } },
    },
    async (request) => ok(presentSite(await sites.get(workspaceOf(request).id, request.params.site_id))),
  );

  app.delete(
    '/sites/:site_id',
    {
      config: { access: 'workspace', role: 'admin' },
      schema: {
        summary: 'Disconnect a site: its credentials are deleted and it is marked disconnected',
        tags: ['sites'],
        params: SiteParams,
        response: { 200: Ok(SiteSchema) },
      },
    },
    async (request) =>
      ok(
        presentSite(
          await sites.disconnect(workspaceOf(request).id, request.params.site_id, {
            userId: principalOf(request).user.id,
            ipAddress: request.ip,
          }),
        ),
      ),
  );
}
