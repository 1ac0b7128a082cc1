import assert from 'node:assert/strict';
import type { KeyObject } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { decodeJwt, decodeProtectedHeader, type JWTPayload, SignJWT } from 'jose';
import { deriveSigningKey } from '../../src/core/auth/keys.js';
import { addMembership, removeMembership } from '../../src/db/accounts.repo.js';
import { databaseKinds } from '../helpers/database.js';
import { FORBIDDEN, UNAUTHENTICATED } from '../helpers/fixtures.js';
import {
  API,
  call,
  createPat,
  createTestApp,
  errorBody,
  registerUser,
  TEST_APP_SECRET,
  type TestApp,
  within,
} from '../helpers/test-app.js';

const HOUR = 3600 * 1000;
const OTHER_SECRET = 'another-secret-that-is-long-enough-9876543210';
const APP_KEY = deriveSigningKey(TEST_APP_SECRET);

/** Every route that needs a bearer today; the OpenAPI loop must find at least these. */
const KNOWN_SECURED_ROUTES = [
  'POST /auth/logout',
  'GET /personal-access-tokens',
  'POST /personal-access-tokens',
  'DELETE /personal-access-tokens/{id}',
  'GET /workspaces',
  'GET /user',
  'GET /products',
];

type Forged = { claims: JWTPayload; alg?: string; typ?: string; kid?: string; key?: KeyObject };

/** A JWT signed here, as the app would sign a PAT unless told otherwise: HS256, typ pat+jwt, the app's kid and key. */
function forge({ claims, alg = 'HS256', typ = 'pat+jwt', kid = APP_KEY.kid, key = APP_KEY.key }: Forged): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg, typ, kid }).sign(key);
}

/** The claims of a real PAT (its sub and jti) with the issuer, audience and issue time the app sets, plus overrides. */
function claimsOf(token: string, now: Date, overrides: JWTPayload = {}): JWTPayload {
  const { sub, jti } = decodeJwt(token);
  return { sub, jti, iss: 'storelink', aud: 'storelink:pat', iat: Math.floor(now.getTime() / 1000), ...overrides };
}

const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

