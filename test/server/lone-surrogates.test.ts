/**
 * A lone UTF-16 surrogate anywhere in a JSON body (a value, a key, an array item, however deep) is 422 in the seed's
 * shape on every route that reads a body, and nothing is stored: PostgreSQL's text and jsonb cannot hold it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { databaseKinds, selectRows } from '../helpers/database.js';
import { API, createTestApp, registerUser, type TestApp } from '../helpers/test-app.js';

const TABLES = ['users', 'workspaces', 'memberships', 'access_tokens', 'oauth_states', 'webhook_endpoints', 'audit_events'] as const;
const INVALID = { success: false, code: 422, message: 'The given data was invalid.' };
const fieldMessage = (label: string) => `The ${label} field must not contain a lone UTF-16 surrogate.`;
const BODY_MESSAGE = 'The request body must not contain a lone UTF-16 surrogate.';

for (const kind of databaseKinds()) {
  describe(`lone surrogates in JSON bodies [${kind}]`, () => {
    let t: TestApp;
    let owner: Awaited<ReturnType<typeof registerUser>>;
    before(async () => {
      t = await createTestApp(kind);
      owner = await registerUser(t);
    });
    after(() => t.close());

    async function rowCounts(): Promise<Record<string, number>> {
      const counts: Record<string, number> = {};
      for (const table of TABLES)
        counts[table] = Number(
          (await selectRows<{ n: string }>(t.database, sql`select count(*) as n from ${sql.identifier(table)}`))[0]!.n,
        );
      return counts;
    }

    /** Sends `json` as the raw body text, so `\ud800` reaches the parser as JSON's own escape. */
    function send(path: string, json: string, auth: 'none' | 'session' | 'workspace') {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (auth !== 'none') headers.authorization = `Bearer ${owner.session}`;
      if (auth === 'workspace') headers['x-workspace-id'] = String(owner.workspace.id);
      return t.app.inject({ method: 'POST', url: `${API}${path}`, headers, payload: json });
    }

    /** Asserts a 422 whose errors are exactly `errors`, and that no table changed. */
    async function assertRefused(path: string, json: string, auth: 'none' | 'session' | 'workspace', errors: Record<string, string[]>) {
      const before = await rowCounts();
      const response = await send(path, json, auth);
      assert.equal(response.statusCode, 422, `${path} ${json}: ${response.body}`);
      assert.deepEqual(response.json(), { ...INVALID, errors }, json);
      assert.deepEqual(await rowCounts(), before, `${path} ${json}: nothing stored`);
    }

    test('sign-up with a lone high or low surrogate in the name, or in a key, is 422 and creates no account', async () => {
      const base = '"email":"surrogate@example.com","password":"correct horse battery"';
      await assertRefused('/auth/register', `{${base},"name":"\\ud800"}`, 'none', { name: [fieldMessage('name')] });
      await assertRefused('/auth/register', `{${base},"name":"a\\udc00b"}`, 'none', { name: [fieldMessage('name')] });
      await assertRefused('/auth/register', `{${base},"name":"\\udc00\\ud83d"}`, 'none', { name: [fieldMessage('name')] });
      await assertRefused('/auth/register', `{${base},"name":"Ann","\\ud800":1}`, 'none', { body: [BODY_MESSAGE] });
    });

    test('a well-formed surrogate pair is an ordinary character and is accepted', async () => {
      const response = await send(
        '/auth/register',
        '{"email":"pair@example.com","password":"correct horse battery","name":"Ann \\ud83d\\ude00"}',
        'none',
      );
      assert.equal(response.statusCode, 201, response.body);
      assert.equal(response.json().data.user.name, 'Ann 😀');
    });

    test('a personal access token named with a lone surrogate is 422 and not created', async () => {
      await assertRefused('/personal-access-tokens', '{"name":"\\ud800","expires_in_days":30}', 'session', {
        name: [fieldMessage('name')],
      });
    });

    test('authenticate-site with a lone surrogate in redirect_url or in a tracking value is 422 and stores no state', async () => {
      await assertRefused('/authenticate-site', '{"platform_id":1,"redirect_url":"https://seller.example/\\ud800"}', 'workspace', {
        redirect_url: [fieldMessage('redirect url')],
      });
      await assertRefused(
        '/authenticate-site',
        '{"platform_id":4,"custom_field_value":"https://seller.example/done;utm_source=\\udbff"}',
        'workspace',
        { custom_field_value: [fieldMessage('custom field value')] },
      );
    });

    test('webhook creation with a lone surrogate in the url, an event or a nested key is 422 and adds no endpoint', async () => {
      await assertRefused('/webhooks', '{"url":"https://hooks.example/\\udfff","events":["site.connected"]}', 'workspace', {
        url: [fieldMessage('url')],
      });
      await assertRefused(
        '/webhooks',
        '{"url":"https://hooks.example/in","events":["site.connected"],"extra":{"\\ud800":1}}',
        'workspace',
        {
          extra: [fieldMessage('extra')],
        },
      );
      const before = await rowCounts();
      const response = await send('/webhooks', '{"url":"https://hooks.example/in","events":["site.connected","\\ud800"]}', 'workspace');
      assert.equal(response.statusCode, 422, response.body);
      assert.ok(response.json().errors['events.1'].includes(fieldMessage('events 1')), response.body);
      assert.deepEqual(await rowCounts(), before);
    });

    test('a lone surrogate at the bottom of a deeply nested body is 422, not a stack overflow', async () => {
      const depth = 20_000;
      const json = `{"name":"Ann","expires_in_days":30,"deep":${'['.repeat(depth)}"\\ud800"${']'.repeat(depth)}}`;
      const before = await rowCounts();
      const response = await send('/personal-access-tokens', json, 'session');
      assert.equal(response.statusCode, 422, response.body.slice(0, 200));
      assert.deepEqual(Object.keys(response.json().errors), [`deep${'.0'.repeat(depth)}`]);
      assert.deepEqual(await rowCounts(), before);
    });
  });
}
