/**
 * Security events (ASVS 5.0 16.3.1, 16.3.2; docs/decisions.md, "Security events"): failed logins and refused requests,
 * told to the operator in the log and to the workspaces concerned in their audit logs.
 */
import type { Logger } from 'pino';
import * as auditRepo from '../../db/audit.repo.js';
import type { Db } from '../../db/client.js';
import { AppError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { describeError } from '../../logger.js';

/** Why a request was refused: the caller is not in the workspace, their role does not allow it, or a PAT met a session-only route. */
export type DenialReason = 'not_a_member' | 'role' | 'session_only';

export interface AccessDenied {
  userId: number;
  /** The workspace the request was for; null when it named none (or a route has none). */
  workspaceId: number | null;
  reason: DenialReason;
  method: string;
  route: string;
  ipAddress: string | null;
}

export interface SecurityEvents {
  /**
   * A wrong password, or an e-mail that names no account (userId null). Logged at warn; for an account, recorded in
   * each of its workspaces after the answer, so answering takes no longer for an account than for none.
   */
  loginFailed(event: { userId: number | null; ipAddress: string | null }): void;
  /** A refused request: logged at warn, and recorded in the workspace's audit log at most once a minute per user. */
  accessDenied(event: AccessDenied): Promise<void>;
}

/** One audit entry per user and workspace in this time: a caller retrying in a loop cannot flood a workspace's log. */
export const DENIAL_RECORD_INTERVAL_MS = 60_000;
const MAX_REMEMBERED_DENIALS = 10_000;

export function createSecurityEvents(deps: { db: Db; clock: Clock; logger: Pick<Logger, 'warn' | 'error'> }): SecurityEvents {
  const { db, clock, logger } = deps;
  const lastRecorded = new Map<string, number>();

  /** Whether a denial of this user in this workspace is to be recorded now; a bounded memory of the last ones. */
  function due(key: string, nowMs: number): boolean {
    const last = lastRecorded.get(key);
    if (last !== undefined && nowMs - last < DENIAL_RECORD_INTERVAL_MS) return false;
    if (lastRecorded.size >= MAX_REMEMBERED_DENIALS) lastRecorded.clear();
    lastRecorded.set(key, nowMs);
    return true;
  }

  return {
    loginFailed({ userId, ipAddress }) {
      logger.warn({ userId, ip: ipAddress }, 'login failed');
      if (userId === null) return;
      const at = clock.now();
      const entry = { action: 'auth.login_failed' as const, actorUserId: null, subjectType: 'user' as const, subjectId: userId, ipAddress };
      auditRepo
        .workspaceIdsOfUser(db, userId)
        .then((workspaceIds) => auditRepo.recordAudit(db, workspaceIds, entry, at))
        .catch((error) => logger.error({ err: describeError(error), userId }, 'could not record a failed login'));
    },

    async accessDenied(event) {
      const { userId, workspaceId, reason, method, route, ipAddress } = event;
      logger.warn({ userId, workspaceId, reason, method, route, ip: ipAddress }, 'access denied');
      const now = clock.now();
      if (workspaceId === null || !due(`${userId}:${workspaceId}`, now.getTime())) return;
      const entry = {
        action: 'authz.denied' as const,
        actorUserId: userId,
        subjectType: 'user' as const,
        subjectId: userId,
        ipAddress,
        details: { reason, method, route },
      };
      // A refusal stays a 403 whatever happens to its record.
      await auditRepo
        .recordAuditIfWorkspaceExists(db, workspaceId, entry, now)
        .catch((error) => logger.error({ err: describeError(error), userId, workspaceId }, 'could not record a refused request'));
    },
  };
}

/** The 403 for a good bearer whose user may not use the asked workspace; it names the user for the security event. */
export function workspaceDenied(userId: number): AppError {
  return new AppError('forbidden', { cause: { deniedUserId: userId } });
}

/** The user a 403 of workspaceDenied names, or null. */
export function deniedUserOf(error: AppError): number | null {
  const cause = error.cause as { deniedUserId?: unknown } | undefined;
  return typeof cause?.deniedUserId === 'number' ? cause.deniedUserId : null;
}
