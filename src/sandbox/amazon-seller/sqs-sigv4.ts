/**
 * AWS Signature Version 4 as the sandbox's SQS checks it (AWS IAM User Guide, "Create a signed AWS API request" and
 * "Elements of an AWS API request signature"): the canonical request is the method, the path with each segment
 * URI-encoded again as sent (every service but S3 encodes the path twice), empty segments folded and `.`/`..`
 * resolved, the query sorted by name then value with both RFC 3986-encoded, the signed headers lower-cased and sorted
 * with their values trimmed and inner runs of spaces folded to one, the signed header names, and the payload's SHA-256;
 * the string to sign is `AWS4-HMAC-SHA256`, the `X-Amz-Date`, the scope `yyyymmdd/region/service/aws4_request` and the
 * canonical request's SHA-256; the key is the HMAC chain `AWS4<secret>` → date → region → service → `aws4_request`.
 * The documentation's worked example (IAM ListUsers, AKIDEXAMPLE, 20150830T123600Z, signature `5d672d79…f2b5d7`) is
 * the test's vector. Pure and hand-written on node:crypto, so the simulator shares no code with a client's signer; the
 * route in sqs.ts reads the request and the clock.
 */
import { createHash, createHmac } from 'node:crypto';

export interface SigningScope {
  /** `yyyymmdd`, the date of the request's `X-Amz-Date`. */
  date: string;
  region: string;
  service: string;
}

export interface SignedRequest {
  method: string;
  /** The path as sent, percent-encoded as it was, without the query. */
  path: string;
  /** The query as sent, without its `?` ('' for none). */
  query: string;
  /** The request's headers, names lower-cased (a repeated header's values comma-joined, as Node gives them). */
  headers: Readonly<Record<string, string | undefined>>;
  /** The names the `Authorization` header says were signed, lower-cased. */
  signedHeaders: readonly string[];
  /** The payload's SHA-256, lower-case hex. */
  payloadHash: string;
}

/** The parts of `Authorization: AWS4-HMAC-SHA256 Credential=<key>/<scope>, SignedHeaders=<names>, Signature=<hex>`. */
export interface SigV4Authorization {
  accessKeyId: string;
  scope: SigningScope;
  /** The scope's last part, which must be `aws4_request`. */
  terminator: string;
  signedHeaders: string[];
  signature: string;
}

const ALGORITHM = 'AWS4-HMAC-SHA256';

export const sha256Hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, text: string) => createHmac('sha256', key).update(text, 'utf8').digest();

/** RFC 3986 encoding: every byte but the unreserved `A-Z a-z 0-9 - _ . ~`. */
function encodeRfc3986(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The path as AWS canonicalizes it for a service other than S3. */
export function canonicalPath(path: string): string {
  if (path === '' || path === '/') return '/';
  const segments: string[] = [];
  for (const segment of path.replace(/\/{2,}/g, '/').split('/')) {
    if (segment === '..') segments.pop();
    else if (segment !== '.') segments.push(encodeRfc3986(segment));
  }
  const joined = segments.join('/');
  return joined.startsWith('/') ? joined : `/${joined}`;
}

/** Decodes a query part as sent; one that is not valid percent-encoding is taken as it is. */
function decodePart(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return text;
  }
}

export function canonicalQuery(query: string): string {
  if (query === '') return '';
  return query
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals === -1 ? pair : pair.slice(0, equals);
      const value = equals === -1 ? '' : pair.slice(equals + 1);
      return [encodeRfc3986(decodePart(name)), encodeRfc3986(decodePart(value))] as const;
    })
    .sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : x > y ? 1 : 0) : a < b ? -1 : 1))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
}

export function canonicalRequest(request: SignedRequest): string {
  const names = [...request.signedHeaders].sort();
  const headers = names.map((name) => `${name}:${(request.headers[name] ?? '').trim().replace(/\s+/g, ' ')}\n`).join('');
  return [
    request.method.toUpperCase(),
    canonicalPath(request.path),
    canonicalQuery(request.query),
    headers,
    names.join(';'),
    request.payloadHash,
  ].join('\n');
}

const scopeText = (scope: SigningScope) => `${scope.date}/${scope.region}/${scope.service}/aws4_request`;

/** The hex signature of `request` signed at `amzDate` (`yyyymmddThhmmssZ`) with `secretAccessKey` in `scope`. */
export function sigV4Signature(input: { secretAccessKey: string; amzDate: string; scope: SigningScope; request: SignedRequest }): string {
  const { secretAccessKey, amzDate, scope, request } = input;
  const stringToSign = [ALGORITHM, amzDate, scopeText(scope), sha256Hex(canonicalRequest(request))].join('\n');
  let key: Buffer = hmac(`AWS4${secretAccessKey}`, scope.date);
  for (const part of [scope.region, scope.service, 'aws4_request']) key = hmac(key, part);
  return createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
}

/** The `Authorization` header's parts; null for anything but a complete AWS4-HMAC-SHA256 header. */
export function parseSigV4Authorization(header: string): SigV4Authorization | null {
  if (!header.startsWith(`${ALGORITHM} `)) return null;
  const fields = new Map<string, string>();
  for (const part of header.slice(ALGORITHM.length + 1).split(',')) {
    const equals = part.indexOf('=');
    if (equals > 0) fields.set(part.slice(0, equals).trim(), part.slice(equals + 1).trim());
  }
  const credential = fields.get('Credential')?.split('/');
  const signedHeaders = fields.get('SignedHeaders')?.split(';').filter(Boolean);
  const signature = fields.get('Signature');
  if (!credential || credential.length !== 5 || !signedHeaders?.length || !signature) return null;
  const [accessKeyId, date, region, service, terminator] = credential as [string, string, string, string, string];
  return { accessKeyId, scope: { date, region, service }, terminator, signedHeaders, signature };
}

/** Milliseconds since the epoch of an `X-Amz-Date` (`yyyymmddThhmmssZ`); null for any other text. */
export function amzDateMs(text: string): number | null {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  if (!match) return null;
  const [, y, mo, d, h, mi, s] = match.map(Number) as number[];
  const ms = Date.UTC(y!, mo! - 1, d!, h!, mi!, s!);
  return Number.isNaN(ms) ? null : ms;
}

/** An `X-Amz-Date` for a time. */
export const amzDateOf = (ms: number) => new Date(ms).toISOString().replace(/[:-]|\.\d{3}/g, '');
