/** Accounts and tokens (DESIGN §3, §7, §12). */

export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

const RANK: Readonly<Record<Role, number>> = { viewer: 0, member: 1, admin: 2, owner: 3 };

/**
 * Whether `role` may do what `needed` may: an owner all an admin may, an admin all a member may, a member all a viewer
 * may (DESIGN §12; a viewer reads and changes nothing).
 */
export const roleReaches = (role: Role, needed: Role) => RANK[role] >= RANK[needed];

export const TOKEN_KINDS = ['session', 'pat'] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];

/** Who did something, for the audit log: a user (null for work done on their behalf after they left) and their address. */
export interface Actor {
  readonly userId: number | null;
  readonly ipAddress: string | null;
}
