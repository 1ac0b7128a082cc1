/** GET /audit-events: who connected, reconnected or disconnected a site, or created or revoked a token; newest first. */

import Type from 'typebox';
import type { SitesService } from '../core/sites/sites.service.js';
import { AUDIT_ACTIONS, AUDIT_SUBJECTS, type AuditAction } from '../domain/index.js';
import { type App, workspaceOf } from './access.js';
import { Dictionary, Id, iso, Named, OkPage, OneOf, okPage, PageQuery, pageOf, Timestamp, UserSchema } from './schemas.js';

const AuditEventSchema = Named('AuditEvent', {
  id: Id,
  action: Type.Unsafe<AuditAction>({ type: 'string', enum: [...AUDIT_ACTIONS] }),
  actor: Type.Union([UserSchema, Type.Null()], { description: 'Who did it; null once that user is deleted' }),
  subject: Type.Object({ type: OneOf(AUDIT_SUBJECTS), id: Id }),
  ip_address: Type.Union([Type.String(), Type.Null()]),
  details: Dictionary(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Null()])),
  created_at: Timestamp,
});

const AuditQuery = Type.Object({
  ...PageQuery.properties,
  action: Type.Optional(OneOf(AUDIT_ACTIONS)),
  subject_type: Type.Optional(OneOf(AUDIT_SUBJECTS)),
  actor_user_id: Type.Optional(Id),
});

/** The services the routes use. */
export interface AuditRoutesServices {
  readonly sites: Pick<SitesService, 'listAudit'>;
}

export function registerAuditRoutes(app: App, deps: AuditRoutesServices) {
  app.get(
    '/audit-events',
    {
      config: { access: 'workspace', role: 'admin' },
      schema: {
        summary: "The workspace's audit log, newest first (owners and admins)",
        description: 'Narrowed by `action`, `subject_type` and `actor_user_id` when given (all that are given must match).',
        tags: ['audit'],
        querystring: AuditQuery,
        response: { 200: OkPage(AuditEventSchema) },
      },
    },
    async (request) => {
      const { action, subject_type, actor_user_id } = request.query;
      const filter = { action, subjectType: subject_type, actorUserId: actor_user_id };
      const { rows, total } = await deps.sites.listAudit(workspaceOf(request).id, pageOf(request.query), filter);
      const events = rows.map((row) => ({
        id: row.id,
        action: row.action,
        actor: row.actor,
        subject: { type: row.subjectType, id: row.subjectId },
        ip_address: row.ipAddress,
        details: row.details,
        created_at: iso(row.createdAt),
      }));
      return okPage(events, total, request.query);
    },
  );
}
