/** GET /workspaces and GET /user, the seed's shapes (seed §4). */
import Type from 'typebox';
import type { Deps } from '../deps.js';
import { type App, principalOf, workspaceOf } from './access.js';
import { Ok, OkPage, ok, okPage, PageQuery, pageOf, UserSchema, WorkspaceSchema } from './schemas.js';

export function registerWorkspaceRoutes(app: App, deps: Deps) {
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
}
