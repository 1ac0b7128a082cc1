/**
 * GET /workspaces and GET /user, the seed's shapes (seed §4); workspaces, members and invitations (DESIGN §12), whose
 * routes take the workspace from the path (no X-Workspace-Id) and leave who may do what to the workspaces service.
 */

import Type from 'typebox';
import type { AccountsService } from '../core/auth/accounts.service.js';
import type { WorkspacesService } from '../core/workspaces/workspaces.service.js';
import { ROLES } from '../domain/index.js';
import { type App, actorOf, principalOf, workspaceOf } from './access.js';
import {
  EmailField,
  Id,
  iso,
  NameField,
  Ok,
  OkPage,
  OneOf,
  ok,
  okPage,
  PageQuery,
  pageOf,
  Timestamp,
  UserSchema,
  WorkspaceSchema,
} from './schemas.js';

const WorkspaceParams = Type.Object({ workspace_id: Id });
const MemberParams = Type.Object({ workspace_id: Id, user_id: Id });
const Role = OneOf(ROLES);
const MemberSchema = Type.Object({ user_id: Id, name: Type.String(), email: Type.String(), role: Role, joined_at: Timestamp });
const InvitationSchema = Type.Object({ id: Id, email: Type.String(), role: Role, expires_at: Timestamp, created_at: Timestamp });
const CreatedInvitation = Type.Object({
  ...InvitationSchema.properties,
  token: Type.String({ description: 'Shown in this answer only: the link carries it' }),
  url: Type.String({ description: 'The link to give the invited person; it works once, for 7 days' }),
  mailed: Type.Boolean({
    description:
      'Whether the link is also being mailed to the invitee: true when the server sends e-mail (SMTP_URL), false when the link must be sent by hand',
  }),
});
const presentMember = (m: { userId: number; name: string; email: string; role: (typeof ROLES)[number]; joinedAt: Date }) => ({
  user_id: m.userId,
  name: m.name,
  email: m.email,
  role: m.role,
  joined_at: iso(m.joinedAt),
});

/** The services the routes use. */
export interface WorkspaceRoutesServices {
  readonly accounts: Pick<AccountsService, 'listWorkspaces'>;
  readonly workspaces: WorkspacesService;
}

