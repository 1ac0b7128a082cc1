/** The seed's redirect URL rules (seed §4 "Redirect URL validation", DESIGN §4), and how redirect targets are built. */

export const MAX_REDIRECT_URL_LENGTH = 2048;
export const REDIRECT_URL_MESSAGE = 'must be a valid http or https URL without the | character.';
export const REDIRECT_URL_LENGTH_MESSAGE = `must not be greater than ${MAX_REDIRECT_URL_LENGTH} characters.`;

/** What is wrong with a redirect URL that isValidRedirectUrl refused, to end "The redirect url …": too long, or not one. */
export function redirectUrlProblem(raw: string): string {
  return raw.length > MAX_REDIRECT_URL_LENGTH ? REDIRECT_URL_LENGTH_MESSAGE : REDIRECT_URL_MESSAGE;
}

/**
 * True for an absolute http(s) URL with a host, no `|`, no credentials, no control characters (C0 and C1) or
 * backslashes, and at most 2,048 characters. Checked on the raw text as well as the parsed URL, because WHATWG parsing
 * silently repairs inputs such as `http:\\host` or `http:/host`. Other non-ASCII text (`https://例え.jp/é`) is allowed:
 * redirects carry it percent-encoded (toAsciiUrl).
 */
export function isValidRedirectUrl(raw: string): boolean {
  if (raw.length === 0 || raw.length > MAX_REDIRECT_URL_LENGTH) return false;
  if (/[|\\\s\u0000-\u001f\u007f-\u009f]/.test(raw)) return false;
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

const NON_ASCII = /[^\u0000-\u007f]+/g;
const utf8 = new TextEncoder();

/** Each non-ASCII character as UTF-8 `%XX` escapes; a lone surrogate becomes U+FFFD's, as WHATWG URL writes it. */
function percentEncodeNonAscii(text: string): string {
  return text.replace(NON_ASCII, (run) => Array.from(utf8.encode(run), (byte) => `%${byte.toString(16).toUpperCase()}`).join(''));
}

/**
 * The URL as a `Location` header can carry it (RFC 9110 §10.2.2 allows only ASCII there, and Node refuses anything
 * beyond Latin-1): an internationalised host in IDNA punycode and every other non-ASCII character percent-encoded as
 * UTF-8, which is how WHATWG URL serialization writes them, so the browser lands on the address the user gave.
 * ASCII text is left byte for byte as it was. Never throws.
 */
export function toAsciiUrl(raw: string): string {
  if (!/[^\u0000-\u007f]/.test(raw)) return raw;
  const authority = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)/i.exec(raw);
  if (!authority) return percentEncodeNonAscii(raw);
  const [head, scheme = '', host = ''] = authority;
  return `${scheme}${asciiHost(raw, host)}${percentEncodeNonAscii(raw.slice(head.length))}`;
}

function asciiHost(raw: string, host: string): string {
  if (!/[^\u0000-\u007f]/.test(host)) return host;
  try {
    return new URL(raw).host;
  } catch {
    return percentEncodeNonAscii(host);
  }
}

/**
 * Appends query parameters to whatever query `target` already has, encoded as forms are (spaces as `+`), keeping the
 * fragment last (DESIGN §4 "The callback", step 3). The caller's own URL is left byte for byte as it was, except for
 * non-ASCII text, which is percent-encoded (toAsciiUrl).
 */
export function withQuery(url: string, params: Record<string, string | number>): string {
  const target = toAsciiUrl(url);
  const hashAt = target.indexOf('#');
  const base = hashAt === -1 ? target : target.slice(0, hashAt);
  const fragment = hashAt === -1 ? '' : target.slice(hashAt);
  const added = new URLSearchParams(Object.fromEntries(Object.entries(params).map(([key, value]) => [key, String(value)]))).toString();
  const separator = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${separator}${added}${fragment}`;
}
