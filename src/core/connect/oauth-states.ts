/** OAuth state: a signed JWT with the seed's claims plus a server-side record per `jti` (seed §2, DESIGN §4). */
import { createHash, randomBytes } from 'node:crypto';
import { lockWorkspace } from '../../db/accounts.repo.js';
import type { Db } from '../../db/client.js';
import * as statesRepo from '../../db/oauth-states.repo.js';
import {
  type AmazonRegion,
  EXPIRED_STATE_REDIRECT_MS,
  MAX_PENDING_STATES_PER_WORKSPACE,
  type PlatformId,
  type Track,
} from '../../domain/index.js';
import { AppError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { CredentialsCipher } from '../../lib/credentials-cipher.js';
import { type JwtCodec, JwtError } from '../auth/jwt.js';

export const STATE_TTL_MS = 15 * 60 * 1000;

export interface StateInput {
  track: Track;
  platformId: PlatformId;
  userId: number;
  workspaceId: number;
  /** The `jti` of the session or PAT that asks: revoking it cancels the state. */
  tokenJti: string | null;
  siteId: number | null;
  /** The effective custom redirect, '' when none. */
  redirectUrl: string;
  tracking: Record<string, string>;
  /** Amazon: the region the connection is made in; null elsewhere. */
  region: AmazonRegion | null;
  usesPkce: boolean;
}

/** What a verified, consumed state stands for. */
export interface ConsumedState {
  track: Track;
  userId: number;
  workspaceId: number;
  tokenJti: string | null;
  siteId: number | null;
  redirectUrl: string;
  tracking: Record<string, string>;
  region: AmazonRegion | null;
  codeVerifier: string | null;
}

export type StateCheck =
  | { ok: true; state: ConsumedState }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'expired'; redirectUrl: string };

export type OAuthStates = ReturnType<typeof createOAuthStates>;

export function createOAuthStates(deps: { db: Db; jwt: JwtCodec; clock: Clock; cipher: CredentialsCipher }) {
  const { db, jwt, clock, cipher } = deps;
  const verifierContext = (jti: string) => `oauth-state:${jti}`;

  /**
   * A workspace has at most MAX_PENDING_STATES_PER_WORKSPACE authorizations in progress (docs/decisions.md, "Abuse
   * limits"): beyond, 429 until the first of them expires. The workspace's row is held till commit, so none races past.
   */
  async function checkStateRoom(tx: Db, workspaceId: number, now: Date): Promise<void> {
    await lockWorkspace(tx, workspaceId);
    const { pending, firstExpiry } = await statesRepo.countPendingOAuthStates(tx, workspaceId, now);
    if (pending < MAX_PENDING_STATES_PER_WORKSPACE) return;
    const wait = Math.max(1, Math.ceil(((firstExpiry?.getTime() ?? now.getTime() + STATE_TTL_MS) - now.getTime()) / 1000));
    throw new AppError('rate_limited', {
      message: `This workspace has ${MAX_PENDING_STATES_PER_WORKSPACE} authorizations in progress, the most allowed within 15 minutes. Try again later.`,
      headers: { 'retry-after': String(wait) },
    });
  }

  /**
   * A genuine state past its expiry names its signed redirect_url for a day more; after that the expired answer goes
   * to the dashboard, so a state does not stay an open redirect on this origin for as long as APP_SECRET lives (M2).
   */
  function expired(error: JwtError): StateCheck {
    const { redirect_url: redirect, exp } = error.expiredClaims ?? {};
    const longPast = typeof exp !== 'number' || clock.nowMs() - exp * 1000 > EXPIRED_STATE_REDIRECT_MS;
    return { ok: false, reason: 'expired', redirectUrl: !longPast && typeof redirect === 'string' ? redirect : '' };
  }

  return {
    /** Signs a new state and stores its record; returns the state and the PKCE challenge when the platform takes one. */
    async create(input: StateInput): Promise<{ state: string; codeChallenge: string | null }> {
      const now = clock.now();
      const expiresAt = new Date(now.getTime() + STATE_TTL_MS);
      const jti = randomBytes(16).toString('base64url');
      const verifier = input.usesPkce ? randomBytes(32).toString('base64url') : null;
      const sealed = verifier ? cipher.seal(verifier, verifierContext(jti)) : null;
      await db.transaction(async (tx) => {
        await checkStateRoom(tx, input.workspaceId, now);
        // Abandoned flows leave records behind; clearing the expired ones here keeps the table at 15 minutes of flows.
        await statesRepo.deleteExpiredOAuthStates(tx, now);
        await statesRepo.insertOAuthState(tx, {
          jti,
          track: input.track,
          userId: input.userId,
          workspaceId: input.workspaceId,
          tokenJti: input.tokenJti,
          siteId: input.siteId,
          redirectUrl: input.redirectUrl,
          tracking: input.tracking,
          region: input.region,
          codeVerifierKeyId: sealed?.keyId ?? null,
          codeVerifier: sealed?.ciphertext ?? null,
          createdAt: now,
          expiresAt,
        });
      });
      const claims = {
        sub: String(input.userId),
        jti,
        user_id: input.userId,
        platform_id: input.platformId,
        wp_id: input.workspaceId,
        redirect_url: input.redirectUrl,
        ...(input.siteId !== null ? { site_id: input.siteId } : {}),
      };
      const state = await jwt.sign('oauth-state', claims, expiresAt);
      return { state, codeChallenge: verifier ? createHash('sha256').update(verifier).digest('base64url') : null };
    },

    /**
     * Verifies signature, typ, aud and algorithm, then expiry, then consumes the record for this track: a state made
     * for another track, or already used, is invalid, and so is one whose token was revoked or whose user left the
     * workspace since (it is used up all the same). Concurrent calls with one state: exactly one gets `ok`.
     */
    async consume(token: string | undefined, track: Track): Promise<StateCheck> {
      if (!token) return { ok: false, reason: 'invalid' };
      let jti: string;
      try {
        jti = (await jwt.verify('oauth-state', token)).jti;
      } catch (error) {
        if (error instanceof JwtError && error.reason === 'expired') return expired(error);
        return { ok: false, reason: 'invalid' };
      }
      const row = await statesRepo.consumeOAuthState(db, jti, track);
      if (!row || row.expiresAt <= clock.now()) return { ok: false, reason: 'invalid' };
      if (!(await statesRepo.isStateStillAuthorized(db, row))) return { ok: false, reason: 'invalid' };
      const codeVerifier =
        row.codeVerifier && row.codeVerifierKeyId
          ? cipher.open({ keyId: row.codeVerifierKeyId, ciphertext: row.codeVerifier }, verifierContext(jti))
          : null;
      return {
        ok: true,
        state: {
          track,
          userId: row.userId,
          workspaceId: row.workspaceId,
          tokenJti: row.tokenJti,
          siteId: row.siteId,
          redirectUrl: row.redirectUrl,
          tracking: row.tracking,
          region: row.region,
          codeVerifier,
        },
      };
    },
  };
}
