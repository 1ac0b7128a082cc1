/** JWT signing keys derived from APP_SECRET, each with a `kid`, so secrets can rotate (DESIGN §7). */
import { createHash, createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';

export interface SigningKey {
  readonly kid: string;
  readonly key: KeyObject;
}

export interface Keyring {
  /** The key new tokens are signed with. */
  readonly current: SigningKey;
  /** The key for a `kid` (current or previous), or undefined for an unknown one. */
  find(kid: string | undefined): KeyObject | undefined;
}

/** HKDF-SHA256 from the secret to a 256-bit HMAC key; the kid is a digest of the key, so it reveals nothing of it. */
export function deriveSigningKey(secret: string): SigningKey {
  const raw = Buffer.from(hkdfSync('sha256', secret, 'storelink', 'jwt HS256 v1', 32));
  const kid = createHash('sha256').update(raw).digest('base64url').slice(0, 16);
  return { kid, key: createSecretKey(raw) };
}

/** The current secret signs; the previous ones still verify. */
export function createKeyring(secret: string, previousSecrets: readonly string[] = []): Keyring {
  const current = deriveSigningKey(secret);
  const byKid = new Map([current, ...previousSecrets.map(deriveSigningKey)].map((k) => [k.kid, k.key]));
  return { current, find: (kid) => (kid === undefined ? undefined : byKid.get(kid)) };
}
