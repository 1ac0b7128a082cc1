/**
 * Security cases, one test each (issue 6, item 3): forged, confused, expired, reused and tampered tokens, both as the
 * bearer of an API request and as the OAuth state at a callback; a code replayed at another track's callback; hostile
 * redirect URLs; a login brute force. Every forged token starts from a real one and changes one property.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { deriveSigningKey } from '../../src/core/auth/keys.js';
import { STATE_TTL_MS } from '../../src/core/connect/oauth-states.js';
import type { Track } from '../../src/domain/index.js';
import { type Actor, authorizationUrl, connectThroughSandbox, consent, locationOf, openCallback } from '../helpers/connect.js';
import { databaseKinds, selectRows } from '../helpers/database.js';
import { UNAUTHENTICATED } from '../helpers/fixtures.js';
import { algorithmConfusions, resign, tampered, unsigned } from '../helpers/forge.js';
import { call, createPat, createTestApp, errorBody, registerUser, type TestApp } from '../helpers/test-app.js';

const CUSTOM = 'https://seller.example/done';
const EVIL = 'https://evil.example/phish';
const DAY = 24 * 3600 * 1000;
const INVALID_STATE = errorBody(400, 'Invalid authorization state. Please try authenticating again.');
const EXPIRED_STATE = errorBody(400, 'Authorization state has expired. Please try authenticating again.');
const REDIRECT_MESSAGE = 'The redirect url must be a valid http or https URL without the | character.';
const CUSTOM_FIELD_MESSAGE =
  'The custom field value must start with a valid http or https URL without the | character. Tracking pairs after it are ;key=value with a non-empty key.';
const OTHER_KID = deriveSigningKey('another-secret-that-is-long-enough-9876543210').kid;

/** Runs `body` with the clock moved by `ms`, then moves it back, so later tests in the shared app see the same time. */
async function later(t: TestApp, ms: number, body: () => Promise<void>) {
  t.clock.advance(ms);
  try {
    await body();
  } finally {
    t.clock.advance(-ms);
  }
}

