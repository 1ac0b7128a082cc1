/**
 * Outbound calls to platforms: a deadline on every call, redirects never followed, answers read as JSON (DESIGN §8), or
 * as bytes for a file a platform serves.
 */
import { deadlineSignal, type Fetch } from '../lib/outbound-http.js';
import { PlatformError } from './contracts/errors.js';

/**
 * A platform's answer: its status, its JSON body (null when it has none, as a 204), its `Retry-After` in milliseconds
 * when it sent one, and its headers (rate limits are read from them).
 */
export interface PlatformAnswer {
  status: number;
  body: unknown;
  retryAfterMs?: number | null;
  headers?: Headers;
}

export interface PlatformHttp {
  /** Sends the request and parses a JSON answer of any status; network failures, timeouts and non-JSON become `unavailable`. */
  request(
    url: string,
    init: {
      method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
      headers?: Record<string, string>;
      form?: Record<string, string>;
      json?: unknown;
      multipart?: FormData;
      /** Ends the call early (besides the deadline): a job being stopped. */
      signal?: AbortSignal;
      /**
       * How the answer's body is read: JSON (the default), or its raw bytes as a Buffer (a file the platform serves, as
       * Amazon's report documents: tab-separated text, possibly compressed).
       */
      read?: 'json' | 'bytes';
    },
  ): Promise<PlatformAnswer>;
}

/** `Retry-After` as delay-seconds or an HTTP date (RFC 9110 §10.2.3), in milliseconds from `now`; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (value === null || value.trim() === '') return null;
  const text = value.trim();
  if (/^[0-9]+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * Reads an answer with one of the pure parsers (`status`, `body` → value or PlatformError) and gives a passing failure
 * the platform's `Retry-After`, so a retry waits at least as long as the platform asked.
 */
export function readAnswer<T>(answer: PlatformAnswer, parse: (status: number, body: unknown) => T): T {
  try {
    return parse(answer.status, answer.body);
  } catch (error) {
    if (error instanceof PlatformError && error.reason === 'unavailable' && answer.retryAfterMs != null && error.retryAfterMs === null)
      throw new PlatformError('unavailable', error.message, answer.retryAfterMs);
    throw error;
  }
}

/**
 * `stop`, when given, ends every call still in flight when it aborts (the service shutting down): the call fails as
 * `unavailable`, so a renewal is retried rather than counted against the seller.
 */
export function createPlatformHttp(deps: { fetch: Fetch; timeoutMs: number; stop?: AbortSignal }): PlatformHttp {
  return {
    async request(url, init) {
      const bytes = init.read === 'bytes';
      const headers: Record<string, string> = { accept: bytes ? '*/*' : 'application/json', ...init.headers };
      let body: string | FormData | undefined;
      if (init.form) {
        headers['content-type'] = 'application/x-www-form-urlencoded;charset=UTF-8';
        body = new URLSearchParams(init.form).toString();
      } else if (init.json !== undefined) {
        // A JSON body of a vendor media type (Amazon Ads' `application/vnd.spCampaign.v3+json`) keeps the caller's type.
        headers['content-type'] ??= 'application/json';
        body = JSON.stringify(init.json);
      } else if (init.multipart) {
        // fetch writes the boundary into the content type itself.
        body = init.multipart;
      }
      const stops = [deps.stop, init.signal].filter((signal): signal is AbortSignal => signal !== undefined);
      let response: Response;
      let raw: Buffer;
      try {
        response = await deps.fetch(url, {
          method: init.method,
          headers,
          body,
          redirect: 'manual',
          signal: stops.length > 0 ? deadlineSignal(deps.timeoutMs, AbortSignal.any(stops)) : AbortSignal.timeout(deps.timeoutMs),
        });
        raw = Buffer.from(await response.arrayBuffer());
      } catch (error) {
        if (stops.some((signal) => signal.aborted))
          throw new PlatformError('unavailable', 'The call was cut short: the service is shutting down');
        const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
        throw new PlatformError('unavailable', timedOut ? 'The platform did not answer in time' : 'The platform could not be reached');
      }
      if (response.status >= 300 && response.status < 400) throw new PlatformError('unavailable', 'The platform answered with a redirect');
      const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), Date.now());
      if (bytes) return { status: response.status, body: raw, retryAfterMs, headers: response.headers };
      try {
        return {
          status: response.status,
          body: response.status === 204 ? null : (JSON.parse(new TextDecoder().decode(raw)) as unknown),
          retryAfterMs,
          headers: response.headers,
        };
      } catch {
        throw new PlatformError('unavailable', `The platform answered with unreadable data (HTTP ${response.status})`, retryAfterMs);
      }
    },
  };
}
