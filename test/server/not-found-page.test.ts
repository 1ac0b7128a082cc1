/**
 * An unknown path a browser asks for as a page answers 404 with the dashboard, which shows its "Page not found" (ux
 * review §2.10); the API, the sandbox, the assets and any request not asking for HTML keep the JSON 404.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, errorBody, type TestApp } from '../helpers/test-app.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('unknown paths asked for as a page', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp('pglite')));
  after(() => t.close());

  test('a GET of an unknown page path from a browser is a 404 with the dashboard', async () => {
    for (const url of ['/no/such/page', '/workspace/1/billing', '/dashboard/extra?x=1']) {
      const response = await t.app.inject({ url, headers: { accept: BROWSER_ACCEPT } });
      assert.equal(response.statusCode, 404, url);
      assert.match(String(response.headers['content-type']), /^text\/html/, url);
      assert.match(response.body, /<div id="root"><\/div>/, url);
    }
  });

  test('the same paths without text/html in Accept keep the JSON 404', async () => {
    const response = await t.app.inject({ url: '/no/such/page', headers: { accept: 'application/json' } });
    assert.deepEqual([response.statusCode, response.json()], [404, errorBody(404, 'Not found')]);
  });

  test('the API, the sandbox and the assets keep the JSON 404 even for a browser', async () => {
    for (const url of ['/api/v1/no-such-thing', '/api', '/sandbox/no-such-thing', '/assets/no-such-file.js']) {
      const response = await t.app.inject({ url, headers: { accept: BROWSER_ACCEPT } });
      assert.deepEqual([response.statusCode, response.json()], [404, errorBody(404, 'Not found')], url);
    }
  });

  test('a POST to an unknown path keeps the JSON 404, and a known path with another method its 405', async () => {
    const post = await t.app.inject({ method: 'POST', url: '/no/such/page', headers: { accept: BROWSER_ACCEPT } });
    assert.deepEqual([post.statusCode, post.json()], [404, errorBody(404, 'Not found')]);
    const wrongMethod = await t.app.inject({ method: 'GET', url: '/api/v1/auth/login', headers: { accept: BROWSER_ACCEPT } });
    assert.equal(wrongMethod.statusCode, 405);
  });
});