for (const kind of databaseKinds()) {
  describe(`security [${kind}]`, () => {
    let t: TestApp;
    let actor: Actor;
    let sellerSite: number;
    let sandboxAccount = 100;
    before(async () => {
      t = await createTestApp(kind, { listen: true });
      actor = await registerUser(t);
      sellerSite = Number(
        /\/site\/(\d+)\/listings$/.exec(locationOf(await connectThroughSandbox(t, actor, { platform_id: 5 }, 'allow', '99')))![1],
      );
    });
    after(() => t.close());

    /** What a refused callback must leave as it was: sites, credentials, and the simulators' token endpoints (no code exchanged). */
    async function footprint() {
      const [row] = await selectRows<{ sites: string; credentials: string }>(
        t.database,
        sql`select (select count(*) from sites) as sites, (select count(*) from site_credentials) as credentials`,
      );
      const tokenCalls = [...t.deps.sandbox.calls].filter(([key]) => key.endsWith(':token')).reduce((sum, [, n]) => sum + n, 0);
      return { sites: Number(row!.sites), credentials: Number(row!.credentials), tokenCalls };
    }

    /** A real state and code: where the simulator sends the browser after Allow (a new sandbox account each time), not yet opened. */
    async function consented(body: Record<string, unknown> = { platform_id: 1, redirect_url: CUSTOM }): Promise<URL> {
      return new URL(await consent(await authorizationUrl(t, actor, body), 'allow', String(sandboxAccount++)));
    }

    const stateOf = (callback: URL) => callback.searchParams.get('state')!;
    const withState = (callback: URL, state: string) => {
      const url = new URL(callback);
      url.searchParams.set('state', state);
      return url.toString();
    };

    /** The callback refuses this state as invalid, by redirect and in JSON, and nothing is created or exchanged. */
    async function assertInvalidState(callback: URL, state: string, label = '') {
      const before = await footprint();
      assert.equal(
        locationOf(await openCallback(withState(callback, state))),
        `${t.deps.config.appUrl}/dashboard?authorization_error=Invalid+authorization+state`,
        label,
      );
      const json = await openCallback(withState(callback, state), 'application/json');
      assert.deepEqual([json.status, await json.json()], [400, INVALID_STATE], label);
      assert.deepEqual(await footprint(), before, `${label}: nothing created, no code exchanged`);
    }

    describe('the OAuth state at a callback', () => {
      test('a state re-signed here exactly as the app signs it connects (control for the forgeries below)', async () => {
        const callback = await consented();
        const before = await footprint();
        assert.equal(locationOf(await openCallback(withState(callback, resign(stateOf(callback))))), CUSTOM);
        assert.equal((await footprint()).sites, before.sites + 1);
      });

      test('an unsigned alg none state is invalid and creates nothing', async () => {
        const callback = await consented();
        await assertInvalidState(callback, unsigned(stateOf(callback)));
      });

      test('a state signed with any algorithm but HS256 is invalid and creates nothing', async () => {
        const callback = await consented();
        for (const [label, forged] of await algorithmConfusions(stateOf(callback))) await assertInvalidState(callback, forged, label);
      });

      test('a state under an unknown, missing or foreign kid is invalid and creates nothing', async () => {
        const callback = await consented();
        for (const kid of ['unknown-kid', undefined, OTHER_KID])
          await assertInvalidState(callback, resign(stateOf(callback), { header: { kid } }), `kid ${kid}`);
      });

      test('a PAT or a session token presented as the state is invalid and creates nothing', async () => {
        const callback = await consented();
        const pat = await createPat(t, actor.session);
        await assertInvalidState(callback, pat.token, 'PAT');
        await assertInvalidState(callback, actor.session, 'session');
      });

      test('a state re-signed with the typ of a PAT, a session, JWT or none is invalid and creates nothing', async () => {
        const callback = await consented();
        for (const typ of ['pat+jwt', 'session+jwt', 'JWT', undefined])
          await assertInvalidState(callback, resign(stateOf(callback), { header: { typ } }), `typ ${typ}`);
      });

      test('a state re-signed with the aud of a PAT, a session, another or none is invalid and creates nothing', async () => {
        const callback = await consented();
        for (const aud of ['storelink:pat', 'storelink:session', 'storelink', undefined])
          await assertInvalidState(callback, resign(stateOf(callback), { claims: { aud } }), `aud ${aud}`);
      });

      test('a state past its 15 minutes goes to its signed redirect_url as expired and creates nothing', async () => {
        const callback = await consented();
        const before = await footprint();
        await later(t, STATE_TTL_MS, async () => {
          assert.equal(
            locationOf(await openCallback(callback.toString())),
            `${CUSTOM}?authorization_error=Authorization+state+has+expired`,
          );
          const json = await openCallback(callback.toString(), 'application/json');
          assert.deepEqual([json.status, await json.json()], [400, EXPIRED_STATE]);
        });
        assert.deepEqual(await footprint(), before);
      });

      test('an expired state with a forged redirect_url is invalid, not expired, and never sent there', async () => {
        const callback = await consented();
        await later(t, STATE_TTL_MS + 1000, () => assertInvalidState(callback, tampered(stateOf(callback), { redirect_url: EVIL })));
      });

      test('a state used a second time is invalid and creates nothing more', async () => {
        const callback = await consented();
        assert.equal(locationOf(await openCallback(callback.toString())), CUSTOM);
        await assertInvalidState(callback, stateOf(callback));
      });

      test('a state whose claims were changed under the original signature is invalid and creates nothing', async () => {
        const other = await registerUser(t);
        const callback = await consented();
        const state = stateOf(callback);
        const changes = [
          { sub: String(other.user.id), user_id: other.user.id },
          { wp_id: other.workspace.id },
          { redirect_url: EVIL },
          { platform_id: 5 },
          { exp: Math.floor(t.clock.now().getTime() / 1000) + 30 * 86400 },
        ];
        for (const change of changes) await assertInvalidState(callback, tampered(state, change), JSON.stringify(change));
        assert.equal(locationOf(await openCallback(callback.toString())), CUSTOM, 'the genuine state was not used up by the attempts');
      });

      test("a state and code replayed at another track's callback are refused there, create nothing, and still connect at their own", async () => {
        const bodies: Record<Track, Record<string, unknown>> = {
          etsy: { platform_id: 1, redirect_url: CUSTOM },
          'tiktok-shop': { platform_id: 4, custom_field_value: CUSTOM },
          'amazon-seller': { platform_id: 5, redirect_url: CUSTOM },
          'amazon-ads': { platform_id: 5, site_id: sellerSite, redirect_url: CUSTOM },
        };
        const tracks = Object.keys(bodies) as Track[];
        for (const own of tracks) {
          const callback = await consented(bodies[own]);
          for (const elsewhere of tracks.filter((track) => track !== own)) {
            const replayed = new URL(callback.toString().replace(`/oauth/callback/${own}?`, `/oauth/callback/${elsewhere}?`));
            assert.notEqual(replayed.pathname, callback.pathname);
            await assertInvalidState(replayed, stateOf(callback), `${own} at ${elsewhere}`);
          }
          const location = locationOf(await openCallback(callback.toString()));
          assert.match(
            location,
            /^https:\/\/seller\.example\/done(\?platform=marketplace&site_id=\d+(&segment=advertising)?)?$/,
            `${own} at its own callback`,
          );
        }
      });
    });

    describe('the bearer on an API route', () => {
      /** A new user with a session and a PAT. */
      async function account(expiresInDays: number | null = 30) {
        const registered = await registerUser(t);
        return { ...registered, pat: await createPat(t, registered.session, { expires_in_days: expiresInDays }) };
      }

      async function assertUnauthenticated(token: string, workspace: number, label = '') {
        const response = await call(t, 'GET', '/user', { token, workspace });
        assert.deepEqual([response.statusCode, response.json()], [401, UNAUTHENTICATED], label);
      }

      test('a PAT and a session re-signed here exactly as the app signs them are accepted (control for the forgeries below)', async () => {
        const { session, pat, workspace } = await account();
        for (const token of [resign(pat.token), resign(session)])
          assert.equal((await call(t, 'GET', '/user', { token, workspace: workspace.id })).statusCode, 200);
      });

      test('an unsigned alg none bearer is 401', async () => {
        const { session, pat, workspace } = await account();
        await assertUnauthenticated(unsigned(pat.token), workspace.id, 'PAT');
        await assertUnauthenticated(unsigned(session), workspace.id, 'session');
      });

      test('a bearer signed with any algorithm but HS256 is 401', async () => {
        const { pat, workspace } = await account();
        for (const [label, forged] of await algorithmConfusions(pat.token)) await assertUnauthenticated(forged, workspace.id, label);
      });

      test('a bearer under an unknown, missing or foreign kid is 401', async () => {
        const { pat, workspace } = await account();
        for (const kid of ['unknown-kid', undefined, OTHER_KID])
          await assertUnauthenticated(resign(pat.token, { header: { kid } }), workspace.id, `kid ${kid}`);
      });

      test('an OAuth state presented as the bearer is 401', async () => {
        const { session, workspace } = await account();
        const state = new URL(await authorizationUrl(t, { session, workspace }, { platform_id: 1 })).searchParams.get('state')!;
        await assertUnauthenticated(state, workspace.id);
      });

      test('a PAT re-signed with the typ of a state, a session, JWT or none is 401', async () => {
        const { pat, workspace } = await account();
        for (const typ of ['oauth-state+jwt', 'session+jwt', 'JWT', undefined])
          await assertUnauthenticated(resign(pat.token, { header: { typ } }), workspace.id, `typ ${typ}`);
      });

      test('a PAT re-signed with the aud of a state, a session, another or none is 401', async () => {
        const { pat, workspace } = await account();
        for (const aud of ['storelink:oauth-state', 'storelink:session', 'storelink', undefined])
          await assertUnauthenticated(resign(pat.token, { claims: { aud } }), workspace.id, `aud ${aud}`);
      });

      test('a 7-day PAT works until its last second and is 401 from its expiry on', async () => {
        const { pat, workspace } = await account(7);
        await later(t, 7 * DAY - 1000, async () =>
          assert.equal((await call(t, 'GET', '/user', { token: pat.token, workspace: workspace.id })).statusCode, 200),
        );
        await later(t, 7 * DAY, () => assertUnauthenticated(pat.token, workspace.id));
      });

      test('a session is 401 once its 12 hours are over', async () => {
        const { session, workspace } = await account();
        await later(t, DAY / 2, () => assertUnauthenticated(session, workspace.id));
      });

      test('a PAT reused after its revocation, or a session after logout, is 401', async () => {
        const { session, pat, workspace } = await account();
        assert.equal((await call(t, 'DELETE', `/personal-access-tokens/${pat.id}`, { token: session })).statusCode, 200);
        await assertUnauthenticated(pat.token, workspace.id, 'revoked PAT');
        assert.equal((await call(t, 'POST', '/auth/logout', { token: session })).statusCode, 200);
        await assertUnauthenticated(session, workspace.id, 'logged-out session');
      });

      test("a PAT whose sub, jti or exp was changed under the original signature is 401, also in the other user's workspace", async () => {
        const alice = await account(7);
        const bob = await account();
        const changes = [
          { sub: String(bob.user.id) },
          { jti: String(decodeJwt(bob.pat.token).jti) },
          { exp: Math.floor(t.clock.now().getTime() / 1000) + 365 * 86400 },
        ];
        for (const change of changes) {
          for (const workspace of [alice.workspace.id, bob.workspace.id])
            await assertUnauthenticated(tampered(alice.pat.token, change), workspace, `${JSON.stringify(change)} in ${workspace}`);
        }
      });
    });

    describe('redirect URLs given to authenticate-site', () => {
      /** Every field that carries a caller's redirect (DESIGN §4), with the message its rule answers. */
      const fields = () => [
        { field: 'redirect_url', message: REDIRECT_MESSAGE, body: (url: string) => ({ platform_id: 1, redirect_url: url }) },
        { field: 'redirect_url', message: REDIRECT_MESSAGE, body: (url: string) => ({ platform_id: 5, redirect_url: url }) },
        {
          field: 'redirect_url',
          message: REDIRECT_MESSAGE,
          body: (url: string) => ({ platform_id: 5, site_id: sellerSite, redirect_url: url }),
        },
        {
          field: 'custom_field_value',
          message: CUSTOM_FIELD_MESSAGE,
          body: (url: string) => ({ platform_id: 4, custom_field_value: url }),
        },
      ];
      const stateCount = async () =>
        Number((await selectRows<{ n: string }>(t.database, sql`select count(*) as n from oauth_states`))[0]!.n);
      const post = (body: unknown) => call(t, 'POST', '/authenticate-site', { token: actor.session, workspace: actor.workspace.id, body });

      /** Each URL is 422 on every redirect field, naming that field alone (with `message` when given), and stores no state. */
      async function assertRefused(urls: string[], message?: (field: string) => string) {
        for (const url of urls) {
          for (const { field, message: ruleMessage, body } of fields()) {
            const before = await stateCount();
            const response = await post(body(url));
            const label = `${JSON.stringify(body(url).platform_id)} ${field}: ${JSON.stringify(url.slice(0, 60))}`;
            assert.equal(response.statusCode, 422, label);
            assert.deepEqual(
              response.json(),
              { ...errorBody(422, 'The given data was invalid.'), errors: { [field]: [message ? message(field) : ruleMessage] } },
              label,
            );
            assert.equal(await stateCount(), before, `${label}: no state stored`);
          }
        }
      }

      const atLength = (length: number) => `${CUSTOM}/${'a'.repeat(length - CUSTOM.length - 1)}`;

      test('an https redirect of exactly 2,048 characters is accepted on every redirect field (control for the cases below)', async () => {
        for (const { body } of fields()) {
          const before = await stateCount();
          assert.equal((await post(body(atLength(2048)))).statusCode, 200);
          assert.equal(await stateCount(), before + 1);
        }
      });

      test('a javascript: redirect is 422 on its field and stores nothing', async () => {
        await assertRefused(['javascript:alert(document.domain)', 'JavaScript://seller.example/%0Aalert(1)', ' javascript:alert(1)']);
      });

      test('a data: redirect is 422 on its field and stores nothing', async () => {
        await assertRefused(['data:text/html,<script>alert(1)</script>', 'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==']);
      });

      test('a scheme-relative //host redirect, or one a URL parser would repair into a host, is 422 on its field and stores nothing', async () => {
        await assertRefused([
          '//evil.example/phish',
          '///evil.example',
          'https:///evil.example',
          'https:evil.example',
          'https:/evil.example',
        ]);
      });

      test('a redirect with a backslash is 422 on its field and stores nothing', async () => {
        await assertRefused([
          'https://seller.example\\@evil.example/',
          'https:\\\\evil.example',
          '/\\evil.example',
          'https://evil.example\\.seller.example/',
        ]);
      });

      test('a redirect with CR or LF is 422 on its field and stores nothing', async () => {
        await assertRefused([
          'https://seller.example/\r\nSet-Cookie: a=b',
          'https://seller.example/\nx',
          'https://seller.example/\rx',
          'https://seller.example\r\n.evil.example/',
        ]);
      });

      test('a redirect with user:password@ or any userinfo is 422 on its field and stores nothing', async () => {
        await assertRefused([
          'https://user:password@seller.example/',
          'https://seller.example@evil.example/',
          'https://:password@seller.example/',
        ]);
      });

      test('a redirect over 2,048 characters is 422 on its field saying it is too long, and stores nothing', async () => {
        // redirect_url's schema says 2,048 as the rule does; custom_field_value's 4,096 leaves room for tracking pairs.
        await assertRefused([atLength(2049), atLength(4096)], (field) =>
          field === 'redirect_url'
            ? 'The redirect url field must not be greater than 2048 characters.'
            : 'The URL of the custom field value must not be greater than 2048 characters.',
        );
        await assertRefused([atLength(4097)], (field) =>
          field === 'redirect_url'
            ? 'The redirect url field must not be greater than 2048 characters.'
            : 'The custom field value field must not be greater than 4096 characters.',
        );
      });
    });

    describe('login brute force', () => {
      const login = (email: string, password: string, remoteAddress: string) =>
        call(t, 'POST', '/auth/login', { body: { email, password }, remoteAddress });

      function assertTooManyRequests(response: Awaited<ReturnType<typeof call>>, label: string) {
        assert.deepEqual([response.statusCode, response.json()], [429, errorBody(429, 'Too many requests')], label);
        const retryAfter = Number(response.headers['retry-after']);
        assert.ok(
          Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60,
          `${label}: Retry-After ${response.headers['retry-after']}`,
        );
      }

      test('wrong passwords for one email are 429 with Retry-After from the 6th, and the right password is refused too', async () => {
        const { user, password } = await registerUser(t);
        const sessions = async () =>
          Number(
            (
              await selectRows<{ n: string }>(
                t.database,
                sql`select count(*) as n from access_tokens where user_id = ${user.id} and kind = 'session'`,
              )
            )[0]!.n,
          );
        const before = await sessions();
        for (let attempt = 1; attempt <= 5; attempt++)
          assert.deepEqual((await login(user.email, `wrong ${attempt}`, '10.66.0.1')).json(), UNAUTHENTICATED, `attempt ${attempt}`);
        for (let attempt = 6; attempt <= 10; attempt++)
          assertTooManyRequests(await login(user.email, `wrong ${attempt}`, '10.66.0.1'), `attempt ${attempt}`);
        const right = await login(user.email, password, '10.66.0.1');
        assertTooManyRequests(right, 'the right password');
        assert.ok(!right.body.includes('token'));
        assert.equal(await sessions(), before, 'no session was issued');
      });

      test('a password spray over many emails from one address is 429 after 20 attempts', async () => {
        for (let attempt = 1; attempt <= 20; attempt++)
          assert.equal((await login(`spray${attempt}@example.com`, 'Password1!', '10.66.0.2')).statusCode, 401, `attempt ${attempt}`);
        assertTooManyRequests(await login('spray21@example.com', 'Password1!', '10.66.0.2'), 'attempt 21');
      });
    });
  });
}
