/**
 * Advertising a listing on Amazon (DESIGN §13): Sponsored Products started from an active Amazon listing, changed,
 * paused or ended, and its figures per day. Starting, changing and ending spend the seller's money: admins and owners.
 */

import Type, { type TSchema } from 'typebox';
import type { AdvertisingService } from '../core/advertising/advertising.service.js';
import { ADVERTISING_STATES, KEYWORD_MATCH_TYPES, SELLER_AD_STATES, SYNC_STATUSES } from '../domain/index.js';
import { type App, actorOf, workspaceOf } from './access.js';
import { IssueSchema } from './listings.routes.js';
import { Dictionary, Id, Named, Ok, OneOf, ok, Timestamp } from './schemas.js';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** Money as a decimal string in the marketplace's currency, to the cent at most. */
const Money = (description: string) => Type.String({ pattern: '^[0-9]{1,9}(\\.[0-9]{1,2})?$', maxLength: 12, description });
const DateText = Type.String({ pattern: '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$', description: 'A UTC day, YYYY-MM-DD' });

const Keyword = Type.Object(
  {
    text: Type.String({ minLength: 1, maxLength: 80, pattern: '\\S' }),
    match_type: OneOf(KEYWORD_MATCH_TYPES),
    bid: Money('What a click on this keyword may cost at most'),
  },
  { additionalProperties: false },
);
const Targeting = Type.Union(
  [
    Type.Literal('auto', { description: 'Amazon finds the shoppers (an automatic campaign)' }),
    Type.Object({ keywords: Type.Array(Keyword, { minItems: 1, maxItems: 100 }) }, { additionalProperties: false }),
  ],
  { description: '`auto`, or the keywords of a manual campaign' },
);

const AdvertisingSchema = Named('Advertising', {
  id: Id,
  listing_id: Id,
  site_id: Id,
  profile_id: Type.String({ description: 'The Amazon Ads profile of the listing’s marketplace' }),
  marketplace_id: Type.String(),
  currency: Type.String({ description: 'The currency of the budget, the bids and the figures' }),
  campaign_id: Nullable(Type.String()),
  ad_group_id: Nullable(Type.String()),
  ad_ids: Type.Array(Type.String()),
  skus: Dictionary(Type.String(), Type.String(), { description: 'The product ad id of each advertised SKU' }),
  state: OneOf(ADVERTISING_STATES),
  sync_status: OneOf(SYNC_STATUSES),
  targeting: Targeting,
  daily_budget: Type.String(),
  default_bid: Type.String(),
  issues: Type.Array(IssueSchema),
  metrics_read_at: Nullable(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp,
});
const DaySchema = Named('AdvertisingDay', {
  date: Type.String(),
  impressions: Type.Integer(),
  clicks: Type.Integer(),
  spend: Type.String(),
  orders: Type.Integer(),
  sales: Type.String(),
});

const Params = Type.Object({ listing_id: Id });
const accepted = { 202: Ok(AdvertisingSchema) };

/** The services the routes use. */
export interface AdvertisingRoutesServices {
  readonly advertising: AdvertisingService;
}

export function registerAdvertisingRoutes(app: App, deps: AdvertisingRoutesServices) {
  const { advertising } = deps;

  app.post(
    '/listings/:listing_id/advertising',
    {
      config: { access: 'workspace', role: 'admin' },
      schema: {
        summary:
          'Advertise an active Amazon listing with Sponsored Products (202, state pending): a campaign, an ad group and a product ad per SKU in the profile of its marketplace',
        tags: ['advertising'],
        params: Params,
        body: Type.Object(
          {
            daily_budget: Money('The campaign’s daily budget'),
            default_bid: Money('What a click may cost at most, unless a keyword says otherwise'),
            targeting: Targeting,
          },
          { additionalProperties: false, examples: [{ daily_budget: '10.00', default_bid: '0.50', targeting: 'auto' }] },
        ),
        response: accepted,
      },
    },
    async (request, reply) =>
      reply.code(202).send(ok(await advertising.start(workspaceOf(request).id, request.params.listing_id, request.body, actorOf(request)))),
  );

  app.get(
    '/listings/:listing_id/advertising',
    {
      config: { access: 'workspace' },
      schema: {
        summary: 'The listing’s advertising (the latest, when it was ended and started again); 404 if it was never advertised',
        tags: ['advertising'],
        params: Params,
        response: { 200: Ok(AdvertisingSchema) },
      },
    },
    async (request) => ok(await advertising.get(workspaceOf(request).id, request.params.listing_id)),
  );

  app.patch(
    '/listings/:listing_id/advertising',
    {
      config: { access: 'workspace', role: 'admin' },
      schema: {
        summary: 'Change the daily budget or the default bid, or pause or resume the advertising (202)',
        tags: ['advertising'],
        params: Params,
        body: Type.Object(
          {
            daily_budget: Type.Optional(Money('The campaign’s daily budget')),
            default_bid: Type.Optional(Money('What a click may cost at most')),
            state: Type.Optional(OneOf(SELLER_AD_STATES, { description: 'A listing that is not live keeps its ads paused either way' })),
          },
          { additionalProperties: false, minProperties: 1 },
        ),
        response: accepted,
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(ok(await advertising.change(workspaceOf(request).id, request.params.listing_id, request.body, actorOf(request)))),
  );

  app.delete(
    '/listings/:listing_id/advertising',
    {
      config: { access: 'workspace', role: 'admin' },
      schema: {
        summary: 'End the advertising (202): the campaign is archived on Amazon, then the state is archived',
        tags: ['advertising'],
        params: Params,
        response: accepted,
      },
    },
    async (request, reply) =>
      reply.code(202).send(ok(await advertising.archive(workspaceOf(request).id, request.params.listing_id, actorOf(request)))),
  );

  app.get(
    '/listings/:listing_id/advertising/metrics',
    {
      config: { access: 'workspace' },
      schema: {
        summary:
          'The listing’s advertising figures per day Amazon reported, from `from` to `to` (inclusive; default the last 30 days, at most 366): counts as integers, money as decimal strings',
        tags: ['advertising'],
        params: Params,
        querystring: Type.Object({ from: Type.Optional(DateText), to: Type.Optional(DateText) }),
        response: { 200: Ok(Type.Array(DaySchema)) },
      },
    },
    async (request) => ok(await advertising.metrics(workspaceOf(request).id, request.params.listing_id, request.query)),
  );
}
