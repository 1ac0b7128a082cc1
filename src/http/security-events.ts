/** Every 403 of an authenticated caller becomes a security event (docs/decisions.md, "Security events"). */
import { type DenialReason, deniedUserOf, type SecurityEvents } from '../core/auth/security-events.js';
import { parseWorkspaceId } from '../core/auth/tokens.service.js';
import { AppError } from '../errors.js';
import type { App } from './access.js';

/**
 * Fastify runs `onError` hooks before the error handler answers, so the event is recorded (or its recording has
 * failed and been logged) before the 403 leaves. A 403 with no authenticated caller (sign-up disabled) is no event.
 */
export function addSecurityEvents(app: App, security: SecurityEvents): void {
  app.addHook('onError', async (request, _reply, error) => {
    if (!(error instanceof AppError) || error.status !== 403) return;
    const userId = request.principal?.user.id ?? deniedUserOf(error);
    if (userId === null) return;
    const access = request.routeOptions.config.access;
    const header = request.headers['x-workspace-id'];
    const named = access === 'workspace' && typeof header === 'string' ? parseWorkspaceId(header) : null;
    let reason: DenialReason = 'role';
    if (!request.principal) reason = 'not_a_member';
    else if (access === 'session' && request.principal.kind !== 'session') reason = 'session_only';
    await security.accessDenied({
      userId,
      workspaceId: request.principal?.workspace?.id ?? named,
      reason,
      method: request.method,
      route: request.routeOptions.url ?? request.url.split('?')[0]!,
      ipAddress: request.ip,
    });
  });
}
