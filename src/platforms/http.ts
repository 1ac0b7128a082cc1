/** Outbound calls to platforms: a deadline on every call, redirects never followed, answers read as JSON (DESIGN §8). */
import type { Fetch } from '../lib/outbound-http.js';
import { PlatformError } from './platform.js';

export interface PlatformHttp {
  /** Sends the request and parses a JSON answer of any status; network failures, timeouts and non-JSON become `unavailable`. */
  request(
    url: string,
    init: { method: 'GET' | 'POST'; headers?: Record<string, string>; form?: Record<string, string> },
  ): Promise<{ status: number; body: unknown }>;
}

export function createPlatformHttp(deps: { fetch: Fetch; timeoutMs: number }): PlatformHttp {
  return {
    async request(url, init) {
      const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
      let body: string | undefined;
      if (init.form) {
        headers['content-type'] = 'application/x-www-form-urlencoded;charset=UTF-8';
        body = new URLSearchParams(init.form).toString();
      }
      let response: Response;
      let text: string;
      try {
        response = await deps.fetch(url, {
          method: init.method,
          headers,
          body,
          redirect: 'manual',
          signal: AbortSignal.timeout(deps.timeoutMs),
        });
        text = await response.text();
      } catch (error) {
        const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
        throw new PlatformError('unavailable', timedOut ? 'The platform did not answer in time' : 'The platform could not be reached');
      }
      if (response.status >= 300 && response.status < 400) throw new PlatformError('unavailable', 'The platform answered with a redirect');
      try {
        return { status: response.status, body: JSON.parse(text) as unknown };
      } catch {
        throw new PlatformError('unavailable', `The platform answered with unreadable data (HTTP ${response.status})`);
      }
    },
  };
}
