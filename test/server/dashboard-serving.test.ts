import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { handleError } from '../../src/http/error-handler.js';
import { DASHBOARD_PAGES, registerDashboard } from '../../src/web/dashboard.routes.js';
import { createTestApp, errorBody, type TestApp } from '../helpers/test-app.js';

const PAGE_URLS = [
  '/signup',
  '/login',
  '/forgot-password',
  '/reset-password?token=abc',
  '/dashboard',
  '/workspace/12/dashboard',
  '/workspace/12/products',
  '/workspace/12/products/new',
  '/workspace/12/products/7',
  '/workspace/12/orders',
  '/workspace/12/orders/5',
  '/workspace/12/settings',
  '/workspace/12/webhooks',
  '/workspace/12/audit-log',
  '/site/3/listings',
  '/site/3/listings/9',
  '/invite/abc-DEF_123',
  '/profile/account',
  '/profile/developer/api-access',
];

async function dashboardOn(webDir: string): Promise<{ app: FastifyInstance; warnings: string[] }> {
  const warnings: string[] = [];
  const app = Fastify();
  app.setErrorHandler(handleError);
  const logger = { ...app.log, warn: (message: string) => void warnings.push(message) } as unknown as FastifyInstance['log'];
  await registerDashboard(app, logger, webDir);
  await app.ready();
  return { app, warnings };
}

describe('dashboard pages', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'storelink-web-'));
    await mkdir(join(dir, 'built', 'assets'), { recursive: true });
    await writeFile(
      join(dir, 'built', 'index.html'),
      '<!doctype html><title>Storelink</title><script type="module" src="/assets/app.js"></script>',
    );
    await writeFile(join(dir, 'built', 'assets', 'app.js'), 'console.log(1);');
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('every page path is one of the listed pages', () => {
    assert.equal(DASHBOARD_PAGES.length, PAGE_URLS.length);
  });

  test('each page path answers with the built index.html', async () => {
    const { app } = await dashboardOn(join(dir, 'built'));
    for (const url of PAGE_URLS) {
      const response = await app.inject({ url });
      assert.equal(response.statusCode, 200, url);
      assert.match(response.headers['content-type'] as string, /^text\/html/);
      assert.match(response.body, /<title>Storelink<\/title>/);
    }
    await app.close();
  });

  test('the built assets are served under /assets/', async () => {
    const { app } = await dashboardOn(join(dir, 'built'));
    const response = await app.inject({ url: '/assets/app.js' });
    assert.equal(response.statusCode, 200);
    assert.equal(response.body, 'console.log(1);');
    await app.close();
  });

  test('/ redirects to /dashboard', async () => {
    const { app } = await dashboardOn(join(dir, 'built'));
    const response = await app.inject({ url: '/' });
    assert.equal(response.statusCode, 302);
    assert.equal(response.headers.location, '/dashboard');
    await app.close();
  });

  test('without a build, the pages answer 503 in the error shape and a warning says how to build', async () => {
    const { app, warnings } = await dashboardOn(join(dir, 'missing'));
    const response = await app.inject({ url: '/login' });
    assert.equal(response.statusCode, 503);
    assert.deepEqual(response.json(), errorBody(503, 'The dashboard is not built: run npm run build:web'));
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /npm run build:web/);
    await app.close();
  });
});

describe('dashboard pages in the whole app', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp('pglite')));
  after(() => t.close());

  test('a path that is not a page still gets the JSON 404', async () => {
    const response = await t.app.inject({ url: '/workspace/1/billing' });
    assert.equal(response.statusCode, 404);
    assert.deepEqual(response.json(), errorBody(404, 'Not found'));
  });

  test('a page carries the content security policy, which allows no inline script', async () => {
    const response = await t.app.inject({ url: '/login' });
    const csp = String(response.headers['content-security-policy']);
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(csp, /script-src[^;]*unsafe-inline/);
    // A product's image may be any https URL the seller gave; nothing else is widened.
    assert.match(csp, /img-src 'self' data: https:(;|$)/);
    assert.match(csp, /default-src 'self'/);
  });
});
