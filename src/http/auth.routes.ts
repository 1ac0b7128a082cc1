/** POST /auth/register, /auth/login, /auth/logout (DESIGN §3). */

import Type from 'typebox';
import type { Config } from '../config.js';
import type { AccountsService } from '../core/auth/accounts.service.js';
import type { TokensService } from '../core/auth/tokens.service.js';
import { AppError } from '../errors.js';
import { type App, principalOf } from './access.js';
import { accountLimitOf, enforce, LIMIT_WINDOW_MS } from './login-limits.js';
import { EmailField, ErrorBody, iso, NameField, Ok, ok, PasswordField, Timestamp, UserSchema, WorkspaceSchema } from './schemas.js';

const Session = Type.Object({
  token: Type.String({ description: 'Session token (12 h); send as `Authorization: Bearer …`' }),
  expires_at: Timestamp,
});

/** The services the routes use. */
export interface AuthRoutesServices {
  readonly accounts: AccountsService;
  readonly tokens: TokensService;
  readonly config: Pick<Config, 'loginRateLimit' | 'signupRateLimit' | 'allowSignup'>;
}

export function registerAuthRoutes(app: App, deps: AuthRoutesServices) {
  const { accounts, tokens, config } = deps;
  const window = LIMIT_WINDOW_MS;
  const perAddress = app.createRateLimit({
    max: config.loginRateLimit.perAddress,
    timeWindow: window,
    keyGenerator: (req) => `login:address:${req.ip}`,
  });
  // Keyed on the e-mail as the account lookup folds it (accounts.login hands it over), so no spelling of an account
  // (case, or a character the database folds, such as İ) opens a bucket of its own; sign-up and the password change
  // count against the same bucket.
  const perAccount = accountLimitOf(app, config);
  const signupsPerAddress = app.createRateLimit({
    max: config.signupRateLimit.perAddress,
    timeWindow: window,
    keyGenerator: (req) => `signup:address:${req.ip}`,
  });

  app.post(
    '/auth/register',
    {
      config: { access: 'public' },
      schema: {
        summary: 'Create an account with a workspace of its own, and a session',
        tags: ['auth'],
        body: Type.Object({ email: EmailField, password: PasswordField, name: NameField }),
        description:
          `Rate limited to ${config.signupRateLimit.perAddress} sign-ups a minute per client address; a sign-up naming an e-mail ` +
          `already taken also counts against that account's login limit (${config.loginRateLimit.perEmail} a minute), before the ` +
          'answer says it is taken. A password found in a list of common passwords is refused (422 on `password`).',
        response: {
          201: Ok(Type.Object({ user: UserSchema, workspace: WorkspaceSchema, ...Session.properties })),
          403: ErrorBody,
          429: ErrorBody,
        },
      },
      // Each sign-up costs a password hash: counted per address before any is computed (red-team M5).
      preHandler: async (request) => {
        if (!config.allowSignup) throw new AppError('forbidden', { message: 'Sign-up is disabled' });
        await enforce(signupsPerAddress, request);
      },
    },
    async (request, reply) => {
      const { user, workspace, session } = await accounts.register(request.body, { onTaken: (key) => perAccount(request, key) });
      return reply.code(201).send(ok({ user, workspace, token: session.token, expires_at: iso(session.record.expiresAt!) }));
    },
  );

  app.post(
    '/auth/login',
    {
      config: { access: 'public' },
      schema: {
        summary: 'Exchange email and password for a session token',
        description: `Rate limited to ${config.loginRateLimit.perAddress} attempts a minute per client address and ${config.loginRateLimit.perEmail} per email.`,
        tags: ['auth'],
        body: Type.Object({
          email: Type.String({ minLength: 1, maxLength: 254 }),
          password: Type.String({ minLength: 1, maxLength: 256 }),
        }),
        response: { 200: Ok(Session), 401: ErrorBody, 429: ErrorBody },
      },
      preHandler: (request) => enforce(perAddress, request),
    },
    async (request) => {
      const session = await accounts.login(request.body, {
        ipAddress: request.ip,
        beforeVerify: (key) => perAccount(request, key),
      });
      return ok({ token: session.token, expires_at: iso(session.record.expiresAt!) });
    },
  );

  app.post(
    '/auth/logout',
    {
      config: { access: 'session' },
      schema: { summary: 'Revoke the session token of this request', tags: ['auth'], response: { 200: Ok(Type.Null()) } },
    },
    async (request) => {
      await tokens.revokeSession(principalOf(request));
      return ok(null);
    },
  );
}
