/** authenticate-site's rules, the state's security, the callback's answers, and the sites API, on the Etsy track. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { type Actor, authorizationUrl, connectThroughSandbox, consent, locationOf, openCallback } from '../helpers/connect.js';
import { databaseKinds, selectRows } from '../helpers/database.js';
import { call, createPat, createTestApp, errorBody, registerUser, type TestApp } from '../helpers/test-app.js';

const CUSTOM = 'https://seller.example/done';
const REDIRECT_MESSAGE = 'The redirect url must be a valid http or https URL without the | character.';

async function stateCount(t: TestApp): Promise<number> {
  return Number((await selectRows<{ n: string }>(t.database, sql`select count(*) as n from oauth_states`))[0]!.n);
}

for (const kind of databaseKinds()) {
  describe(`authenticate-site [${kind}]`, () => {
    let t: TestApp;
    let actor: Actor;
    before(async () => {
      t = await createTestApp(kind, { listen: true });
      actor = await registerUser(t);
    });
    after(() => t.close());

    const post = (body: unknown, token = actor.session) =>
      call(t, 'POST', '/authenticate-site', { token, workspace: actor.workspace.id, body });

    async function assertRejected(body: unknown, field: string, message?: string) {
      const before = await stateCount(t);
      const response = await post(body);
      assert.equal(response.statusCode, 422, response.body);
      const json = response.json();
      assert.equal(json.message, 'The given data was invalid.');
      assert.ok(json.errors[field], `errors.${field} in ${response.body}`);
      if (message) assert.deepEqual(json.errors[field], [message]);
      assert.equal(await stateCount(t), before, 'a rejected request stores no state');
    }

    test('an invalid, missing or string platform_id is 422 on platform_id', async () => {
      for (const platform_id of [2, 0, '1', null, 1.5])
        await assertRejected({ platform_id }, 'platform_id', 'The selected platform id is invalid.');
      await assertRejected({}, 'platform_id', 'The platform id field is required.');
    });

    test('a redirect_url breaking the seed rules is 422 with the rule in the message', async () => {
      const bad = [
        'seller.example/done',
        'ftp://seller.example',
        'https://seller.example/a|b',
        'javascript:alert(1)',
        '//seller.example',
        'data:text/html,x',
        'https://user:pw@seller.example',
        'https://seller.example/\r\nx',
      ];
      for (const redirect_url of bad) await assertRejected({ platform_id: 1, redirect_url }, 'redirect_url', REDIRECT_MESSAGE);
      await assertRejected({ platform_id: 5, redirect_url: 'nope' }, 'redirect_url', REDIRECT_MESSAGE);
    });

    test('a redirect_url over 2,048 characters is 422 saying it is too long, not blaming its scheme', async () => {
      const redirect_url = `https://seller.example/${'a'.repeat(2040)}`;
      await assertRejected(
        { platform_id: 1, redirect_url },
        'redirect_url',
        'The redirect url field must not be greater than 2048 characters.',
      );
    });

    test('fields of another platform are refused or ignored as DESIGN §4 says', async () => {
      await assertRejected({ platform_id: 1, site_id: 1 }, 'site_id');
      await assertRejected({ platform_id: 1, authorization_url: 'https://services.tiktokshop.com/open/authorize' }, 'authorization_url');
      const ignored = await post({ platform_id: 1, custom_field_value: 'not a url at all' });
      assert.equal(ignored.statusCode, 200, 'custom_field_value is ignored for platform 1');
    });

    test('a site_id that is not a connected Amazon seller site of this workspace is 422', async () => {
      const etsySite = Number(/\/site\/(\d+)\/listings/.exec(locationOf(await connectThroughSandbox(t, actor, { platform_id: 1 })))![1]);
      await assertRejected({ platform_id: 5, site_id: etsySite }, 'site_id');
      await assertRejected({ platform_id: 5, site_id: 999999 }, 'site_id');
    });

    test('every invalid field is reported at once', async () => {
      const response = await post({ platform_id: 1, redirect_url: 'x', site_id: 3, authorization_url: 'https://x.example' });
      assert.deepEqual(Object.keys(response.json().errors).sort(), ['authorization_url', 'redirect_url', 'site_id']);
    });

    test('state records of abandoned flows are removed once they expire', async () => {
      await authorizationUrl(t, actor, { platform_id: 1 });
      t.clock.advance(15 * 60 * 1000 + 1);
      try {
        await authorizationUrl(t, actor, { platform_id: 1 });
        assert.equal(await stateCount(t), 1);
      } finally {
        t.clock.advance(-(15 * 60 * 1000 + 1));
      }
    });

    test('a PAT can start a connection, and the checks run 401, 403, then 422', async () => {
      const pat = await createPat(t, actor.session);
      assert.equal((await post({ platform_id: 1 }, pat.token)).statusCode, 200);
      assert.deepEqual(
        (await call(t, 'POST', '/authenticate-site', { body: { platform_id: 9 } })).json(),
        errorBody(401, 'Unauthenticated'),
      );
      assert.deepEqual(
        (await call(t, 'POST', '/authenticate-site', { token: pat.token, workspace: 999, body: { platform_id: 9 } })).json(),
        errorBody(403, 'Invalid workspace or access denied'),
      );
    });

    test("the Etsy URL carries Etsy's parameters, PKCE S256, and a state with the seed's claims", async () => {
      const url = new URL(await authorizationUrl(t, actor, { platform_id: 1, redirect_url: CUSTOM }));
      assert.equal(`${url.origin}${url.pathname}`, `${t.deps.config.appUrl}/sandbox/etsy/authorize`);
      assert.deepEqual(
        [...url.searchParams.keys()],
        ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method'],
      );
      assert.equal(url.searchParams.get('redirect_uri'), `${t.deps.config.appUrl}/api/v1/oauth/callback/etsy`);
      assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
      assert.match(url.searchParams.get('code_challenge')!, /^[A-Za-z0-9_-]{43}$/);
      const state = url.searchParams.get('state')!;
      assert.equal(decodeProtectedHeader(state).typ, 'oauth-state+jwt');
      const claims = decodeJwt(state);
      assert.deepEqual(
        {
          user_id: claims.user_id,
          platform_id: claims.platform_id,
          wp_id: claims.wp_id,
          redirect_url: claims.redirect_url,
          lifetime: claims.exp! - claims.iat!,
        },
        {
          user_id: (await call(t, 'GET', '/user', { token: actor.session, workspace: actor.workspace.id })).json().data.id,
          platform_id: 1,
          wp_id: actor.workspace.id,
          redirect_url: CUSTOM,
          lifetime: 900,
        },
      );
      assert.match(String(claims.jti), /^[A-Za-z0-9_-]{20,}$/);
      assert.ok(!JSON.stringify(claims).includes('verifier'), 'the PKCE verifier stays server-side');
    });
  });

  describe(`OAuth callback [${kind}]`, () => {
    let t: TestApp;
    let actor: Actor;
    before(async () => {
      t = await createTestApp(kind, { listen: true, env: { OUTBOUND_TIMEOUT_MS: '400' } });
      actor = await registerUser(t);
    });
    after(() => t.close());

    const etsyCallback = (
      body: Record<string, unknown> = { platform_id: 1, redirect_url: CUSTOM },
      decision: 'allow' | 'deny' | 'fail' = 'allow',
      account = '1',
    ) => authorizationUrl(t, actor, body).then((url) => consent(url, decision, account));
    const sitesOf = async () =>
      (await call(t, 'GET', '/sites', { token: actor.session, workspace: actor.workspace.id })).json().data as Array<{
        id: number;
        status: string;
        external_id: string;
      }>;

    test('success with no custom redirect lands on the site listings page', async () => {
      const location = locationOf(await connectThroughSandbox(t, actor, { platform_id: 1 }, 'allow', '21'));
      const site = (await sitesOf()).find((s) => s.external_id === '80000021')!;
      assert.equal(location, `${t.deps.config.appUrl}/site/${site.id}/listings`);
    });

    test('with Accept: application/json the callback answers the outcome as JSON', async () => {
      const response = await openCallback(await etsyCallback(undefined, 'allow', '22'), 'application/json');
      assert.equal(response.status, 200);
      const body = (await response.json()) as { data: { site_id: number } };
      assert.deepEqual(body, { success: true, data: { site_id: body.data.site_id, redirect_url: CUSTOM } });
      const denied = await openCallback(await etsyCallback(undefined, 'deny'), 'application/json');
      assert.deepEqual([denied.status, await denied.json()], [403, errorBody(403, 'Access denied')]);
    });

    test('a state used twice is invalid the second time and goes to the dashboard', async () => {
      const callback = await etsyCallback(undefined, 'allow', '23');
      assert.equal(locationOf(await openCallback(callback)), CUSTOM);
      assert.equal(
        locationOf(await openCallback(callback)),
        `${t.deps.config.appUrl}/dashboard?authorization_error=Invalid+authorization+state`,
      );
      const json = await openCallback(callback, 'application/json');
      assert.deepEqual(
        [json.status, await json.json()],
        [400, errorBody(400, 'Invalid authorization state. Please try authenticating again.')],
      );
    });

    test('20 concurrent replays of one callback create one site and one success', async () => {
      const before = (await sitesOf()).length;
      const callback = await etsyCallback(undefined, 'allow', '24');
      const locations = await Promise.all(Array.from({ length: 20 }, () => openCallback(callback).then(locationOf)));
      assert.equal(locations.filter((l) => l === CUSTOM).length, 1);
      assert.equal(locations.filter((l) => l.endsWith('/dashboard?authorization_error=Invalid+authorization+state')).length, 19);
      assert.equal((await sitesOf()).length, before + 1);
    });

    test('a state older than 15 minutes goes to its redirect_url with the expired message', async () => {
      const callback = await etsyCallback();
      t.clock.advance(15 * 60 * 1000 + 1000);
      try {
        assert.equal(locationOf(await openCallback(callback)), `${CUSTOM}?authorization_error=Authorization+state+has+expired`);
        const json = await openCallback(callback, 'application/json');
        assert.deepEqual(
          [json.status, await json.json()],
          [400, errorBody(400, 'Authorization state has expired. Please try authenticating again.')],
        );
      } finally {
        t.clock.advance(-(15 * 60 * 1000 + 1000));
      }
    });

    test('a tampered, missing, wrong-type or foreign state is invalid and never redirects to a URL it names', async () => {
      const callback = new URL(await etsyCallback());
      const state = callback.searchParams.get('state')!;
      const [header, , signature] = state.split('.');
      const forgedPayload = Buffer.from(JSON.stringify({ ...decodeJwt(state), redirect_url: 'https://evil.example/' })).toString(
        'base64url',
      );
      const pat = (await createPat(t, actor.session)).token;
      const dashboard = `${t.deps.config.appUrl}/dashboard?authorization_error=Invalid+authorization+state`;
      for (const bad of [`${header}.${forgedPayload}.${signature}`, `${state}x`, pat, 'garbage', '']) {
        const url = new URL(callback);
        url.searchParams.set('state', bad);
        assert.equal(locationOf(await openCallback(url.toString())), dashboard, bad.slice(0, 20));
      }
      const noState = new URL(callback);
      noState.searchParams.delete('state');
      assert.equal(locationOf(await openCallback(noState.toString())), dashboard);
      const elsewhere = new URL(callback.toString().replace('/oauth/callback/etsy', '/oauth/callback/amazon-seller'));
      assert.equal(locationOf(await openCallback(elsewhere.toString())), dashboard, "a state is only good at its own track's callback");
      assert.equal(locationOf(await openCallback(callback.toString())), CUSTOM, 'and trying it elsewhere did not use it up');
    });

    test('a token endpoint that times out, resets, sends malformed JSON or answers too slowly fails as unavailable and stores nothing', async () => {
      const before = await sitesOf();
      for (const fault of ['timeout', 'reset', 'malformed', 'slow'] as const) {
        t.deps.sandbox.faults.set('etsy', 'token', fault, { delayMs: 1500 });
        try {
          const location = locationOf(await openCallback(await etsyCallback(undefined, 'allow', '25')));
          assert.match(
            location,
            /^https:\/\/seller\.example\/done\?authorization_error=Etsy\+|^https:\/\/seller\.example\/done\?authorization_error=The\+platform\+/,
            `${fault}: ${location}`,
          );
        } finally {
          t.deps.sandbox.faults.clear();
        }
      }
      assert.deepEqual(await sitesOf(), before);
      assert.equal(
        Number(
          (
            await selectRows<{ n: string }>(
              t.database,
              sql`select count(*) as n from site_credentials c left join sites s on s.id = c.site_id where s.id is null`,
            )
          )[0]!.n,
        ),
        0,
      );
    });

    test('nothing of the code, the state or the tokens reaches the log', async () => {
      const callback = new URL(await etsyCallback(undefined, 'allow', '26'));
      await openCallback(callback.toString());
      const logs = t.logs.join('');
      assert.ok(!logs.includes(callback.searchParams.get('code')!));
      assert.ok(!logs.includes(callback.searchParams.get('state')!));
      assert.ok(!logs.includes('etsy-access') && !logs.includes('access_token'));
    });
  });

  describe(`sites API [${kind}]`, () => {
    let t: TestApp;
    let actor: Actor;
    let siteId: number;
    before(async () => {
      t = await createTestApp(kind, { listen: true });
      actor = await registerUser(t);
      siteId = Number(
        /\/site\/(\d+)\/listings/.exec(locationOf(await connectThroughSandbox(t, actor, { platform_id: 1 }, 'allow', '31')))![1],
      );
    });
    after(() => t.close());

    test('GET /sites/{id} shows the record of DESIGN §5 and no credential', async () => {
      const response = await call(t, 'GET', `/sites/${siteId}`, { token: actor.session, workspace: actor.workspace.id });
      assert.equal(response.statusCode, 200);
      const { data } = response.json();
      assert.deepEqual(Object.keys(data).sort(), [
        'advertising',
        'created_at',
        'currency',
        'external_id',
        'id',
        'last_refreshed_at',
        'missing_scopes',
        'name',
        'next_refresh_at',
        'platform',
        'platform_id',
        'region',
        'status',
        'status_reason',
        'tracking',
        'updated_at',
      ]);
      assert.deepEqual(
        { ...data, created_at: null, updated_at: null },
        {
          id: siteId,
          platform_id: 1,
          platform: 'etsy',
          name: 'Sandbox Etsy Shop 31',
          external_id: '80000031',
          region: null,
          // The shop's currency_code, read at connect.
          currency: 'USD',
          missing_scopes: [],
          status: 'connected',
          status_reason: null,
          last_refreshed_at: null,
          next_refresh_at: new Date(t.clock.now().getTime() + 50 * 60_000).toISOString(),
          advertising: null,
          tracking: {},
          created_at: null,
          updated_at: null,
        },
      );
    });

    test("another workspace's site is 404, like a missing one", async () => {
      const other = await registerUser(t);
      for (const id of [siteId, 999999]) {
        const response = await call(t, 'GET', `/sites/${id}`, { token: other.session, workspace: other.workspace.id });
        assert.deepEqual([response.statusCode, response.json()], [404, errorBody(404, 'Not found')]);
      }
      assert.equal((await call(t, 'DELETE', `/sites/${siteId}`, { token: other.session, workspace: other.workspace.id })).statusCode, 404);
    });

    test('DELETE disconnects: credentials deleted, status disconnected; reconnecting the account restores it under the same id', async () => {
      const response = await call(t, 'DELETE', `/sites/${siteId}`, { token: actor.session, workspace: actor.workspace.id });
      assert.equal(response.statusCode, 200);
      assert.equal(response.json().data.status, 'disconnected');
      assert.equal((await selectRows(t.database, sql`select 1 from site_credentials where site_id = ${siteId}`)).length, 0);
      const location = locationOf(await connectThroughSandbox(t, actor, { platform_id: 1 }, 'allow', '31'));
      assert.equal(location, `${t.deps.config.appUrl}/site/${siteId}/listings`);
      const site = (await call(t, 'GET', `/sites/${siteId}`, { token: actor.session, workspace: actor.workspace.id })).json().data;
      assert.equal(site.status, 'connected');
    });
  });
}

describe('TikTok Shop authorization_url allow-list', () => {
  test('only https URLs on a configured host, or exactly the sandbox authorize page, are allowed', async () => {
    const { createAdapters } = await import('../../src/platforms/registry.js');
    const { createPlatformHttp } = await import('../../src/platforms/http.js');
    const { SANDBOX_CLIENTS } = await import('../../src/sandbox/context.js');
    const { systemClock } = await import('../../src/lib/clock.js');
    const { loadConfig } = await import('../../src/config.js');
    const config = loadConfig({ APP_URL: 'http://localhost:3000' });
    const http = createPlatformHttp({ fetch: () => Promise.reject(new Error('no platform calls here')), timeoutMs: 1000 });
    const adapter = createAdapters(config, { http, clock: systemClock }, SANDBOX_CLIENTS)['tiktok-shop'];
    const accepts = (url: string) => adapter?.acceptsAuthorizationUrl?.(url) === true;
    const allowed = [
      'https://services.tiktokshop.com/open/authorize?service_id=1',
      'http://localhost:3000/sandbox/tiktok-shop/authorize?service_id=s',
    ];
    const refused = [
      'http://services.tiktokshop.com/open/authorize',
      'https://evil.example/open/authorize',
      'https://services.tiktokshop.com.evil.example/x',
      'http://localhost:3000/sandbox/tiktok-shop/authorize/../../../dashboard',
      'http://localhost:3000/sandbox/tiktok-shop/authorizeX',
      'http://localhost:3001/sandbox/tiktok-shop/authorize',
    ];
    for (const url of allowed) assert.equal(accepts(url), true, url);
    for (const url of refused) assert.equal(accepts(url), false, url);
  });
});

describe('production without platform credentials', () => {
  test('authenticate-site is 422 on platform_id and no sandbox is served, unless SANDBOX=true', async () => {
    const t = await createTestApp('pglite', { env: { NODE_ENV: 'production' } });
    try {
      const actor = await registerUser(t);
      for (const platform_id of [1, 4, 5]) {
        const response = await call(t, 'POST', '/authenticate-site', {
          token: actor.session,
          workspace: actor.workspace.id,
          body: { platform_id },
        });
        assert.equal(response.statusCode, 422);
        assert.deepEqual(response.json().errors, { platform_id: ['The selected platform is not configured on this server.'] });
      }
      assert.equal((await t.app.inject({ method: 'GET', url: '/sandbox/etsy/authorize' })).statusCode, 404);
    } finally {
      await t.close();
    }
    const withSandbox = await createTestApp('pglite', { env: { NODE_ENV: 'production', SANDBOX: 'true' } });
    try {
      const actor = await registerUser(withSandbox);
      const response = await call(withSandbox, 'POST', '/authenticate-site', {
        token: actor.session,
        workspace: actor.workspace.id,
        body: { platform_id: 1 },
      });
      assert.equal(response.statusCode, 200);
    } finally {
      await withSandbox.close();
    }
  });
});
