/**
 * The dashboard's pages: the built single-page app (npm run build:web, run by npm install) served from dist/web.
 * The listed page paths answer with index.html; any other path a browser asks for as a page answers it with a 404 (the
 * app shows "Page not found"), outside /api/ and the sandbox, whose unknown paths keep the JSON 404 like every other
 * request's.
 */

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';
import { servePagesOnNotFound } from '../http/not-found.js';

export const DEFAULT_WEB_DIR = fileURLToPath(new URL('../../dist/web', import.meta.url));

/** The page paths of the dashboard; `/` redirects to /dashboard. */
export const DASHBOARD_PAGES = [
  '/signup',
  '/login',
  '/forgot-password',
  '/reset-password',
  '/dashboard',
  '/workspace/:workspace_id/dashboard',
  '/workspace/:workspace_id/products',
  '/workspace/:workspace_id/products/new',
  '/workspace/:workspace_id/products/:product_id',
  '/workspace/:workspace_id/orders',
  '/workspace/:workspace_id/orders/:order_id',
  '/workspace/:workspace_id/settings',
  '/workspace/:workspace_id/webhooks',
  '/workspace/:workspace_id/audit-log',
  '/site/:site_id/listings',
  '/site/:site_id/listings/:listing_id',
  '/invite/:token',
  '/profile/account',
  '/profile/developer/api-access',
] as const;

/** Registers the assets under /assets/ and the page routes; without a build, warns and answers the pages with a 503. */
export async function registerDashboard(app: FastifyInstance, logger: FastifyBaseLogger, webDir: string = DEFAULT_WEB_DIR): Promise<void> {
  const indexFile = join(webDir, 'index.html');
  const built = existsSync(indexFile);
  const indexHtml = built ? readFileSync(indexFile, 'utf8') : null;
  if (built) {
    await app.register(fastifyStatic, {
      root: join(webDir, 'assets'),
      prefix: '/assets/',
      index: false,
      wildcard: true,
      maxAge: '1y',
      immutable: true,
    });
  } else {
    logger.warn(`The dashboard is not built (${indexFile} is missing): run npm run build:web. Its pages answer 503 until then.`);
  }

  if (indexHtml !== null) servePagesOnNotFound(app, indexHtml, ['/api', '/sandbox', '/assets']);

  const hide = { schema: { hide: true } };
  app.get('/', hide, async (_request, reply) => reply.redirect('/dashboard'));
  for (const path of DASHBOARD_PAGES) {
    app.get(path, hide, async (_request, reply) => {
      if (indexHtml === null) throw new AppError('unavailable', { message: 'The dashboard is not built: run npm run build:web' });
      return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(indexHtml);
    });
  }
}