export function registerWorkspaceRoutes(app: App, deps: WorkspaceRoutesServices) {
  app.get(
    '/workspaces',
    {
      config: { access: 'user' },
      schema: {
        summary: 'The workspaces you belong to, with your role in each',
        tags: ['workspaces'],
        querystring: PageQuery,
        response: { 200: OkPage(WorkspaceSchema) },
      },
    },
    async (request) => {
      const { rows, total } = await deps.accounts.listWorkspaces(principalOf(request).user.id, pageOf(request.query));
      return okPage(rows, total, request.query);
    },
  );

  app.get(
    '/user',
    {
      config: { access: 'workspace' },
      schema: {
        summary: 'The current user, with the workspace of the X-Workspace-Id header',
        tags: ['workspaces'],
        response: { 200: Ok(Type.Object({ ...UserSchema.properties, workspace: WorkspaceSchema })) },
      },
    },
    async (request) => {
      const { user } = principalOf(request);
      return ok({ id: user.id, email: user.email, name: user.name, workspace: workspaceOf(request) });
    },
  );

  app.post(
    '/workspaces',
    {
      config: { access: 'user' },
      schema: {
        summary: 'Create a workspace; you are its owner',
        tags: ['workspaces'],
        body: Type.Object({ name: NameField }),
        response: { 201: Ok(WorkspaceSchema) },
      },
    },
    async (request, reply) => {
      const workspace = await deps.workspaces.create(request.body.name.trim(), actorOf(request));
      return reply.code(201).send(ok(workspace));
    },
  );

  app.patch(
    '/workspaces/:workspace_id',
    {
      config: { access: 'user' },
      schema: {
        summary: 'Rename a workspace (owners)',
        tags: ['workspaces'],
        params: WorkspaceParams,
        body: Type.Object({ name: NameField }),
        response: { 200: Ok(WorkspaceSchema) },
      },
    },
    async (request) => ok(await deps.workspaces.rename(request.params.workspace_id, request.body.name.trim(), actorOf(request))),
  );

  app.delete(
    '/workspaces/:workspace_id',
    {
      config: { access: 'user' },
      schema: {
        summary: 'Delete a workspace and everything in it (owners; confirmed by its name)',
        description:
          "Disconnects its sites and deletes its products, listings, webhooks, invitations, members and audit log. What the sites' shops hold stays on the platforms.",
        tags: ['workspaces'],
        params: WorkspaceParams,
        body: Type.Object({ confirm: Type.String({ maxLength: 100, description: "The workspace's name, exactly" }) }),
        response: { 200: Ok(Type.Null()) },
      },
    },
    async (request) => {
      await deps.workspaces.remove(request.params.workspace_id, request.body.confirm, actorOf(request));
      return ok(null);
    },
  );

  app.get(
    '/workspaces/:workspace_id/members',
    {
      config: { access: 'user' },
      schema: {
        summary: "The workspace's members and their roles",
        tags: ['workspaces'],
        params: WorkspaceParams,
        querystring: PageQuery,
        response: { 200: OkPage(MemberSchema) },
      },
    },
    async (request) => {
      const { rows, total } = await deps.workspaces.members(request.params.workspace_id, actorOf(request), pageOf(request.query));
      return okPage(rows.map(presentMember), total, request.query);
    },
  );

  app.patch(
    '/workspaces/:workspace_id/members/:user_id',
    {
      config: { access: 'user' },
      schema: {
        summary: "Change a member's role: owner, admin, member or viewer (owners; admins for admins, members and viewers)",
        tags: ['workspaces'],
        params: MemberParams,
        body: Type.Object({ role: Role }),
        response: { 200: Ok(MemberSchema) },
      },
    },
    async (request) => {
      const { workspace_id, user_id } = request.params;
      return ok(presentMember(await deps.workspaces.changeRole(workspace_id, user_id, request.body.role, actorOf(request))));
    },
  );

  app.delete(
    '/workspaces/:workspace_id/members/:user_id',
    {
      config: { access: 'user' },
      schema: {
        summary: 'Remove a member, or leave (your own user id)',
        tags: ['workspaces'],
        params: MemberParams,
        response: { 200: Ok(Type.Null()) },
      },
    },
    async (request) => {
      await deps.workspaces.removeMember(request.params.workspace_id, request.params.user_id, actorOf(request));
      return ok(null);
    },
  );

  app.post(
    '/workspaces/:workspace_id/transfer-ownership',
    {
      config: { access: 'user' },
      schema: {
        summary: 'Make another member the owner; you become an admin (owners)',
        tags: ['workspaces'],
        params: WorkspaceParams,
        body: Type.Object({ user_id: Id }),
        response: { 200: Ok(MemberSchema) },
      },
    },
    async (request) =>
      ok(presentMember(await deps.workspaces.transferOwnership(request.params.workspace_id, request.body.user_id, actorOf(request)))),
  );

  app.post(
    '/workspaces/:workspace_id/invitations',
    {
      config: { access: 'user' },
      schema: {
        summary: 'Invite someone by a link (owners and admins), mailed to them when the server sends e-mail',
        description:
          'The answer holds the link, valid once for 7 days, and is the only time its token is shown. With SMTP_URL set the link is also mailed to the invitee, in the background: a mail that fails is retried, and never fails the request.',
        tags: ['workspaces'],
        params: WorkspaceParams,
        body: Type.Object({ email: EmailField, role: Role }),
        response: { 201: Ok(CreatedInvitation) },
      },
    },
    async (request, reply) => {
      const created = await deps.workspaces.invite(request.params.workspace_id, request.body, actorOf(request));
      return reply.code(201).send(ok(created));
    },
  );

  app.get(
    '/workspaces/:workspace_id/invitations',
    {
      config: { access: 'user' },
      schema: {
        summary: 'Invitations not yet used nor expired (owners and admins)',
        tags: ['workspaces'],
        params: WorkspaceParams,
        querystring: PageQuery,
        response: { 200: OkPage(InvitationSchema) },
      },
    },
    async (request) => {
      const { rows, total } = await deps.workspaces.invitations(request.params.workspace_id, actorOf(request), pageOf(request.query));
      return okPage(rows, total, request.query);
    },
  );

  app.delete(
    '/workspaces/:workspace_id/invitations/:invitation_id',
    {
      config: { access: 'user' },
      schema: {
        summary: 'Revoke an invitation: its link stops working (owners and admins)',
        tags: ['workspaces'],
        params: Type.Object({ workspace_id: Id, invitation_id: Id }),
        response: { 200: Ok(Type.Null()) },
      },
    },
    async (request) => {
      await deps.workspaces.revokeInvitation(request.params.workspace_id, request.params.invitation_id, actorOf(request));
      return ok(null);
    },
  );

  app.get(
    '/invitations/:token',
    {
      // Public: the link's page names the workspace to someone not signed in yet. The token is the secret, and whoever
      // holds it could make an account and read the same; accepting still takes the invited user signed in.
      config: { access: 'public' },
      schema: {
        summary: "What an invitation's link offers: the workspace, the role and whom it is for",
        tags: ['workspaces'],
        params: Type.Object({ token: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: {
          200: Ok(
            Type.Object({
              workspace: Type.Object({ id: Id, name: Type.String() }),
              role: Role,
              email: Type.String({ description: 'Whom it is for: only that user can accept it' }),
              expires_at: Timestamp,
            }),
          ),
        },
      },
    },
    async (request) => ok(await deps.workspaces.preview(request.params.token)),
  );

  app.post(
    '/invitations/:token/accept',
    {
      config: { access: 'user' },
      schema: {
        summary: 'Accept an invitation as the signed-in user it was made for',
        tags: ['workspaces'],
        params: Type.Object({ token: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: { 200: Ok(WorkspaceSchema) },
      },
    },
    async (request) => {
      const { user } = principalOf(request);
      return ok(await deps.workspaces.accept(request.params.token, { ...actorOf(request), email: user.email }));
    },
  );
}
