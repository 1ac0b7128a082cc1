/**
 * TikTok Shop's request signature as the simulator checks it, written from the documented steps (platforms.md §2.7,
 * https://partner.tiktokshop.com/docv2/page/678e3a3d4ddec3030b238faf) apart from the adapter's signer: a simulator
 * that shared the adapter's code would accept whatever mistake that code makes.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** A request as received, before any of it is trusted. */
export interface ReceivedRequest {
  /** The API path, without the simulator's own `/sandbox/tiktok-shop` prefix. */
  path: string;
  /** The query string as sent, without its `?`. */
  rawQuery: string;
  /** The raw body; empty for a GET. */
  body: string;
  contentType: string | undefined;
}

/** Parameters the documentation leaves out of the signed text. */
const UNSIGNED = new Set(['sign', 'access_token']);

/**
 * The `sign` a request must carry: HMAC-SHA256 keyed with the app secret over the secret, the path, every other query
 * parameter as `{key}{value}` in key order, the body unless the request is multipart, and the secret again; lowercase hex.
 */
export function expectedSign(request: ReceivedRequest, appSecret: string): string {
  const params = [...new URLSearchParams(request.rawQuery)].filter(([key]) => !UNSIGNED.has(key));
  // Code-unit order, not localeCompare: the documented order is a plain sort of the keys.
  params.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const mac = createHmac('sha256', appSecret).update(appSecret).update(request.path);
  for (const [key, value] of params) mac.update(key).update(value);
  if (!/^multipart\/form-data/i.test(request.contentType ?? '')) mac.update(request.body);
  return mac.update(appSecret).digest('hex');
}

/** True when the request's `sign` parameter is the one its path, parameters and body call for. */
export function hasValidSign(request: ReceivedRequest, appSecret: string): boolean {
  const given = Buffer.from(new URLSearchParams(request.rawQuery).get('sign') ?? '');
  const expected = Buffer.from(expectedSign(request, appSecret));
  return given.length === expected.length && timingSafeEqual(given, expected);
}
