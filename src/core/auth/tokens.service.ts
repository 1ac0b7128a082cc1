/** Sessions and personal access tokens: issue, list, revoke, and authenticate a bearer (DESIGN §3, §7). */
import { randomBytes } from 'node:crypto';
import { lockUser } from '../../db/accounts.repo.js';
import * as auditRepo from '../../db/audit.repo.js';
import type { Db } from '../../db/client.js';
import * as tokensRepo from '../../db/tokens.repo.js';
import { MAX_ACTIVE_PATS_PER_USER, type TokenKind } from '../../domain/index.js';
import { AppError, invalidField } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { AuthCache } from './auth-cache.js';
import type { JwtCodec } from './jwt.js';
import type { Principal } from './principal.js';
import { workspaceDenied } from './security-events.js';
import type { UsageRecorder } from './token-usage.js';

/** A token's record: never its value. */
export type TokenRecord = tokensRepo.TokenRecord;

export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
export const PAT_EXPIRY_DAYS = [7, 30, 60, 90, 365] as const;
export type PatExpiryDays = (typeof PAT_EXPIRY_DAYS)[number] | null;
const DAY_MS = 24 * 60 * 60 * 1000;
const MAX_INT4 = 2_147_483_647;

export interface IssuedToken {
  token: string;
  record: tokensRepo.TokenRecord;
}

export type TokensService = ReturnType<typeof createTokensService>;

