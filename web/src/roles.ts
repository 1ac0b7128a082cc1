/**
 * The role table of DESIGN §12 (docs/workspaces.md, "Who may do what") as the dashboard applies it: each role is shown
 * only the actions it may take. The API has the last word; its refusals are turned into words here too.
 */
import { ApiError } from './api/client';

export type Role = 'owner' | 'admin' | 'member' | 'viewer';

export const ROLES: readonly Role[] = ['owner', 'admin', 'member', 'viewer'];

export const ROLE_LABEL: Record<Role, string> = { owner: 'Owner', admin: 'Admin', member: 'Member', viewer: 'Viewer' };

/** Create and change products, publish and change listings, sync orders: every role but a viewer, who only reads. */
export const canEdit = (role: Role) => role !== 'viewer';

/** Connect and disconnect sites, listing settings, webhooks, the audit log; invite, change roles, remove members. */
export const canManage = (role: Role) => role === 'owner' || role === 'admin';

/** Rename or delete the workspace, hand its ownership over. */
export const isOwner = (role: Role) => role === 'owner';

/** The roles `caller` may give a member whose role is `target` (none: no select): an admin never touches an owner. */
export function assignableRoles(caller: Role, target: Role): readonly Role[] {
  if (caller === 'owner') return ROLES;
  if (caller === 'admin' && target !== 'owner') return ['admin', 'member', 'viewer'];
  return [];
}

/** Whether `caller` may remove another member whose role is `target` (anyone may leave: that is not this). */
export const mayRemove = (caller: Role, target: Role) => caller === 'owner' || (caller === 'admin' && target !== 'owner');

/** The roles `caller` may invite someone with: an admin does not invite owners. */
export const invitableRoles = (caller: Role): readonly Role[] =>
  caller === 'owner' ? ROLES : caller === 'admin' ? ['admin', 'member', 'viewer'] : [];

/**
 * An API refusal said for a person. Every refusal by role is the API's fixed "Invalid workspace or access denied" (it
 * also means a workspace that is gone), so a 403 says what may have happened; a 409 or 422 already says it in words.
 */
export function refusalOf(error: unknown): Error {
  if (error instanceof ApiError && error.status === 403)
    return new Error(
      'Your role in this workspace does not allow this, or you are no longer a member of it. Reload the page to see what you can do now.',
    );
  return error as Error;
}
