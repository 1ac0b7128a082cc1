/** A site's platform tokens sealed for storage and opened for use; the seal is bound to the site and grant. */

import type { SealedCredentials } from '../../db/sites.repo.js';
import type { GrantKind } from '../../domain/index.js';
import type { CredentialsCipher } from '../../lib/credentials-cipher.js';
import type { TokenSet } from '../../platforms/contracts/connect.js';
import { nextRefreshAt, type RefreshPolicy } from './refresh-policy.js';

// The text bound to a seal predates the name `grant`; it must stay as it is, or stored credentials would not open.
const context = (siteId: number, grant: GrantKind) => `site:${siteId}:${grant}`;

/** The row to store for freshly obtained tokens, with its next refresh scheduled. */
export function sealTokens(
  cipher: CredentialsCipher,
  siteId: number,
  grant: GrantKind,
  tokens: TokenSet,
  now: Date,
  policy: RefreshPolicy,
): SealedCredentials {
  const sealed = cipher.seal(
    JSON.stringify({ access_token: tokens.accessToken, refresh_token: tokens.refreshToken }),
    context(siteId, grant),
  );
  return {
    ...sealed,
    accessExpiresAt: tokens.accessExpiresAt,
    refreshExpiresAt: tokens.refreshExpiresAt,
    nextRefreshAt: nextRefreshAt(tokens.accessExpiresAt, now, policy),
  };
}

export function openTokens(
  cipher: CredentialsCipher,
  row: { siteId: number; grant: GrantKind; keyId: string; ciphertext: string },
): { accessToken: string; refreshToken: string | null } {
  const opened = JSON.parse(cipher.open({ keyId: row.keyId, ciphertext: row.ciphertext }, context(row.siteId, row.grant))) as {
    access_token: string;
    refresh_token: string | null;
  };
  return { accessToken: opened.access_token, refreshToken: opened.refresh_token };
}
