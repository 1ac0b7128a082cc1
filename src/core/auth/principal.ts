/** Who a request acts as, and in which workspace: what authentication produces and every service reads. */
import type { Role, TokenKind } from '../../domain/index.js';

export interface Principal {
  readonly kind: TokenKind;
  readonly tokenId: number;
  readonly jti: string;
  readonly user: { readonly id: number; readonly email: string; readonly name: string };
  /** The workspace of the X-Workspace-Id header, when the route asked for one. */
  readonly workspace: { readonly id: number; readonly name: string; readonly role: Role } | null;
}
