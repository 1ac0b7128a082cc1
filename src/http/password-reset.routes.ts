/** POST /auth/password-reset and /auth/password-reset/confirm: a forgotten password reset by a mailed link (docs/e-mail.md). */

import Type from 'typebox';
import type { Config } from '../config.js';
import type { PasswordResetService } from '../core/auth/password-reset.service.js';
import type { App } from './access.js';
import { enforce, LIMIT_WINDOW_MS } from './login-limits.js';
import { ErrorBody, Ok, ok, PasswordField } from './schemas.js';

export interface PasswordResetRoutesServices {
  readonly passwordResets: PasswordResetService;
  readonly config: Pick<Config, 'loginRateLimit'>;
}

export function registerPasswordResetRoutes(app: App, deps: PasswordResetRoutesServices) {
  const { passwordResets, config } = deps;
  const { perAddress, perEmail } = config.loginRateLimit;
  // Each request may send a mail: counted per client address, and per account as login's attempts are (the e-mail as
  // the account lookup folds it) in a bucket of its own, so asking for resets never locks the account's login.
  const requestsPerAddress = app.createRateLimit({
    max: perAddress,
    timeWindow: LIMIT_WINDOW_MS,
    keyGenerator: (request) => `reset:address:${request.ip}`,
  });
  const keys = new WeakMap<object, string>();
  const requestsPerEmail = app.createRateLimit({
    max: perEmail,
    timeWindow: LIMIT_WINDOW_MS,
    keyGenerator: (request) => `reset:email:${keys.get(request) ?? ''}`,
  });
  const confirmsPerAddress = app.createRateLimit({
    max: perAddress,
    timeWindow: LIMIT_WINDOW_MS,
    keyGenerator: (request) => `reset-confirm:address:${request.ip}`,
  });

  app.post(
    '/auth/password-reset',
    {
      config: { access: 'public' },
      schema: {
        summary: 'Ask for a link to reset a forgotten password',
        description:
          'Answers 202 alike whether an account has the e-mail or not. When one has and the server sends e-mail (SMTP_URL), ' +
          'its owner is mailed a link to `/reset-password?token=…`, usable once within an hour; without SMTP_URL no mail is ' +
          'sent (the operator resets a password with `storelink user:reset-password`). Rate limited to ' +
          `${perAddress} requests a minute per client address and ${perEmail} per e-mail.`,
        tags: ['auth'],
        body: Type.Object({ email: Type.String({ minLength: 1, maxLength: 254 }) }),
        response: { 202: Ok(Type.Null()), 429: ErrorBody },
      },
      preHandler: (request) => enforce(requestsPerAddress, request),
    },
    async (request, reply) => {
      await passwordResets.request(request.body.email, (key) => {
        keys.set(request, key);
        return enforce(requestsPerEmail, request);
      });
      return reply.code(202).send(ok(null));
    },
  );

  app.post(
    '/auth/password-reset/confirm',
    {
      config: { access: 'public' },
      schema: {
        summary: "Set a new password with a reset link's token",
        description:
          'The password is held to the sign-up rules (422 on `password`, the link still usable). A token unknown, used or ' +
          'more than an hour old is a 422 on `token`. Success uses the link (and every other reset link of the account) and ' +
          `ends every session of the account; sign in again with the new password. Rate limited to ${perAddress} a minute ` +
          'per client address.',
        tags: ['auth'],
        body: Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }), password: PasswordField }),
        response: { 200: Ok(Type.Null()), 429: ErrorBody },
      },
      preHandler: (request) => enforce(confirmsPerAddress, request),
    },
    async (request) => {
      await passwordResets.confirm(request.body.token, request.body.password, request.ip);
      return ok(null);
    },
  );
}
