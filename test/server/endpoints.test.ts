import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { addMembership } from '../../src/db/accounts.repo.js';
import { databaseKinds, selectRows } from '../helpers/database.js';
import { call, createTestApp, errorBody, registerUser, type TestApp } from '../helpers/test-app.js';

const ERROR_STATUSES = ['400', '404', '413', '415', '422', '429', '500', '503'];
const AUTH_ERROR_STATUSES = ['401', '403'];

/** A user who owns their workspace and is a `member` of another user's workspace. */
async function userInTwoWorkspaces(t: TestApp) {
  const me = await registerUser(t);
  const other = await registerUser(t);
  await addMembership(t.database.db, { userId: me.user.id, workspaceId: other.workspace.id, role: 'member' });
  return { ...me, own: me.workspace, joined: { ...other.workspace, role: 'member' } };
}

async function countUsers(t: TestApp): Promise<number> {
  const [row] = await selectRows<{ n: number }>(t.database, sql`select count(*)::int as n from users`);
  return row!.n;
}

for (const kind of databaseKinds()) {
  describe(`endpoints [${kind}]`, () => {
    let t: TestApp;
    before(async () => (t = await createTestApp(kind)));
    after(() => t.close());

    describe('GET /workspaces', () => {
      test('a new user sees their own workspace as owner, in the seed shape with pagination meta', async () => {
        const { session, workspace } = await registerUser(t, { name: 'Linus' });
        const response = await call(t, 'GET', '/workspaces', { token: session });
        assert.equal(response.statusCode, 200);
        assert.deepEqual(response.json(), {
          success: true,
          data: [{ id: workspace.id, name: "Linus's workspace", role: 'owner' }],
          meta: { page: 1, per_page: 25, total: 1 },
        });
      });

      test('a user who is also a member of another workspace sees both, each with their own role', async () => {
        const { session, own, joined } = await userInTwoWorkspaces(t);
        const response = await call(t, 'GET', '/workspaces', { token: session });
        assert.equal(response.statusCode, 200);
        assert.deepEqual(response.json(), { success: true, data: [own, joined], meta: { page: 1, per_page: 25, total: 2 } });
      });

      test('per_page=1&page=2 returns the second workspace and the total of all', async () => {
        const { session, joined } = await userInTwoWorkspaces(t);
        const response = await call(t, 'GET', '/workspaces?per_page=1&page=2', { token: session });
        assert.equal(response.statusCode, 200);
        assert.deepEqual(response.json(), { success: true, data: [joined], meta: { page: 2, per_page: 1, total: 2 } });
      });
    });

    describe('GET /user', () => {
      test('the user comes with the workspace of the X-Workspace-Id header and the owner role there', async () => {
        const { session, user, own } = await userInTwoWorkspaces(t);
        const response = await call(t, 'GET', '/user', { token: session, workspace: own.id });
        assert.equal(response.statusCode, 200);
        assert.deepEqual(response.json(), {
          success: true,
          data: { id: user.id, email: user.email, name: user.name, workspace: { id: own.id, name: own.name, role: 'owner' } },
        });
      });

      test('the same user with the header of a joined workspace gets that workspace and the member role', async () => {
        const { session, user, joined } = await userInTwoWorkspaces(t);
        const response = await call(t, 'GET', '/user', { token: session, workspace: joined.id });
        assert.equal(response.statusCode, 200);
        assert.deepEqual(response.json(), {
          success: true,
          data: { id: user.id, email: user.email, name: user.name, workspace: { id: joined.id, name: joined.name, role: 'member' } },
        });
      });
    });

    describe('GET /health', () => {
      test('answers 200 with the status of the service and its database, without authentication', async () => {
        const response = await call(t, 'GET', '/health');
        assert.equal(response.statusCode, 200);
        assert.deepEqual(response.json(), { success: true, data: { status: 'ok', database: 'ok', platforms: [] } });
      });
    });

    describe('GET /openapi.json', () => {
      let doc: any;
      before(async () => {
        const response = await call(t, 'GET', '/openapi.json');
        assert.equal(response.statusCode, 200);
        doc = response.json();
      });

      const operations = () =>
        Object.entries<Record<string, { security?: unknown[]; responses?: Record<string, unknown> }>>(doc.paths).flatMap(([path, ops]) =>
          Object.entries(ops).map(([method, op]) => ({ path, method, op })),
        );

      test('is an OpenAPI 3.1.0 document with a bearer security scheme', () => {
        assert.equal(doc.openapi, '3.1.0');
        assert.equal(doc.components.securitySchemes.bearerAuth.type, 'http');
        assert.equal(doc.components.securitySchemes.bearerAuth.scheme, 'bearer');
      });

      test('GET /user needs the bearer and a required X-Workspace-Id header parameter', () => {
        const op = doc.paths['/api/v1/user'].get;
        assert.deepEqual(op.security, [{ bearerAuth: [] }]);
        const header = op.parameters.find(
          (p: { in: string; name: string }) => p.in === 'header' && p.name.toLowerCase() === 'x-workspace-id',
        );
        assert.ok(header, 'x-workspace-id header parameter');
        assert.equal(header.required, true);
      });

      test('GET /workspaces needs the bearer but no X-Workspace-Id header', () => {
        const op = doc.paths['/api/v1/workspaces'].get;
        assert.deepEqual(op.security, [{ bearerAuth: [] }]);
        const headers = (op.parameters ?? []).filter(
          (p: { in: string; name: string }) => p.in === 'header' && p.name.toLowerCase() === 'x-workspace-id',
        );
        assert.deepEqual(headers, []);
      });

      test('POST /auth/login needs no security', () => {
        const op = doc.paths['/api/v1/auth/login'].post;
        assert.ok(op, 'login is documented');
        assert.equal(doc.security, undefined, 'no document-wide security for login to inherit');
        assert.ok(
          op.security === undefined || (Array.isArray(op.security) && op.security.length === 0),
          `login security: ${JSON.stringify(op.security)}`,
        );
      });

      test('documents every endpoint of DESIGN §3 that exists so far', () => {
        const documented = operations()
          .map(({ path, method }) => `${method.toUpperCase()} ${path}`)
          .sort();
        for (const expected of [
          'POST /api/v1/auth/register',
          'POST /api/v1/auth/login',
          'POST /api/v1/auth/logout',
          'GET /api/v1/personal-access-tokens',
          'POST /api/v1/personal-access-tokens',
          'DELETE /api/v1/personal-access-tokens/{id}',
          'GET /api/v1/workspaces',
          'GET /api/v1/user',
          'GET /api/v1/products',
          'GET /api/v1/health',
        ]) {
          assert.ok(documented.includes(expected), `${expected} missing from ${documented.join(', ')}`);
        }
      });

      test('the error body is one shared schema with the fields of DESIGN §2', () => {
        const error = doc.components.schemas.Error;
        assert.deepEqual([...error.required].sort(), ['code', 'message', 'success']);
        assert.deepEqual(Object.keys(error.properties).sort(), ['code', 'errors', 'message', 'success']);
      });

      test('every operation documents its success response and the error body for each error status it can give', () => {
        for (const { path, method, op } of operations()) {
          const where = `${method.toUpperCase()} ${path}`;
          const responses = op.responses ?? {};
          const success = Object.keys(responses).filter((status) => /^2\d\d$/.test(status));
          // DESIGN §10: publishing answers 202 with the listing, validating (`mode: validate`) 200 with the issues.
          const expected2xx = where === 'POST /api/v1/sites/{site_id}/listings' ? ['200', '202'] : null;
          if (expected2xx) assert.deepEqual(success.sort(), expected2xx, where);
          else assert.equal(success.length, 1, `${where}: one success response`);
          const expected = op.security?.length ? [...ERROR_STATUSES, ...AUTH_ERROR_STATUSES] : ERROR_STATUSES;
          for (const status of expected) {
            const schema = (responses[status] as { content?: Record<string, { schema?: { $ref?: string } }> } | undefined)?.content?.[
              'application/json'
            ]?.schema;
            assert.ok(schema, `${where}: response ${status} documented`);
            assert.equal(schema.$ref, '#/components/schemas/Error', `${where}: ${status} is the error body`);
          }
        }
      });

      test('POST /personal-access-tokens has a JSON request body with name and expires_in_days', () => {
        const schema = doc.paths['/api/v1/personal-access-tokens'].post.requestBody.content['application/json'].schema;
        assert.deepEqual(Object.keys(schema.properties).sort(), ['expires_in_days', 'name']);
        assert.deepEqual([...schema.required].sort(), ['expires_in_days', 'name']);
      });
    });
  });

  describe(`GET /health with the database closed [${kind}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind);
      await t.database.close();
    });
    // The database is already closed (and, on PostgreSQL, dropped): close only the app.
    after(async () => {
      await t.app.close();
      await t.deps.close();
    });

    test('answers 503 Service unavailable with a Retry-After header', async () => {
      const response = await call(t, 'GET', '/health');
      assert.equal(response.statusCode, 503);
      assert.deepEqual(response.json(), errorBody(503, 'Service unavailable'));
      assert.match(String(response.headers['retry-after']), /^[1-9][0-9]*$/);
    });
  });

  describe(`POST /auth/register with ALLOW_SIGNUP=false [${kind}]`, () => {
    let t: TestApp;
    before(async () => (t = await createTestApp(kind, { env: { ALLOW_SIGNUP: 'false' } })));
    after(() => t.close());

    test('is 403 and creates no user', async () => {
      const response = await call(t, 'POST', '/auth/register', {
        body: { email: 'closed@example.com', password: 'a fine password', name: 'Closed' },
      });
      assert.equal(response.statusCode, 403);
      // docs/decisions.md: the message says why, the status is DESIGN §3's.
      assert.deepEqual(response.json(), errorBody(403, 'Sign-up is disabled'));
      assert.equal(await countUsers(t), 0);
    });
  });
}
