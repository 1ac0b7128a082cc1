/** The seed's redirect URL rules (seed §4 "Redirect URL validation", DESIGN §4), and how redirect targets are built. */

export const MAX_REDIRECT_URL_LENGTH = 2048;
export const REDIRECT_URL_MESSAGE = 'must be a valid http or https URL without the | character.';

/**
 * True for an absolute http(s) URL with a host, no `|`, no credentials, no control characters or backslashes, and at
 * most 2,048 characters. Checked on the raw text as well as the parsed URL, because WHATWG parsing silently repairs
 * inputs such as `http:\\host` or `http:/host`.
 */
export function isValidRedirectUrl(raw: string): boolean {
  if (raw.length === 0 || raw.length > MAX_REDIRECT_URL_LENGTH) return false;
  if (/[|\\\s\u0000-\u001f\u007f]/.test(raw)) return false;
  if (!/^https?:\/\/[^/?#]/i.test(raw)) return false;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' && url.username === '' && url.password === '';
}

export interface CustomFieldValue {
  url: string;
  tracking: Record<string, string>;
}

/**
 * Splits platform 4's `custom_field_value` (`URL;key=value;key=value`) into the redirect URL and tracking pairs.
 * Null when the URL part is invalid or a pair has no `=` or an empty key.
 */
export function parseCustomFieldValue(raw: string): CustomFieldValue | null {
  const [url = '', ...pairs] = raw.split(';');
  if (!isValidRedirectUrl(url)) return null;
  const tracking: Record<string, string> = {};
  for (const pair of pairs) {
    if (pair === '') continue;
    const at = pair.indexOf('=');
    if (at <= 0) return null;
    tracking[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return { url, tracking };
}

/**
 * Appends query parameters to whatever query `target` already has, encoded as forms are (spaces as `+`), keeping the
 * fragment last (DESIGN §4 "The callback", step 3). The caller's own query is left byte for byte as it was.
 */
export function withQuery(target: string, params: Record<string, string | number>): string {
  const hashAt = target.indexOf('#');
  const base = hashAt === -1 ? target : target.slice(0, hashAt);
  const fragment = hashAt === -1 ? '' : target.slice(hashAt);
  const added = new URLSearchParams(Object.fromEntries(Object.entries(params).map(([key, value]) => [key, String(value)]))).toString();
  const separator = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${separator}${added}${fragment}`;
}
