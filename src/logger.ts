/** The service's logger: JSON lines by pino, with nothing secret in them. */
import { DrizzleQueryError } from 'drizzle-orm/errors';
import pino, { type DestinationStream, type Logger } from 'pino';
import type { Config } from './config.js';

/** An invitation's token is in its paths (`/invite/<token>`, `/api/v1/invitations/<token>[/accept]`): never logged. */
export const withoutSecrets = (path: string) => path.replace(/\/(invite|invitations)\/[^/]+/, '/$1/[redacted]');

/**
 * Builds the logger the service uses. Requests are logged by path only (query strings carry OAuth codes and states),
 * an invitation's token masked.
 * Fields that could hold a secret are redacted wherever they appear.
 */
export function createLogger(config: Pick<Config, 'logLevel'>, destination?: DestinationStream): Logger {
  return pino(
    {
      level: config.logLevel,
      serializers: {
        req: (req: { method: string; url: string; ip?: string }) => ({
          method: req.method,
          path: withoutSecrets(req.url.split('?')[0]!),
          remoteAddress: req.ip,
        }),
      },
      redact: {
        paths: ['*.authorization', '*.cookie', '*.password', '*.token', '*.access_token', '*.refresh_token', '*.client_secret'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

/** pino-pretty's options: one line per entry, a request as `GET /api/v1/health 200`, its other fields after it. */
export const PRETTY_OPTIONS = {
  colorize: true,
  singleLine: true,
  translateTime: 'SYS:HH:MM:ss.l',
  ignore: 'pid,hostname,req,res',
  messageFormat: '{if req.method}{req.method} {req.path} {end}{if res.statusCode}{res.statusCode} {end}{msg}',
};

/**
 * Where the server writes its log: JSON lines on stdout, except in a terminal outside production, where pino-pretty
 * (as a pino transport, in a worker thread) makes them readable. Tests, pipes, log collectors and production get JSON.
 */
export function serverLogDestination(
  config: Pick<Config, 'nodeEnv'>,
  stdoutIsTerminal = process.stdout.isTTY === true,
): DestinationStream | undefined {
  if (config.nodeEnv === 'production' || !stdoutIsTerminal) return undefined;
  return pino.transport({ target: 'pino-pretty', options: PRETTY_OPTIONS });
}

/** What a log may say of an error: its name, code and the driver's own message, never a query's parameters. */
export function describeError(error: unknown): Record<string, unknown> {
  let e: unknown = error;
  // Drizzle wraps driver errors in a message that includes the query's parameters; log the driver's error instead.
  while (e instanceof DrizzleQueryError) {
    if (!e.cause) return { name: 'DrizzleQueryError', message: 'a database query failed' };
    e = e.cause;
  }
  if (e instanceof Error) return { name: e.name, code: (e as { code?: unknown }).code, message: e.message, stack: e.stack };
  if (e === null || typeof e !== 'object') return { message: String(e) };
  // Something thrown that is not an Error: its name, code and message where it has them as text or numbers, else the
  // names of its fields, never their values (one could hold a connection string), not "[object Object]".
  const { name, code, message } = e as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? value : undefined);
  return {
    name: text(name),
    code: text(code),
    message: text(message) ?? `an object with the fields ${Object.keys(e).join(', ') || '(none)'}`,
  };
}
