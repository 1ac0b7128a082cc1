/** OAuth state: a signed JWT with the seed's claims plus a server-side record per `jti` (seed §2, DESIGN §4). */
import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../../db/client.js';
import * as statesRepo from '../../db/oauth-states.repo.js';
import type { AmazonRegion, PlatformId, Track } from '../../domain/index.js';
import type { Clock } from '../../lib/clock.js';
import type { CredentialsCipher } from '../../lib/credentials-cipher.js';
import { type JwtCodec, JwtError } from '../auth/jwt.js';

export const STATE_TTL_MS = 15 * 60 * 1000;

export interface StateInput {
  track: Track;
  platformId: PlatformId;
  userId: number;
  workspaceId: number;
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

  return {
    /** Signs a new state and stores its record; returns the state and the PKCE challenge when the platform takes one. */
    async create(input: StateInput): Promise<{ state: string; codeChallenge: string | null }> {
      const now = clock.now();
      const expiresAt = new Date(now.getTime() + STATE_TTL_MS);
      const jti = randomBytes(16).toString('base64url');
      const verifier = input.usesPkce ? randomBytes(32).toString('base64url') : null;
      const sealed = verifier ? cipher.seal(verifier, verifierContext(jti)) : null;
      // Abandoned flows leave records behind; clearing the expired ones here keeps the table at 15 minutes of flows.
      await statesRepo.deleteExpiredOAuthStates(db, now);
      await statesRepo.insertOAuthState(db, {
        jti,
        track: input.track,
        userId: input.userId,
        workspaceId: input.workspaceId,
        siteId: input.siteId,
        redirectUrl: input.redirectUrl,
        tracking: input.tracking,
        region: input.region,
        codeVerifierKeyId: sealed?.keyId ?? null,
        codeVerifier: sealed?.ciphertext ?? null,
        createdAt: now,
        expiresAt,
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
     * for another track, or already used, is invalid. Concurrent calls with one state: exactly one gets `ok`.
     */
    async consume(token: string | undefined, track: Track): Promise<StateCheck> {
      if (!token) return { ok: false, reason: 'invalid' };
      let jti: string;
      try {
        jti = (await jwt.verify('oauth-state', token)).jti;
      } catch (error) {
        if (error instanceof JwtError && error.reason === 'expired') {
          const redirect = error.expiredClaims?.redirect_url;
          return { ok: false, reason: 'expired', redirectUrl: typeof redirect === 'string' ? redirect : '' };
        }
        return { ok: false, reason: 'invalid' };
      }
      const row = await statesRepo.consumeOAuthState(db, jti, track);
      if (!row || row.expiresAt <= clock.now()) return { ok: false, reason: 'invalid' };
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
