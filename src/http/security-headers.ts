/**
 * helmet's security headers, set on every answer; the API's answers are never stored by a cache. The policy's
 * `upgrade-insecure-requests` goes only with an answer over https: over plain http on any host but localhost it made the
 * browser fetch the dashboard's scripts over https, which such a server does not speak, and the page stayed blank
 * (ux review §2.3).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';
import type { App } from './access.js';

/**
 * helmet's security headers with its defaults (images from any https host aside), computed once: they depend on nothing in the request. @fastify/helmet
 * runs helmet(options) on every request (parsing the Content-Security-Policy each time) and sets each header on the
 * raw response; that took a minimal Fastify route from 42k to 23k requests/s, against 37.5k this way (BENCHMARKS.md).
 */
export function securityHeaders(options: { https?: boolean } = {}): Record<string, string> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: string) => void (headers[name.toLowerCase()] = value),
    removeHeader: (name: string) => void delete headers[name.toLowerCase()],
  };
  // Product images are the seller's own URLs on any https host (DESIGN §9): the dashboard shows them. Scripts, styles
  // and everything else keep helmet's defaults.
  const contentSecurityPolicy = {
    directives: { 'img-src': ["'self'", 'data:', 'https:'], 'upgrade-insecure-requests': options.https === false ? null : [] },
  };
  helmet({ contentSecurityPolicy })({} as IncomingMessage, response as unknown as ServerResponse, (error) => {
    if (error) throw error;
  });
  return headers;
}

/**
 * Sets helmet's headers on every answer, and `cache-control: no-store` on every answer of the API (`apiPrefix`). Whether
 * the request came over https is Fastify's `request.protocol`: the socket's, or X-Forwarded-Proto from a proxy the app
 * trusts (TRUST_PROXY); a client's own X-Forwarded-Proto is not believed.
 */
export function addSecurityHeaders(app: App, apiPrefix: string): void {
  const overHttps = securityHeaders({ https: true });
  const overHttp = securityHeaders({ https: false });
  const byScheme = {
    https: { page: overHttps, api: { ...overHttps, 'cache-control': 'no-store' } },
    http: { page: overHttp, api: { ...overHttp, 'cache-control': 'no-store' } },
  };
  app.addHook('onRequest', (request, reply, done) => {
    const headers = request.protocol === 'https' ? byScheme.https : byScheme.http;
    reply.headers(request.url.startsWith(apiPrefix) ? headers.api : headers.page);
    done();
  });
}
