/** Personal access tokens: create (value shown once), list (never the value), revoke. Session tokens only (DESIGN §3). */

import Type from 'typebox';
import type { TokenRecord, TokensService } from '../core/auth/tokens.service.js';
import { PAT_EXPIRY_DAYS } from '../core/auth/tokens.service.js';
import { type App, principalOf } from './access.js';
import { Id, iso, Named, NameField, NullableTimestamp, Ok, OkPage, ok, okPage, PageQuery, pageOf, Timestamp } from './schemas.js';

const TokenSchema = Named('PersonalAccessToken', {
  id: Id,
  name: Type.String(),
  created_at: Timestamp,
  expires_at: Type.Union([Timestamp, Type.Null()], { description: 'null: never expires' }),
  last_used_at: NullableTimestamp,
});

const ExpiresInDays = Type.Union([...PAT_EXPIRY_DAYS.map((days) => Type.Literal(days)), Type.Null()], {
  description: 'Days until the token expires: 7, 30, 60, 90 or 365; null for a token that never expires',
});

function present(record: TokenRecord) {
  return {
    id: record.id,
    name: record.name ?? '',
    created_at: iso(record.createdAt),
    expires_at: iso(record.expiresAt),
    last_used_at: iso(record.lastUsedAt),
  };
}

/** The services the routes use. */
export interface TokenRoutesServices {
  readonly tokens: TokensService;
}

export function registerTokenRoutes(app: App, deps: TokenRoutesServices) {
  const { tokens } = deps;

  app.get(
    '/personal-access-tokens',
    {
      config: { access: 'session' },
      schema: {
        summary: 'List your personal access tokens (never their values)',
        tags: ['tokens'],
        querystring: PageQuery,
        response: { 200: OkPage(TokenSchema) },
      },
    },
    async (request) => {
      const { rows, total } = await tokens.listPersonalTokens(principalOf(request).user.id, pageOf(request.query));
      return okPage(rows.map(present), total, request.query);
    },
  );

  app.post(
    '/personal-access-tokens',
    {
      config: { access: 'session' },
      schema: {
        summary: 'Create a personal access token; its value is in this response only',
        tags: ['tokens'],
        body: Type.Object({ name: NameField, expires_in_days: ExpiresInDays }),
        response: {
          201: Ok(
            Type.Object({ ...TokenSchema.properties, token: Type.String({ description: 'The token value. It cannot be shown again.' }) }),
          ),
        },
      },
    },
    async (request, reply) => {
      const { token, record } = await tokens.createPersonalToken(
        principalOf(request).user.id,
        { name: request.body.name.trim(), expiresInDays: request.body.expires_in_days },
        request.ip,
      );
      return reply.code(201).send(ok({ ...present(record), token }));
    },
  );

  app.delete(
    '/personal-access-tokens/:id',
    {
      config: { access: 'session' },
      schema: {
        summary: 'Revoke a personal access token',
        tags: ['tokens'],
        params: Type.Object({ id: Id }),
        response: { 200: Ok(Type.Null()) },
      },
    },
    async (request) => {
      await tokens.revokePersonalToken(principalOf(request).user.id, request.params.id, request.ip);
      return ok(null);
    },
  );
}
