/**
 * The three kinds of JWT the service issues, never interchangeable: each has its own `typ` header and `aud` claim,
 * and verification allows exactly HS256 (DESIGN §7).
 */
import { decodeProtectedHeader, errors, type JWTPayload, jwtVerify, SignJWT } from 'jose';
import type { Clock } from '../../lib/clock.js';
import type { Keyring } from './keys.js';

export type JwtKind = 'session' | 'pat' | 'oauth-state';

const ALGORITHM = 'HS256';
const ISSUER = 'storelink';
const TYP: Record<JwtKind, string> = { session: 'session+jwt', pat: 'pat+jwt', 'oauth-state': 'oauth-state+jwt' };
const AUDIENCE: Record<JwtKind, string> = { session: 'storelink:session', pat: 'storelink:pat', 'oauth-state': 'storelink:oauth-state' };

/** `expired` is told apart only when the signature is good, so a forged token can never claim to be merely expired. */
export type JwtFailure = 'invalid' | 'expired';

export class JwtError extends Error {
  /** The claims of an expired token, whose signature was good: what an expired OAuth state still tells (its redirect_url). */
  readonly expiredClaims: JWTPayload | null;

  constructor(
    readonly reason: JwtFailure,
    expiredClaims: JWTPayload | null = null,
  ) {
    super(`JWT ${reason}`);
    this.name = 'JwtError';
    this.expiredClaims = expiredClaims;
  }
}

export interface JwtCodec {
  sign(kind: JwtKind, claims: JWTPayload & { sub: string; jti: string }, expiresAt: Date | null): Promise<string>;
  /** Verifies signature, algorithm, kid, typ, aud, iss and expiry; throws JwtError. */
  verify(kind: JwtKind, token: string): Promise<JWTPayload & { sub: string; jti: string }>;
  /** The kind a token's header claims to be, before any verification: only for choosing what to verify it as. */
  claimedKind(token: string): JwtKind | null;
}

export function createJwtCodec(keyring: Keyring, clock: Clock): JwtCodec {
  return {
    async sign(kind, claims, expiresAt) {
      const jwt = new SignJWT(claims)
        .setProtectedHeader({ alg: ALGORITHM, typ: TYP[kind], kid: keyring.current.kid })
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE[kind])
        .setIssuedAt(clock.now());
      if (expiresAt) jwt.setExpirationTime(expiresAt);
      return jwt.sign(keyring.current.key);
    },

    async verify(kind, token) {
      try {
        const { payload } = await jwtVerify(
          token,
          (header) => {
            const key = keyring.find(header.kid);
            if (!key) throw new JwtError('invalid');
            return key;
          },
          {
            algorithms: [ALGORITHM],
            typ: TYP[kind],
            audience: AUDIENCE[kind],
            issuer: ISSUER,
            currentDate: clock.now(),
            clockTolerance: 0,
          },
        );
        if (typeof payload.sub !== 'string' || typeof payload.jti !== 'string') throw new JwtError('invalid');
        return payload as JWTPayload & { sub: string; jti: string };
      } catch (error) {
        if (error instanceof errors.JWTExpired) throw new JwtError('expired', error.payload);
        throw new JwtError('invalid');
      }
    },

    claimedKind(token) {
      try {
        const typ = decodeProtectedHeader(token).typ;
        return (Object.keys(TYP) as JwtKind[]).find((kind) => TYP[kind] === typ) ?? null;
      } catch {
        return null;
      }
    },
  };
}