for (const kind of databaseKinds()) {
  describe(`authentication [${kind}]`, () => {
    let t: TestApp;
    before(async () => (t = await createTestApp(kind)));
    after(() => t.close());

    /** A new user with a session, a 30-day PAT and their own workspace. */
    async function account() {
      const registered = await registerUser(t);
      return { ...registered, pat: await createPat(t, registered.session) };
    }

    /** GET /user in the user's own workspace with the given Authorization header value (or none). */
    const getUser = (workspace: number, authorization?: string) =>
      call(t, 'GET', '/user', { workspace, headers: authorization === undefined ? {} : { authorization } });

    function assertUnauthenticated(response: Awaited<ReturnType<typeof call>>) {
      assert.equal(response.statusCode, 401);
      assert.deepEqual(response.json(), UNAUTHENTICATED);
    }

    function assertForbidden(response: Awaited<ReturnType<typeof call>>) {
      assert.equal(response.statusCode, 403);
      assert.deepEqual(response.json(), FORBIDDEN);
    }

    describe('every secured route', () => {
      test('every route the OpenAPI document secures answers 401 Unauthenticated without a bearer', async () => {
        const document = (await call(t, 'GET', '/openapi.json')).json() as {
          paths: Record<string, Record<string, { security?: unknown[] }>>;
        };
        const answers: Record<string, unknown> = {};
        const expected: Record<string, unknown> = {};
        for (const [path, operations] of Object.entries(document.paths)) {
          for (const [method, operation] of Object.entries(operations)) {
            if (!operation.security?.length) continue;
            const route = `${method.toUpperCase()} ${path.startsWith(API) ? path.slice(API.length) : path}`;
            const response = await t.app.inject({ method: method.toUpperCase() as 'GET', url: path.replaceAll(/\{[^}]+\}/g, '1') });
            answers[route] = { status: response.statusCode, body: response.json() };
            expected[route] = { status: 401, body: UNAUTHENTICATED };
          }
        }
        for (const route of KNOWN_SECURED_ROUTES) assert.ok(route in answers, `${route} is not secured in the OpenAPI document`);
        assert.deepEqual(answers, expected);
      });
    });

    describe('401: the bearer', () => {
      test('a forged token built like the app builds one is accepted (control for the cases below)', async () => {
        const { pat, workspace } = await account();
        const response = await getUser(workspace.id, `Bearer ${await forge({ claims: claimsOf(pat.token, t.clock.now()) })}`);
        assert.equal(response.statusCode, 200);
      });

      test('no Authorization header is 401', async () => {
        const { workspace } = await account();
        assertUnauthenticated(await getUser(workspace.id));
      });

      test('"Bearer" with no token is 401', async () => {
        const { workspace } = await account();
        assertUnauthenticated(await getUser(workspace.id, 'Bearer '));
      });

      test('a Basic Authorization header is 401', async () => {
        const { workspace } = await account();
        assertUnauthenticated(await getUser(workspace.id, 'Basic xyz'));
      });

      test('a bearer that is not a JWT is 401', async () => {
        const { workspace } = await account();
        assertUnauthenticated(await getUser(workspace.id, 'Bearer not-a-jwt-at-all'));
      });

      test('a PAT sent with another scheme than Bearer is 401', async () => {
        const { pat, workspace } = await account();
        assertUnauthenticated(await getUser(workspace.id, `Token ${pat.token}`));
      });

      test('a JWT signed with another secret is 401', async () => {
        const { pat, workspace } = await account();
        const other = deriveSigningKey(OTHER_SECRET);
        const token = await forge({ claims: claimsOf(pat.token, t.clock.now()), key: other.key, kid: other.kid });
        assertUnauthenticated(await getUser(workspace.id, `Bearer ${token}`));
      });

      test("a JWT under the app's kid but signed with another secret is 401", async () => {
        const { pat, workspace } = await account();
        const token = await forge({ claims: claimsOf(pat.token, t.clock.now()), key: deriveSigningKey(OTHER_SECRET).key });
        assertUnauthenticated(await getUser(workspace.id, `Bearer ${token}`));
      });

      test('HS512 with the right key is 401 (only HS256 is allowed)', async () => {
        const { pat, workspace } = await account();
        const token = await forge({ claims: claimsOf(pat.token, t.clock.now()), alg: 'HS512' });
        assertUnauthenticated(await getUser(workspace.id, `Bearer ${token}`));
      });

      test('an unsigned alg none token is 401', async () => {
        const { pat, workspace } = await account();
        const token = `${base64url({ alg: 'none', typ: 'pat+jwt', kid: APP_KEY.kid })}.${base64url(claimsOf(pat.token, t.clock.now()))}.`;
        assertUnauthenticated(await getUser(workspace.id, `Bearer ${token}`));
      });

      test('a well-signed token with an unknown kid is 401', async () => {
        const { pat, workspace } = await account();
        const token = await forge({ claims: claimsOf(pat.token, t.clock.now()), kid: 'unknown-kid' });
        assertUnauthenticated(await getUser(workspace.id, `Bearer ${token}`));
      });

      test('an OAuth state token used as a bearer is 401', async () => {
        const { pat, workspace } = await account();
        const claims = claimsOf(pat.token, t.clock.now(), { aud: 'storelink:oauth-state' });
        assertUnauthenticated(await getUser(workspace.id, `Bearer ${await forge({ claims, typ: 'oauth-state+jwt' })}`));
      });

      test('typ pat+jwt with the audience of a session is 401', async () => {
        const { pat, workspace } = await account();
        const claims = claimsOf(pat.token, t.clock.now(), { aud: 'storelink:session' });
        assertUnauthenticated(await getUser(workspace.id, `Bearer ${await forge({ claims })}`));
      });

      test('a PAT record presented as a session token is 401', async () => {
        const { pat, workspace } = await account();
        const claims = claimsOf(pat.token, t.clock.now(), { aud: 'storelink:session' });
        assertUnauthenticated(await getUser(workspace.id, `Bearer ${await forge({ claims, typ: 'session+jwt' })}`));
      });

      test('a session record presented as a PAT is 401', async () => {
        const { session, workspace } = await account();
        const claims = claimsOf(session, t.clock.now(), { aud: 'storelink:pat' });
        assertUnauthenticated(await getUser(workspace.id, `Bearer ${await forge({ claims, typ: 'pat+jwt' })}`));
      });

      test('a wrong issuer is 401', async () => {
        const { pat, workspace } = await account();
        const claims = claimsOf(pat.token, t.clock.now(), { iss: 'someone-else' });
        assertUnauthenticated(await getUser(workspace.id, `Bearer ${await forge({ claims })}`));
      });

      test('a well-formed token whose jti has no record is 401', async () => {
        const { pat, workspace } = await account();
        const claims = claimsOf(pat.token, t.clock.now(), { jti: 'no-such-token-id-0000' });
        assertUnauthenticated(await getUser(workspace.id, `Bearer ${await forge({ claims })}`));
      });

      test('a token without a jti is 401', async () => {
        const { pat, workspace } = await account();
        const { jti: _, ...claims } = claimsOf(pat.token, t.clock.now());
        assertUnauthenticated(await getUser(workspace.id, `Bearer ${await forge({ claims })}`));
      });

      test("a token whose sub is not the record's user is 401", async () => {
        const alice = await account();
        const bob = await account();
        const claims = claimsOf(bob.pat.token, t.clock.now(), { sub: String(alice.user.id) });
        assertUnauthenticated(await getUser(alice.workspace.id, `Bearer ${await forge({ claims })}`));
      });

      test('a revoked PAT is 401', async () => {
        const { session, pat, workspace } = await account();
        await call(t, 'DELETE', `/personal-access-tokens/${pat.id}`, { token: session });
        assertUnauthenticated(await getUser(workspace.id, `Bearer ${pat.token}`));
      });

      test('a logged-out session is 401', async () => {
        const { session, workspace } = await account();
        await call(t, 'POST', '/auth/logout', { token: session });
        assertUnauthenticated(await getUser(workspace.id, `Bearer ${session}`));
      });

      test('an expired session is 401', async () => {
        const { session, workspace } = await account();
        t.clock.advance(12 * HOUR + 1000);
        assertUnauthenticated(await getUser(workspace.id, `Bearer ${session}`));
      });

      test('a session token without exp is 401 once its record has expired', async () => {
        const { session, workspace } = await account();
        const claims = claimsOf(session, t.clock.now(), { aud: 'storelink:session' });
        const token = await forge({ claims, typ: 'session+jwt' });
        t.clock.advance(12 * HOUR + 1000);
        assertUnauthenticated(await getUser(workspace.id, `Bearer ${token}`));
      });
    });

    describe('403: the workspace', () => {
      for (const header of ['abc', '1.5', '-1', '0', '99999999999999999999', '2147483648', '1e3', '0x1']) {
        test(`X-Workspace-Id "${header}" is 403`, async () => {
          const { pat } = await account();
          assertForbidden(await call(t, 'GET', '/user', { token: pat.token, workspace: header }));
        });
      }

      test('a missing X-Workspace-Id is 403 on a workspace route', async () => {
        const { pat } = await account();
        assertForbidden(await call(t, 'GET', '/user', { token: pat.token }));
      });

      test('an X-Workspace-Id of no workspace is 403', async () => {
        const { pat } = await account();
        assertForbidden(await call(t, 'GET', '/user', { token: pat.token, workspace: 2_000_000_000 }));
      });

      test("another user's workspace is 403", async () => {
        const alice = await account();
        const bob = await account();
        assertForbidden(await call(t, 'GET', '/user', { token: alice.pat.token, workspace: bob.workspace.id }));
      });

      test('GET /workspaces needs no X-Workspace-Id', async () => {
        const { pat, workspace } = await account();
        const response = await call(t, 'GET', '/workspaces', { token: pat.token });
        assert.equal(response.statusCode, 200);
        assert.deepEqual(response.json().data, [workspace]);
      });

      test('a member added to a workspace can use it, and is 403 within a second once removed', async () => {
        const alice = await account();
        const bob = await account();
        const db = t.database.db;
        await addMembership(db, { userId: bob.user.id, workspaceId: alice.workspace.id, role: 'member' });
        const asMember = await call(t, 'GET', '/user', { token: bob.pat.token, workspace: alice.workspace.id });
        assert.equal(asMember.statusCode, 200);
        assert.deepEqual(asMember.json().data.workspace, { id: alice.workspace.id, name: alice.workspace.name, role: 'member' });
        await removeMembership(db, { userId: bob.user.id, workspaceId: alice.workspace.id });
        // Removed behind the service's back: the database's notification reaches the cache, at once or nearly.
        const asFormerMember = () => call(t, 'GET', '/user', { token: bob.pat.token, workspace: alice.workspace.id });
        await within(1_000, async () => (await asFormerMember()).statusCode === 403);
        assertForbidden(await asFormerMember());
      });
    });

    describe('order of checks: 401, then 403, then 422', () => {
      test('a bad bearer with a bad workspace is 401', async () => {
        assertUnauthenticated(await call(t, 'GET', '/user', { token: 'garbage', workspace: 'abc' }));
      });

      test('a bad bearer with an invalid body is 401', async () => {
        assertUnauthenticated(
          await call(t, 'POST', '/personal-access-tokens', { token: 'garbage', body: { name: '', expires_in_days: 3 } }),
        );
      });

      test('a good bearer with a bad workspace and an invalid query is 403', async () => {
        const { pat } = await account();
        assertForbidden(await call(t, 'GET', '/products?per_page=1000', { token: pat.token, workspace: 'abc' }));
      });

      test('a good bearer and workspace with an invalid query is 422', async () => {
        const { pat, workspace } = await account();
        const response = await call(t, 'GET', '/products?per_page=1000', { token: pat.token, workspace: workspace.id });
        assert.equal(response.statusCode, 422);
        assert.deepEqual(response.json(), {
          ...errorBody(422, 'The given data was invalid.'),
          errors: { per_page: ['The per page field must not be greater than 100.'] },
        });
      });

      test('a PAT with an invalid body on a session-only route is 403', async () => {
        const { pat } = await account();
        assertForbidden(await call(t, 'POST', '/personal-access-tokens', { token: pat.token, body: { name: '', expires_in_days: 3 } }));
      });
    });

    describe('what a valid bearer gets', () => {
      test('a session token works on GET /user and GET /workspaces', async () => {
        const { session, user, workspace } = await account();
        const me = await call(t, 'GET', '/user', { token: session, workspace: workspace.id });
        assert.equal(me.statusCode, 200);
        assert.deepEqual(me.json(), { success: true, data: { ...user, workspace } });
        assert.equal((await call(t, 'GET', '/workspaces', { token: session })).statusCode, 200);
      });

      test('a PAT works on GET /user and GET /workspaces', async () => {
        const { pat, user, workspace } = await account();
        const me = await call(t, 'GET', '/user', { token: pat.token, workspace: workspace.id });
        assert.equal(me.statusCode, 200);
        assert.deepEqual(me.json(), { success: true, data: { ...user, workspace } });
        const list = await call(t, 'GET', '/workspaces', { token: pat.token });
        assert.deepEqual(list.json(), { success: true, data: [workspace], meta: { page: 1, per_page: 25, total: 1 } });
      });

      test('the Bearer scheme is case-insensitive', async () => {
        const { pat, workspace } = await account();
        assert.equal((await getUser(workspace.id, `bearer ${pat.token}`)).statusCode, 200);
      });
    });
  });

  describe(`key rotation [${kind}]`, () => {
    const NEW_SECRET = 'the-rotated-app-secret-that-is-long-enough-42';
    let t: TestApp;
    before(async () => (t = await createTestApp(kind, { env: { APP_SECRET: NEW_SECRET, APP_SECRET_PREVIOUS: TEST_APP_SECRET } })));
    after(() => t.close());

    test('new tokens are signed under the kid of the current secret', async () => {
      const { session } = await registerUser(t);
      const pat = await createPat(t, session);
      assert.equal(decodeProtectedHeader(pat.token).kid, deriveSigningKey(NEW_SECRET).kid);
    });

    test('a token signed with a secret of APP_SECRET_PREVIOUS still verifies', async () => {
      const { session, workspace } = await registerUser(t);
      const pat = await createPat(t, session);
      const old = deriveSigningKey(TEST_APP_SECRET);
      const token = await forge({ claims: claimsOf(pat.token, t.clock.now()), kid: old.kid, key: old.key });
      const response = await call(t, 'GET', '/user', { token, workspace: workspace.id });
      assert.equal(response.statusCode, 200);
    });

    test('a token signed with a secret in neither APP_SECRET nor APP_SECRET_PREVIOUS is 401', async () => {
      const { session, workspace } = await registerUser(t);
      const pat = await createPat(t, session);
      const other = deriveSigningKey(OTHER_SECRET);
      const token = await forge({ claims: claimsOf(pat.token, t.clock.now()), kid: other.kid, key: other.key });
      const response = await call(t, 'GET', '/user', { token, workspace: workspace.id });
      assert.equal(response.statusCode, 401);
      assert.deepEqual(response.json(), UNAUTHENTICATED);
    });
  });
}
