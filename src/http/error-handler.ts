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

// Driver codes for a database that cannot be reached or is shutting down: the request may succeed later.
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08006',
]);

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
  if (isDatabaseUnavailable(error)) return new AppError('unavailable', { headers: { 'retry-after': '5' } });
  if (error instanceof SyntaxError && fastifyError.statusCode === 400)
    return new AppError('bad_request', { message: 'The request body is not valid JSON.' });
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500)
    return new AppError('bad_request');
  return new AppError('internal', { cause: error });
}

function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
    // node-postgres and PGlite say so in words for a lost, refused or already closed connection.
    if (
      /Connection terminated|connection timeout|Client has encountered a connection error|Cannot use a pool after calling end|PGlite is closed/i.test(
        e.message,
      )
    )
      return true;
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
