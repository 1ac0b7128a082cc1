/** POST /auth/register, /auth/login, /auth/logout (DESIGN §3). */
import Type from 'typebox';
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';
import { type App, principalOf } from './access.js';
import { EmailField, ErrorBody, iso, NameField, Ok, ok, PasswordField, Timestamp, UserSchema, WorkspaceSchema } from './schemas.js';

const Session = Type.Object({
  token: Type.String({ description: 'Session token (12 h); send as `Authorization: Bearer …`' }),
  expires_at: Timestamp,
});

export function registerAuthRoutes(app: App, deps: Deps) {
  const { accounts, tokens, config } = deps;
  const window = 60_000;
  const perAddress = app.createRateLimit({
    max: config.loginRateLimit.perAddress,
    timeWindow: window,
    keyGenerator: (req) => `login:address:${req.ip}`,
  });
  const perEmail = app.createRateLimit({
    max: config.loginRateLimit.perEmail,
    timeWindow: window,
    keyGenerator: (req) =>
      `login:email:${String((req.body as { email?: unknown } | undefined)?.email ?? '')
        .trim()
        .toLowerCase()}`,
  });

  app.post(
    '/auth/register',
    {
      config: { access: 'public' },
      schema: {
        summary: 'Create an account with a workspace of its own, and a session',
        tags: ['auth'],
        body: Type.Object({ email: EmailField, password: PasswordField, name: NameField }),
        response: { 201: Ok(Type.Object({ user: UserSchema, workspace: WorkspaceSchema, ...Session.properties })), 403: ErrorBody },
      },
    },
    async (request, reply) => {
      if (!config.allowSignup) throw new AppError('forbidden', { message: 'Sign-up is disabled' });
      const { user, workspace, session } = await accounts.register(request.body);
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
        response: { 200: Ok(Session), 401: ErrorBody },
      },
      preHandler: async (request) => {
        for (const limit of [perAddress, perEmail]) {
          const result = await limit(request);
          if (!result.isAllowed && result.isExceeded)
            throw new AppError('rate_limited', { headers: { 'retry-after': String(result.ttlInSeconds) } });
        }
      },
    },
    async (request) => {
      const session = await accounts.login(request.body);
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
