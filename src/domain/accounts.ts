/** Accounts and tokens (DESIGN §3, §7, §12). */

export const ROLES = ['owner', 'admin', 'member'] as const;
export type Role = (typeof ROLES)[number];

export const TOKEN_KINDS = ['session', 'pat'] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];
