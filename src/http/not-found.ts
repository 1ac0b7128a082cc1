/**
 * Unknown paths answer 404 and known paths with another method 405 with `Allow`, both in the seed's shape (Fastify has no
 * 405). A browser asking for an unknown page gets the dashboard instead, still with a 404, and the dashboard shows its
 * own "Page not found" (ux review §2.10).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import { AppError } from '../errors.js';
import type { App } from './access.js';
import { handleError } from './error-handler.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** The page each app answers an unknown page path with (servePagesOnNotFound), by app. */
const notFoundPages = new WeakMap<object, { html: string; apiPrefixes: readonly string[] }>();

/**
 * Unknown GET and HEAD paths that a browser asks for as a page (Accept names text/html) answer `html` with 404, but those
 * under `apiPrefixes`, which keep the JSON 404 whatever they accept.
 */
export function servePagesOnNotFound(app: object, html: string, apiPrefixes: readonly string[]): void {
  notFoundPages.set(app, { html, apiPrefixes });
}

function pageFor(app: object, request: FastifyRequest, path: string): string | null {
  const page = notFoundPages.get(app);
  if (!page || (request.method !== 'GET' && request.method !== 'HEAD')) return null;
  if (!/\btext\/html\b/.test(request.headers.accept ?? '')) return null;
  return page.apiPrefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`)) ? null : page.html;
}

const sendPage = (reply: FastifyReply, html: string) =>
  reply.code(404).type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(html);

export function addNotFoundHandler(app: App): void {
  const routesByMethod = FindMyWay();
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routesByMethod.on(method as 'GET', route.url, () => {});
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    const allowed = METHODS.filter((m) => routesByMethod.find(m as 'GET', path));
    // A route of this method that found nothing (a missing file under /assets/) is a 404, not a 405.
    const otherMethods = allowed.length > 0 && !allowed.includes(request.method as (typeof METHODS)[number]);
    const page = allowed.length === 0 ? pageFor(app, request, path) : null;
    if (page !== null) return sendPage(reply, page);
    const error = otherMethods ? new AppError('method_not_allowed', { headers: { allow: allowed.join(', ') } }) : new AppError('not_found');
    return handleError(error, request, reply);
  });
}
