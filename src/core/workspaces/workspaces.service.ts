/**
 * Workspaces and their members (DESIGN §12): create, rename, delete; members listed, their roles changed, removed;
 * invitations by link. Who may do what is the role table of §12, checked here against the caller's membership of the
 * workspace named in the path. A workspace always keeps an owner: the checks that could take its last one run with the
 * workspace's row locked, so two owners stepping down at once cannot both succeed.
 * A member removed, or whose role changed, is held to it by the next request on this instance (its authentication cache
 * is told at once) and on every other within a second (the memberships trigger of migration 0005 tells theirs).
 */
import { createHash, randomBytes } from 'node:crypto';
import * as accountsRepo from '../../db/accounts.repo.js';
import * as auditRepo from '../../db/audit.repo.js';
import type { Db } from '../../db/client.js';
import * as workspacesRepo from '../../db/workspaces.repo.js';
import { type AuditAction, type AuditSubject, type Actor as DomainActor, type Role, roleReaches } from '../../domain/index.js';
import { AppError, invalidField } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { AuthCache } from '../auth/auth-cache.js';

/** How long an invitation's link can be used (DESIGN §12). */
export const INVITATION_TTL_MS = 7 * 24 * 3600_000;

const LAST_OWNER = 'A workspace keeps at least one owner: make another member owner first.';

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

/** A signed-in user acting on workspaces (never work done on someone's behalf). */
type Actor = DomainActor & { readonly userId: number };

export type WorkspacesService = ReturnType<typeof createWorkspacesService>;

