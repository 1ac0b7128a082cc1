/** POST /authenticate-site and the platforms' callbacks (seed §4, DESIGN §4). */

import type { FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import type { ConnectService } from '../core/connect/connect.service.js';
import type { CallbackOutcome } from '../core/connect/outcomes.js';
import { MAX_REDIRECT_URL_LENGTH } from '../core/connect/redirects.js';
import { AMAZON_REGIONS, callbackPath, PLATFORM_IDS, TRACKS } from '../domain/index.js';
import { firstValues } from '../lib/params.js';
import { type App, principalOf, workspaceOf } from './access.js';
import { renderRetryPage } from './retry-page.js';
import { Id, Ok, OneOf, ok } from './schemas.js';
import { pageHeaders } from './security-headers.js';

const AuthenticateSiteBody = Type.Object({
  platform_id: OneOf(PLATFORM_IDS, { description: '1 Etsy, 4 TikTok Shop, 5 Amazon (seller; advertising with site_id)' }),
  redirect_url: Type.Optional(
    Type.String({
      maxLength: MAX_REDIRECT_URL_LENGTH,
      description: 'Platforms 1 and 5: where the user is sent after the flow (http or https, no |, at most 2,048 characters)',
    }),
  ),
  authorization_url: Type.Optional(
    Type.String({ maxLength: 4096, description: 'Platform 4 only: the authorization link copied from TikTok Shop Partner Center' }),
  ),
  custom_field_value: Type.Optional(
    Type.String({ maxLength: 4096, description: 'Platform 4: URL;key=value;key=value, the redirect and tracking pairs' }),
  ),
  site_id: Type.Optional(Id),
  region: Type.Optional(
    Type.String({
      maxLength: 16,
      examples: ['EU'],
      description: `Platform 5 only: the Amazon region to connect in, ${AMAZON_REGIONS.join(', ')} (default NA; advertising defaults to the seller site's region). Ignored for other platforms`,
    }),
  ),
});

function wantsJson(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('application/json');
}

function sendOutcome(outcome: CallbackOutcome, request: FastifyRequest, reply: FastifyReply) {
  reply.header('cache-control', 'no-store');
  if (wantsJson(request)) {
    if (outcome.status === 200 && outcome.kind === 'redirect')
      return reply.send({ success: true, data: { site_id: outcome.siteId, redirect_url: outcome.to } });
    return reply.code(outcome.status).send({ success: false, code: outcome.status, message: outcome.message });
  }
  if (outcome.kind === 'retry')
    return reply.code(outcome.status).headers(pageHeaders(request)).type('text/html').send(renderRetryPage(outcome));
  return reply.redirect(outcome.to, 302);
}

/** The services the routes use. */
export interface ConnectRoutesServices {
  readonly connect: ConnectService;
}

export function registerConnectRoutes(app: App, deps: ConnectRoutesServices) {
  app.post(
    '/authenticate-site',
    {
      config: { access: 'workspace', role: 'admin' },
      schema: {
        summary: "The platform's authorization URL, carrying a signed state",
        tags: ['connect'],
        body: AuthenticateSiteBody,
        response: { 200: Ok(Type.Object({ url: Type.String() })) },
      },
    },
    async (request) => {
      const { user, jti } = principalOf(request);
      return ok(
        await deps.connect.startAuthorization({ userId: user.id, workspaceId: workspaceOf(request).id, tokenJti: jti }, request.body),
      );
    },
  );

  for (const track of TRACKS) {
    app.get(
      callbackPath(track),
      {
        config: { access: 'public' },
        schema: {
          summary: `Where ${track} sends the user back; answers with a redirect (JSON with Accept: application/json)`,
          tags: ['connect'],
          response: {
            200: Type.Object({
              success: Type.Literal(true),
              data: Type.Object({ site_id: Type.Union([Id, Type.Null()]), redirect_url: Type.String() }),
            }),
            302: Type.Null(),
          },
        },
      },
      async (request, reply) =>
        sendOutcome(await deps.connect.completeCallback(track, firstValues(request.query), request.ip), request, reply),
    );
  }
}
