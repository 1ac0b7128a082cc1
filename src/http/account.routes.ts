/**
 * PATCH /user and POST /user/password: the signed-in user's own name and password (issue 16, item 2; the choices are in
 * docs/decisions.md, "Accounts").
 */

import Type from 'typebox';
import type { Config } from '../config.js';
import type { AccountSettingsService } from '../core/auth/account-settings.service.js';
import { type App, principalOf } from './access.js';
import { accountLimitOf } from './login-limits.js';
import { ErrorBody, NameField, Ok, ok, PasswordField, UserSchema } from './schemas.js';

/** The services the routes use. */
export interface AccountRoutesServices {
  readonly accountSettings: AccountSettingsService;
  readonly config: Pick<Config, 'loginRateLimit'>;
}

export function registerAccountRoutes(app: App, deps: AccountRoutesServices) {
  const { accountSettings, config } = deps;
  const perAccount = accountLimitOf(app, config);

  app.patch(
    '/user',
    {
      config: { access: 'user' },
      schema: {
        summary: 'Change your name',
        description:
          'Answers the user as `GET /user` does, without the workspace: a name belongs to the user, not to a workspace, so ' +
          'no `X-Workspace-Id` is needed (one sent is ignored). A session or a personal access token.',
        tags: ['workspaces'],
        body: Type.Object({ name: NameField }),
        response: { 200: Ok(UserSchema) },
      },
    },
    async (request) => {
      const { user } = principalOf(request);
      return ok(await accountSettings.changeName(user.id, request.body.name, request.ip));
    },
  );

  app.post(
    '/user/password',
    {
      config: { access: 'session' },
      schema: {
        summary: 'Change your password; your other sessions end',
        description:
          'A dashboard session only (a personal access token is 403). The current password is checked first: a wrong one is ' +
          '422 on `current_password`, and every attempt counts against the login limit of the account ' +
          `(${config.loginRateLimit.perEmail} a minute, shared with login), then 429. The new password follows the sign-up rules ` +
          '(8 to 256 characters, not in a list of common passwords: 422 on `password`). On success every other session of ' +
          'the user is revoked, on every instance; the calling session stays valid and personal access tokens are kept.',
        tags: ['auth'],
        body: Type.Object({
          current_password: Type.String({ minLength: 1, maxLength: 256 }),
          password: PasswordField,
        }),
        response: { 200: Ok(UserSchema), 429: ErrorBody },
      },
    },
    async (request) => {
      const { user } = await accountSettings.changePassword(
        principalOf(request),
        { currentPassword: request.body.current_password, password: request.body.password },
        { ipAddress: request.ip, beforeVerify: (key) => perAccount(request, key) },
      );
      return ok(user);
    },
  );
}
