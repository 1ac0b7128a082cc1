/**
 * The security headers of every answer: helmet's on pages (the dashboard, the API's reference, the simulators), the
 * set for APIs on the API's JSON answers; those are never stored by a cache. The page policy's
 * `upgrade-insecure-requests` goes only with an answer over https: over plain http on any host but localhost it made the
 * browser fetch the dashboard's scripts over https, which such a server does not speak, and the page stayed blank
 * (ux review §2.3).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
// Fastify's own symbols: not a public API, so what is taken from it is checked below and by the suite.
import fastifySymbols from 'fastify/lib/symbols.js';
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

/** helmet's headers for a page, by the request's scheme, computed once. */
const pages = { https: securityHeaders({ https: true }), http: securityHeaders({ https: false }) };

/**
 * What the API's JSON answers carry (docs/decisions.md, "Security headers"): the set OWASP's REST Security Cheat Sheet
 * names for every API response. The rest of helmet's headers (the page's policy, COOP, CORP, Origin-Agent-Cluster,
 * Referrer-Policy, the X-DNS-Prefetch-Control kind) govern a document a browser renders and what it loads; a JSON answer
 * is neither, and they cost each answer 455 bytes and about 2 µs of CPU (BENCHMARKS.md). `default-src 'none'` makes
 * the policy a document's too, should a browser ever render one of these answers as a page.
 */
const API_HEADERS: Record<string, string> = {
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'strict-transport-security': pages.https['strict-transport-security']!,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

/** One of two sets of headers by the request's scheme (`request.protocol`, below). */
const byScheme = (request: { protocol: string }, sets: { https: Record<string, string>; http: Record<string, string> }) =>
  request.protocol === 'https' ? sets.https : sets.http;

/**
 * helmet's headers for a page, for a route of the API that answers one (a failed connection's retry page): they
 * replace the API's. Whether the request came over https is Fastify's `request.protocol`: the socket's, or
 * X-Forwarded-Proto from a proxy the app trusts (TRUST_PROXY); a client's own X-Forwarded-Proto is not believed.
 */
export function pageHeaders(request: { protocol: string }): Record<string, string> {
  return byScheme(request, pages);
}

/**
 * The symbol under which a Fastify reply keeps the headers it will send, its own object of lower-case names
 * (`reply.getHeaders()` is a copy); null if a Fastify release no longer has one, and then `reply.headers()` sets them.
 */
export const REPLY_HEADERS: symbol | null = fastifySymbols.kReplyHeaders ?? null;

/**
 * Adds a set of headers, their names already lower-case, to what the reply will send. `reply.headers()` lower-cases each
 * name and stores it on its own, which was 2 % of a warm GET /user's CPU (BENCHMARKS.md, "GET /user's headers"): the
 * set is copied onto the reply's headers in one step instead.
 */
function addHeaders(reply: FastifyReply, headers: Record<string, string>): void {
  const own = REPLY_HEADERS && (reply as unknown as Record<symbol, unknown>)[REPLY_HEADERS];
  if (own !== null && typeof own === 'object') Object.assign(own, headers);
  else reply.headers(headers);
}

/**
 * Sets the API's headers on every answer under `prefixes.api` but its reference (under `prefixes.docs`, a page), and
 * helmet's on every other answer; the reference also gets `cache-control: no-store`, as every answer of the API.
 */
export function addSecurityHeaders(app: App, prefixes: { api: string; docs: string }): void {
  const docs = { https: { ...pages.https, 'cache-control': 'no-store' }, http: { ...pages.http, 'cache-control': 'no-store' } };
  app.addHook('onRequest', (request, reply, done) => {
    const { url } = request;
    if (!url.startsWith(prefixes.api)) addHeaders(reply, byScheme(request, pages));
    else if (url.startsWith(prefixes.docs)) addHeaders(reply, byScheme(request, docs));
    else addHeaders(reply, API_HEADERS);
    done();
  });
}