export function createTokensService(deps: { db: Db; jwt: JwtCodec; clock: Clock; usage: UsageRecorder; cache: AuthCache }) {
  const { db, jwt, clock, usage, cache } = deps;

  /**
   * `lifetimeMs` null: the token never expires. Creation and expiry come from one reading of the clock. A personal
   * access token's creation is written to the audit log of every workspace it reaches, in the same transaction.
   */
  async function issue(
    userId: number,
    kind: TokenKind,
    name: string | null,
    lifetimeMs: number | null,
    ipAddress: string | null = null,
  ): Promise<IssuedToken> {
    const jti = randomBytes(16).toString('base64url');
    const createdAt = clock.now();
    const expiresAt = lifetimeMs === null ? null : new Date(createdAt.getTime() + lifetimeMs);
    const record = await db.transaction(async (tx) => {
      if (kind === 'pat') await checkPatRoom(tx, userId, createdAt);
      const inserted = await tokensRepo.insertToken(tx, { userId, kind, name, jti, createdAt, expiresAt });
      if (kind === 'pat') {
        const audit = {
          action: 'token.created' as const,
          actorUserId: userId,
          subjectType: 'token' as const,
          subjectId: inserted.id,
          ipAddress,
          details: { name },
        };
        await auditRepo.recordAudit(tx, await auditRepo.workspaceIdsOfUser(tx, userId), audit, createdAt);
      }
      return inserted;
    });
    const token = await jwt.sign(kind, { sub: String(userId), jti }, expiresAt);
    return { token, record };
  }

  /** A user holds at most MAX_ACTIVE_PATS_PER_USER live PATs (docs/decisions.md, "Abuse limits"); their row is held till commit. */
  async function checkPatRoom(tx: Db, userId: number, now: Date): Promise<void> {
    await lockUser(tx, userId);
    if ((await tokensRepo.countActivePersonalTokens(tx, userId, now)) < MAX_ACTIVE_PATS_PER_USER) return;
    throw invalidField(
      'personal_access_tokens',
      `You already have ${MAX_ACTIVE_PATS_PER_USER} active personal access tokens, the most allowed: revoke one you no longer use first.`,
    );
  }

  return {
    /** A dashboard session, valid 12 hours. */
    issueSession: (userId: number) => issue(userId, 'session', null, SESSION_TTL_MS),

    /** A personal access token; `expiresInDays` null means it never expires. */
    createPersonalToken: (userId: number, input: { name: string; expiresInDays: PatExpiryDays }, ipAddress: string | null = null) =>
      issue(userId, 'pat', input.name, input.expiresInDays === null ? null : input.expiresInDays * DAY_MS, ipAddress),

    listPersonalTokens: (userId: number, page: { limit: number; offset: number }) => tokensRepo.listPersonalTokens(db, userId, page),

    /** Revokes one of the user's PATs; 404 when it is not theirs or already revoked. */
    async revokePersonalToken(userId: number, id: number, ipAddress: string | null = null): Promise<void> {
      const now = clock.now();
      await db.transaction(async (tx) => {
        if (!(await tokensRepo.revokeToken(tx, { userId, kind: 'pat', id }, now))) throw new AppError('not_found');
        const audit = { action: 'token.revoked' as const, actorUserId: userId, subjectType: 'token' as const, subjectId: id, ipAddress };
        await auditRepo.recordAudit(tx, await auditRepo.workspaceIdsOfUser(tx, userId), audit, now);
      });
      // The database notifies every instance; this one need not wait for it.
      cache.invalidate({ userId });
    },

    async revokeSession(principal: Principal): Promise<void> {
      await tokensRepo.revokeToken(db, { userId: principal.user.id, kind: 'session', jti: principal.jti }, clock.now());
      cache.invalidate({ userId: principal.user.id });
    },

    /**
     * Turns an Authorization header and an X-Workspace-Id header into a Principal, in the order the seed sets:
     * any token problem is 401 before any workspace problem is 403. A bearer already seen is answered from the
     * cache, synchronously (no round trip, no signature check, no promise); otherwise one database round trip.
     * Throws, or rejects, with 401 or 403.
     */
    authenticate(
      authorization: string | undefined,
      workspaceHeader: string | undefined,
      needsWorkspace: boolean,
    ): Principal | Promise<Principal> {
      if (authorization === undefined) throw new AppError('unauthenticated');
      // No Date is made for a cached bearer: that cost a warm request about 2 % of its CPU (BENCHMARKS.md).
      const nowMs = clock.nowMs();
      // The same header values as a bearer verified before are the same bearer: answered without parsing them again.
      const workspaceKey = needsWorkspace ? (workspaceHeader ?? '') : null;
      const cached = cache.get(authorization, workspaceKey, nowMs);
      if (cached) {
        usage.touch(cached.tokenId, nowMs);
        return cached;
      }
      const token = parseBearer(authorization);
      if (!token) throw new AppError('unauthenticated');
      const workspaceId = needsWorkspace ? parseWorkspaceId(workspaceHeader) : null;
      const generation = cache.generation();
      return verifyBearer(token, workspaceId, needsWorkspace, new Date(nowMs)).then(({ principal, expiresAt }) => {
        // A missing or malformed workspace header never gets this far (verifyBearer refuses it), so is never cached.
        cache.set(authorization, workspaceKey, principal, expiresAt, generation);
        usage.touch(principal.tokenId, nowMs);
        return principal;
      });
    },
  };

  /** Every check of a bearer: signature, kind, record, revocation, expiry, and membership of the asked workspace. */
  async function verifyBearer(
    token: string,
    workspaceId: number | null,
    needsWorkspace: boolean,
    now: Date,
  ): Promise<{ principal: Principal; expiresAt: Date | null }> {
    const kind = jwt.claimedKind(token);
    if (kind !== 'session' && kind !== 'pat') throw new AppError('unauthenticated');
    const claims = await jwt.verify(kind, token).catch(() => {
      throw new AppError('unauthenticated');
    });
    const context = await tokensRepo.findBearerContext(db, claims.jti, workspaceId);
    if (
      !context ||
      context.kind !== kind ||
      String(context.userId) !== claims.sub ||
      context.revokedAt !== null ||
      (context.expiresAt !== null && context.expiresAt <= now)
    ) {
      throw new AppError('unauthenticated');
    }
    if (needsWorkspace && !context.workspace) throw workspaceDenied(context.userId);
    const principal: Principal = {
      kind,
      tokenId: context.tokenId,
      jti: claims.jti,
      user: { id: context.userId, email: context.email, name: context.userName },
      workspace: context.workspace,
    };
    return { principal, expiresAt: context.expiresAt };
  }
}

/** The token of `Bearer <token>` (scheme case-insensitive, RFC 6750 §2.1), or null. */
export function parseBearer(header: string | undefined): string | null {
  const match = header?.match(/^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i);
  return match?.[1] ?? null;
}

/** A positive 32-bit integer workspace id, or null for anything else (missing, signed, decimal, too large). */
export function parseWorkspaceId(header: string | undefined): number | null {
  if (!header || !/^[1-9][0-9]{0,9}$/.test(header.trim())) return null;
  const id = Number(header.trim());
  return id <= MAX_INT4 ? id : null;
}
