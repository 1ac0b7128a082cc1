/** The one place errors become responses: the seed's body for every status, internals to the log only (DESIGN §2). */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorCode } from '../errors.js';
import { describeError } from '../logger.js';
import { toFieldErrors } from './validation.js';

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'bad_request',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'bad_request',
  FST_ERR_CTP_INVALID_JSON_BODY: 'bad_request',
};

// What a database error says when the request may well succeed later, so it is answered 503 with Retry-After rather
// than 500: SQLSTATE classes 08 (connection exception) and 53 (insufficient resources: disk_full, out_of_memory,
// too_many_connections) whole; shutdowns and terminated sessions (57P01–57P03, 57P05), statement_timeout or a cancel
// (57014), lock_timeout (55P03); and the errno of a lost or refused connection, or of a full disk (ENOSPC).
const UNAVAILABLE_CLASSES = ['08', '53'];
const UNAVAILABLE_CODES = new Set([
  '57P01',
  '57P02',
  '57P03',
  '57P05',
  '57014',
  '55P03',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOSPC',
]);
// node-postgres and PGlite say so in words alone for a lost, refused or closed connection, a pool with no connection
// free within its connectionTimeoutMillis, and a server that did not answer within query_timeout.
const UNAVAILABLE_MESSAGES =
  /Connection terminated|connection timeout|Client has encountered a connection error|Client was closed and is not queryable|Cannot use a pool after calling end|timeout exceeded when trying to connect|Query read timeout|PGlite is closed/i;
const RETRY_AFTER_SECONDS = '5';

/** Maps anything thrown in a request to an AppError. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const fastifyError = error as Partial<FastifyError> & { validation?: unknown };
  if (Array.isArray(fastifyError.validation)) {
    return new AppError('validation_failed', { fields: toFieldErrors(fastifyError.validation, fastifyError.validationContext) });
  }
  const mapped = fastifyError.code ? FASTIFY_CODES[fastifyError.code] : undefined;
  if (mapped === 'bad_request') return new AppError('bad_request', { message: 'The request body is not valid JSON.' });
  if (mapped) return new AppError(mapped);
  if (isDatabaseUnavailable(error)) return new AppError('unavailable', { headers: { 'retry-after': RETRY_AFTER_SECONDS }, cause: error });
  if (error instanceof SyntaxError && fastifyError.statusCode === 400)
    return new AppError('bad_request', { message: 'The request body is not valid JSON.' });
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500)
    return new AppError('bad_request');
  return new AppError('internal', { cause: error });
}

/** Whether the error, or one of its causes (Drizzle wraps the driver's), is a database that cannot serve now. */
function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || (code.length === 5 && UNAVAILABLE_CLASSES.includes(code.slice(0, 2)))))
      return true;
    if (UNAVAILABLE_MESSAGES.test(e.message)) return true;
  }
  return false;
}

export function handleError(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  const appError = toAppError(error);
  if (appError.status >= 500) request.log.error({ err: describeError(appError.cause ?? error) }, 'request failed');
  // An error answer redirects nowhere; and a Location the route set may be the header that could not be written (text
  // beyond Latin-1), which would fail this answer too and leave Fastify's own fallback body on the wire.
  reply.removeHeader('location');
  return reply.code(appError.status).headers(appError.headers).send(appError.toBody());
}
