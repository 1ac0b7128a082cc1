/**
 * The simulators' codes and tokens: self-contained and HMAC-signed with a key derived from APP_SECRET, so any
 * instance of the service can check what another one issued. Codes are single use within a process.
 */
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

export interface SandboxTokens {
  /** `<payload>~<mac>`, both base64url (which has no `~` or `.`), so it also fits Etsy's `<user_id>.<token>` shape. */
  issue(kind: string, claims: Record<string, unknown>, expiresAt: Date): string;
  /** The claims of a token of this kind that is genuine and unexpired; null otherwise. */
  read(kind: string, token: string, now: Date): Record<string, unknown> | null;
  /** True the first time it is called for a nonce (until `expiresAt`), false after. */
  useOnce(nonce: string, expiresAt: Date, now: Date): boolean;
  nonce(): string;
}

export function createSandboxTokens(appSecret: string): SandboxTokens {
  const key = Buffer.from(hkdfSync('sha256', appSecret, 'storelink', 'sandbox tokens v1', 32));
  const used = new Map<string, number>();
  const mac = (text: string) => createHmac('sha256', key).update(text).digest();

  return {
    issue(kind, claims, expiresAt) {
      const payload = Buffer.from(JSON.stringify({ ...claims, k: kind, x: expiresAt.getTime() })).toString('base64url');
      return `${payload}~${mac(payload).toString('base64url')}`;
    },
    read(kind, token, now) {
      const [payload, signature, extra] = token.split('~');
      if (!payload || !signature || extra !== undefined) return null;
      const expected = mac(payload);
      const given = Buffer.from(signature, 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
      return claims.k === kind && typeof claims.x === 'number' && claims.x > now.getTime() ? claims : null;
    },
    useOnce(nonce, expiresAt, now) {
      for (const [seen, until] of used) if (until <= now.getTime()) used.delete(seen);
      if (used.has(nonce)) return false;
      used.set(nonce, expiresAt.getTime());
      return true;
    },
    nonce: () => randomBytes(12).toString('base64url'),
  };
}