export function createWorkspacesService(deps: {
  db: Db;
  clock: Clock;
  appUrl: string;
  cache: Pick<AuthCache, 'invalidate'>;
  /** Mails the invitation's link to the invitee, in the invitation's transaction (or logs that no mail was sent). */
  /** Queues the invitation's mail in the transaction: true when the server sends e-mail (SMTP_URL), false when not. */
  mailInvitation: (tx: Db, invitationId: number, url: string) => Promise<boolean>;
}) {
  const { db, clock, cache } = deps;
  const urlOf = (token: string) => `${deps.appUrl}/invite/${token}`;

  /** The caller's role in the workspace, when it reaches `needed`; 403 otherwise, a non-member as much as a member. */
  async function roleAtLeast(workspaceId: number, actor: Actor, needed: Role, tx: Db = db): Promise<Role> {
    const role = await workspacesRepo.roleOf(tx, workspaceId, actor.userId);
    if (!role || !roleReaches(role, needed)) throw new AppError('forbidden');
    return role;
  }

  async function audit(
    tx: Db,
    workspaceId: number,
    actor: Actor,
    action: AuditAction,
    subject: { type: AuditSubject; id: number },
    details: Record<string, string | number | null>,
  ) {
    const entry = {
      action,
      actorUserId: actor.userId,
      subjectType: subject.type,
      subjectId: subject.id,
      ipAddress: actor.ipAddress,
      details,
    };
    await auditRepo.recordAudit(tx, [workspaceId], entry, clock.now());
  }

  /** The member `userId` of the workspace; 404 when they are not one. */
  async function memberOf(tx: Db, workspaceId: number, userId: number) {
    const member = await workspacesRepo.findMember(tx, workspaceId, userId);
    if (!member) throw new AppError('not_found');
    return member;
  }

  /** Fails when the workspace would be left without an owner by taking `userId`'s ownership (the row is locked first). */
  async function keepAnOwner(tx: Db, workspaceId: number, member: { role: Role }) {
    if (member.role !== 'owner') return;
    if ((await workspacesRepo.countOwners(tx, workspaceId)) <= 1) throw new AppError('conflict', { message: LAST_OWNER });
  }

  const presentInvitation = (row: workspacesRepo.InvitationRow) => ({
    id: row.id,
    email: row.email,
    role: row.role,
    expires_at: row.expiresAt.toISOString(),
    created_at: row.createdAt.toISOString(),
  });

  return {
    /** A new workspace, its creator its owner. */
    async create(name: string, actor: Actor) {
      return db.transaction(async (tx) => {
        const workspace = await workspacesRepo.insertWorkspace(tx, name, actor.userId, clock.now());
        await audit(tx, workspace.id, actor, 'workspace.created', { type: 'workspace', id: workspace.id }, { name });
        return workspace;
      });
    },

    /** Owners only. */
    async rename(workspaceId: number, name: string, actor: Actor) {
      const role = await roleAtLeast(workspaceId, actor, 'owner');
      const renamed = await db.transaction(async (tx) => {
        const before = await workspacesRepo.findWorkspace(tx, workspaceId);
        await workspacesRepo.renameWorkspace(tx, workspaceId, name, clock.now());
        await audit(
          tx,
          workspaceId,
          actor,
          'workspace.renamed',
          { type: 'workspace', id: workspaceId },
          { from: before?.name ?? null, to: name },
        );
        return { id: workspaceId, name, role };
      });
      cache.invalidate({ workspaceId });
      return renamed;
    },

    /**
     * Owners only, confirmed by the workspace's name: its sites (their credentials go with them: none of the platforms
     * offers a revocation call), products, listings, webhooks, invitations, memberships and audit log are deleted. What
     * the sites' shops hold stays on the platforms.
     */
    async remove(workspaceId: number, confirm: string, actor: Actor) {
      await roleAtLeast(workspaceId, actor, 'owner');
      const workspace = await workspacesRepo.findWorkspace(db, workspaceId);
      if (!workspace) throw new AppError('forbidden');
      if (confirm !== workspace.name)
        throw invalidField('confirm', `Type the workspace's name, ${workspace.name}, to confirm that it is to be deleted.`);
      await workspacesRepo.deleteWorkspace(db, workspaceId);
      cache.invalidate({ workspaceId });
    },

    /** Any member, a viewer included. */
    async members(workspaceId: number, actor: Actor, page: { limit: number; offset: number }) {
      await roleAtLeast(workspaceId, actor, 'viewer');
      return workspacesRepo.listMembers(db, workspaceId, page);
    },

    /**
     * Owners and admins (an admin does not invite owners). The token is shown in this answer only: only its SHA-256 is
     * kept. A person already a member is 409.
     */
    async invite(workspaceId: number, input: { email: string; role: Role }, actor: Actor) {
      const role = await roleAtLeast(workspaceId, actor, 'admin');
      if (input.role === 'owner' && role !== 'owner') throw new AppError('forbidden');
      const email = input.email.trim();
      const existing = await accountsRepo.findUserByEmail(db, email);
      if (existing && (await workspacesRepo.roleOf(db, workspaceId, existing.id)))
        throw new AppError('conflict', { message: `${email} is a member of the workspace already.` });
      const token = randomBytes(32).toString('base64url');
      const now = clock.now();
      const expiresAt = new Date(now.getTime() + INVITATION_TTL_MS);
      let mailed = false;
      const row = await db.transaction(async (tx) => {
        const invited = await workspacesRepo.insertInvitation(
          tx,
          { workspaceId, email, role: input.role, tokenHash: hashOf(token), invitedBy: actor.userId, expiresAt },
          now,
        );
        await audit(tx, workspaceId, actor, 'member.invited', { type: 'invitation', id: invited.id }, { email, role: input.role });
        mailed = await deps.mailInvitation(tx, invited.id, urlOf(token));
        return invited;
      });
      return { ...presentInvitation(row), token, url: urlOf(token), mailed };
    },

    /** Owners and admins: the invitations not used and not expired. */
    async invitations(workspaceId: number, actor: Actor, page: { limit: number; offset: number }) {
      await roleAtLeast(workspaceId, actor, 'admin');
      const { rows, total } = await workspacesRepo.listPendingInvitations(db, workspaceId, clock.now(), page);
      return { rows: rows.map(presentInvitation), total };
    },

    /** Owners and admins (an admin does not revoke an owner's invitation); its link stops working. */
    async revokeInvitation(workspaceId: number, invitationId: number, actor: Actor) {
      const role = await roleAtLeast(workspaceId, actor, 'admin');
      const invitation = await workspacesRepo.findInvitation(db, workspaceId, invitationId);
      if (!invitation || invitation.acceptedAt) throw new AppError('not_found');
      if (invitation.role === 'owner' && role !== 'owner') throw new AppError('forbidden');
      await db.transaction(async (tx) => {
        await workspacesRepo.deleteInvitation(tx, invitation.id);
        await audit(tx, workspaceId, actor, 'invitation.revoked', { type: 'invitation', id: invitation.id }, { email: invitation.email });
      });
    },

    /**
     * What an invitation's link offers, for its page to say before it is accepted: the workspace, the role and whom it
     * is for. An unknown, used or expired token is 404, as accepting it would be.
     */
    async preview(token: string) {
      const invitation = await workspacesRepo.invitationOfToken(db, hashOf(token));
      if (!invitation || invitation.acceptedAt || invitation.expiresAt <= clock.now()) throw new AppError('not_found');
      const workspace = await workspacesRepo.findWorkspace(db, invitation.workspaceId);
      if (!workspace) throw new AppError('not_found');
      return { workspace, role: invitation.role, email: invitation.email, expires_at: invitation.expiresAt.toISOString() };
    },

    /**
     * The signed-in user takes the invitation: used once, within 7 days, by the person it names (its e-mail). An unknown,
     * used or expired token is 404 alike.
     */
    async accept(token: string, actor: Actor & { email: string }) {
      return db.transaction(async (tx) => {
        const invitation = await workspacesRepo.invitationOfToken(tx, hashOf(token), true);
        const now = clock.now();
        if (!invitation || invitation.acceptedAt || invitation.expiresAt <= now) throw new AppError('not_found');
        if (invitation.email.toLowerCase() !== actor.email.toLowerCase())
          throw new AppError('forbidden', {
            message: `The invitation is for ${invitation.email}: sign in as that user to accept it.`,
          });
        if (await workspacesRepo.roleOf(tx, invitation.workspaceId, actor.userId))
          throw new AppError('conflict', { message: 'You are a member of the workspace already.' });
        await workspacesRepo.markAccepted(tx, invitation.id, actor.userId, now);
        await workspacesRepo.addMember(tx, invitation.workspaceId, actor.userId, invitation.role, now);
        await audit(tx, invitation.workspaceId, actor, 'member.joined', { type: 'user', id: actor.userId }, { role: invitation.role });
        const workspace = await workspacesRepo.findWorkspace(tx, invitation.workspaceId);
        return { id: invitation.workspaceId, name: workspace!.name, role: invitation.role };
      });
    },

    /**
     * Owners change any role; admins change members', viewers' and admins' roles, never to or from owner. The last
     * owner cannot step down.
     */
    async changeRole(workspaceId: number, userId: number, role: Role, actor: Actor) {
      const changed = await db.transaction(async (tx) => {
        await accountsRepo.lockWorkspace(tx, workspaceId);
        const mine = await roleAtLeast(workspaceId, actor, 'admin', tx);
        const member = await memberOf(tx, workspaceId, userId);
        if (mine !== 'owner' && (member.role === 'owner' || role === 'owner')) throw new AppError('forbidden');
        if (member.role === role) return member;
        if (role !== 'owner') await keepAnOwner(tx, workspaceId, member);
        await workspacesRepo.setRole(tx, workspaceId, userId, role);
        await audit(tx, workspaceId, actor, 'member.role_changed', { type: 'user', id: userId }, { from: member.role, to: role });
        return { ...member, role };
      });
      cache.invalidate({ userId });
      return changed;
    },

    /**
     * Anyone may leave, a viewer too; owners remove anyone, admins members and admins. The last owner can neither leave nor be
     * removed.
     */
    async removeMember(workspaceId: number, userId: number, actor: Actor) {
      await db.transaction(async (tx) => {
        await accountsRepo.lockWorkspace(tx, workspaceId);
        const mine = await roleAtLeast(workspaceId, actor, userId === actor.userId ? 'viewer' : 'admin', tx);
        const member = await memberOf(tx, workspaceId, userId);
        if (userId !== actor.userId && mine !== 'owner' && member.role === 'owner') throw new AppError('forbidden');
        await keepAnOwner(tx, workspaceId, member);
        await workspacesRepo.removeMember(tx, workspaceId, userId);
        await audit(tx, workspaceId, actor, 'member.removed', { type: 'user', id: userId }, { role: member.role });
      });
      cache.invalidate({ userId });
    },

    /** An owner makes another member the owner and becomes an admin, in one step. */
    async transferOwnership(workspaceId: number, userId: number, actor: Actor) {
      const handed = await db.transaction(async (tx) => {
        await accountsRepo.lockWorkspace(tx, workspaceId);
        await roleAtLeast(workspaceId, actor, 'owner', tx);
        if (userId === actor.userId) throw invalidField('user_id', 'Choose another member: you own the workspace already.');
        const member = await memberOf(tx, workspaceId, userId);
        await workspacesRepo.setRole(tx, workspaceId, userId, 'owner');
        await workspacesRepo.setRole(tx, workspaceId, actor.userId, 'admin');
        await audit(tx, workspaceId, actor, 'member.role_changed', { type: 'user', id: userId }, { from: member.role, to: 'owner' });
        await audit(tx, workspaceId, actor, 'member.role_changed', { type: 'user', id: actor.userId }, { from: 'owner', to: 'admin' });
        return { ...member, role: 'owner' as const };
      });
      cache.invalidate({ userId });
      cache.invalidate({ userId: actor.userId });
      return handed;
    },
  };
}
