/**
 * The report files, standing for Amazon's S3 presigned URLs: `GET <region base>/report-files/<reportId>?X-Amz-Algorithm=
 * AWS4-HMAC-SHA256&X-Amz-Date=…&X-Amz-Expires=3600&X-Amz-Signature=<hmac>` answers the gzipped JSON rows as bytes
 * (`application/octet-stream`, no Content-Encoding, as S3 serves the `.json.gz` object). Read the way S3 is read:
 * - an `Authorization` header beside the query signature → 400 InvalidArgument (S3's "Only one auth mechanism
 *   allowed"; the header's value is not echoed back, unlike S3, so a test log never holds the bearer);
 * - a signature that does not match → 403 SignatureDoesNotMatch; an expired link → 403 AccessDenied "Request has expired".
 * ASSUMPTION: links last an hour (`urlExpiresAt`); Amazon does not state it.
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { countCall, type SandboxContext } from '../context.js';
import { reportsOf } from './report-store.js';

const LINK_SECONDS = 3600;

/** `20250101T120000Z`, S3's X-Amz-Date. */
const amzDate = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.[0-9]{3}/, '');
const fromAmzDate = (text: string) => {
  const match = /^([0-9]{4})([0-9]{2})([0-9]{2})T([0-9]{2})([0-9]{2})([0-9]{2})Z$/.exec(text);
  return match ? Date.UTC(+match[1]!, +match[2]! - 1, +match[3]!, +match[4]!, +match[5]!, +match[6]!) : Number.NaN;
};

function signature(context: SandboxContext, reportId: string, date: string, expires: string): string {
  return createHmac('sha256', reportsOf(context).signingKey).update(`${reportId}\n${date}\n${expires}`).digest('hex');
}

/** A fresh link to the report's file under `base` (the region's sandbox base), and when it expires. */
export function presignedLink(context: SandboxContext, base: string, reportId: string): { url: string; expiresAt: string } {
  const now = context.clock.nowMs();
  const date = amzDate(now);
  const query = new URLSearchParams({
    'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
    'X-Amz-Date': date,
    'X-Amz-Expires': String(LINK_SECONDS),
    'X-Amz-SignedHeaders': 'host',
    'X-Amz-Signature': signature(context, reportId, date, String(LINK_SECONDS)),
  });
  return { url: `${base}/report-files/${reportId}?${query}`, expiresAt: new Date(now + LINK_SECONDS * 1000).toISOString() };
}

/** S3's XML error. */
function s3Error(reply: FastifyReply, status: number, code: string, message: string, extra = '') {
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message>${extra}<RequestId>${randomUUID().replace(/-/g, '').slice(0, 16).toUpperCase()}</RequestId></Error>`;
  return reply.code(status).type('application/xml').send(body);
}

const matches = (given: string, expected: string) =>
  given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));

export function registerReportFiles(app: FastifyInstance, context: SandboxContext) {
  app.get('/report-files/:reportId', async (request, reply) => {
    countCall(context, 'amazon-ads', 'report-file');
    const { reportId } = request.params as { reportId: string };
    const query = request.query as Record<string, string | undefined>;
    if (request.headers.authorization !== undefined)
      return s3Error(
        reply,
        400,
        'InvalidArgument',
        'Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified',
        '<ArgumentName>Authorization</ArgumentName>',
      );
    const date = query['X-Amz-Date'] ?? '';
    const expires = query['X-Amz-Expires'] ?? '';
    const expected = signature(context, reportId, date, expires);
    if (!matches(String(query['X-Amz-Signature'] ?? ''), expected))
      return s3Error(
        reply,
        403,
        'SignatureDoesNotMatch',
        'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
      );
    if (!(context.clock.nowMs() <= fromAmzDate(date) + Number(expires) * 1000))
      return s3Error(reply, 403, 'AccessDenied', 'Request has expired');
    const file = reportsOf(context).reports.get(reportId)?.file;
    if (!file) return s3Error(reply, 404, 'NoSuchKey', 'The specified key does not exist.');
    return reply.type('application/octet-stream').send(file);
  });
}
