/** GET /overview: the workspace at a glance (issue 37, item 3): each site's listings by status, what needs fixing. */
import Type from 'typebox';
import type { OverviewService } from '../core/overview/overview.service.js';
import { SHOWN_STATUSES } from '../core/overview/overview.service.js';
import { SITE_STATUSES, SYNC_STATUSES } from '../domain/index.js';
import { type App, workspaceOf } from './access.js';
import { IssueSchema } from './listings.routes.js';
import { Id, Named, Ok, OneOf, ok, Timestamp } from './schemas.js';

const countsOf = (keys: readonly string[], description: string) =>
  Type.Object(Object.fromEntries(keys.map((k) => [k, Type.Integer({ minimum: 0 })])), { description });

const OverviewSchema = Named('Overview', {
  sites: Type.Array(
    Type.Object({
      id: Id,
      name: Type.String(),
      platform: Type.String(),
      platform_id: Type.Integer(),
      status: OneOf(SITE_STATUSES, { description: '`reauthorization_required`: the seller must connect the site again' }),
      listings: Type.Object({
        total: Type.Integer({ minimum: 0, description: 'Listings of the site, deleted ones aside' }),
        by_status: countsOf(SHOWN_STATUSES, 'Listings in each status (every status present, 0 when none)'),
        by_sync: countsOf(SYNC_STATUSES, 'Listings in each sync status'),
      }),
    }),
    { description: 'Every site of the workspace, in id order' },
  ),
  listings_to_fix: Type.Object({
    total: Type.Integer({ minimum: 0, description: 'Listings rejected, in error or whose last sync failed' }),
    shown: Type.Array(
      Type.Object({
        id: Id,
        site_id: Id,
        product_id: Id,
        title: Type.String(),
        status: OneOf(SHOWN_STATUSES),
        sync_status: OneOf(SYNC_STATUSES),
        // The ListingIssue shape without its name: a named schema may appear once in a response's schema.
        issues: Type.Array(Type.Object(IssueSchema.properties)),
        updated_at: Timestamp,
      }),
      { description: 'The 20 most recently changed of them' },
    ),
  }),
  oversold_orders: Type.Integer({ minimum: 0, description: 'Orders not cancelled with a line the stock pool could not cover' }),
});

export function registerOverviewRoutes(app: App, deps: { overview: OverviewService }) {
  app.get(
    '/overview',
    {
      config: { access: 'workspace' },
      schema: {
        summary: "The workspace at a glance: each site's listings by status, the listings that need fixing, oversold orders",
        tags: ['overview'],
        response: { 200: Ok(OverviewSchema) },
      },
    },
    async (request) => {
      const { sites, toFix, fixTotal, oversold } = await deps.overview.overview(workspaceOf(request).id);
      return ok({
        sites: sites.map((site) => ({
          id: site.id,
          name: site.name,
          platform: site.platform,
          platform_id: site.platformId,
          status: site.status,
          listings: site.listings,
        })),
        listings_to_fix: {
          total: fixTotal,
          shown: toFix.map((listing) => ({
            id: listing.id,
            site_id: listing.siteId,
            product_id: listing.productId,
            title: listing.title,
            status: listing.status as (typeof SHOWN_STATUSES)[number],
            sync_status: listing.syncStatus,
            issues: listing.issues,
            updated_at: listing.updatedAt.toISOString(),
          })),
        },
        oversold_orders: oversold,
      });
    },
  );
}
