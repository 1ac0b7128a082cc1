/** Platform credentials at rest: AES-256-GCM under ENCRYPTION_KEY, with a key id beside each ciphertext (DESIGN §7). */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

export interface Sealed {
  /** Which key sealed it: a digest of the key, so rotation can tell keys apart without revealing them. */
  keyId: string;
  /** base64url of iv (12 bytes) | tag (16 bytes) | ciphertext. */
  ciphertext: string;
}

export interface CredentialsCipher {
  seal(plaintext: string, context: string): Sealed;
  /** Throws when the key id is unknown or the ciphertext or its context was tampered with. */
  open(sealed: Sealed, context: string): string;
}

export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update('storelink credentials key id').update(key).digest('base64url').slice(0, 12);
}

/**
 * `context` is bound as additional authenticated data (for example `site:12:seller`), so a ciphertext copied to
 * another row does not decrypt there.
 */
export function createCredentialsCipher(currentKey: Buffer, previousKeys: readonly Buffer[] = []): CredentialsCipher {
  const currentId = keyIdOf(currentKey);
  const keys = new Map([currentKey, ...previousKeys].map((key) => [keyIdOf(key), key]));
  return {
    seal(plaintext, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', currentKey, iv);
      cipher.setAAD(Buffer.from(context));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return { keyId: currentId, ciphertext: Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url') };
    },
    open(sealed, context) {
      const key = keys.get(sealed.keyId);
      if (!key) throw new Error(`unknown credentials key id ${sealed.keyId}`);
      const raw = Buffer.from(sealed.ciphertext, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}
