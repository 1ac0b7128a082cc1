/** GET /platforms: the connect catalogue's data, each track saying whether this server runs it against its sandbox. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { databaseKinds } from '../helpers/database.js';
import { call, createTestApp, errorBody, registerUser, type TestApp } from '../helpers/test-app.js';

for (const kind of databaseKinds()) {
  describe(`platforms [${kind}]`, () => {
    let t: TestApp;
    let etsyConfigured: TestApp;
    before(async () => {
      t = await createTestApp(kind);
      etsyConfigured = await createTestApp(kind, { env: { ETSY_CLIENT_ID: 'keystring', ETSY_CLIENT_SECRET: 'shared-secret' } });
    });
    after(async () => {
      await t.close();
      await etsyConfigured.close();
    });

    const listed = async (app: TestApp) => {
      const user = await registerUser(app);
      const answer = await call(app, 'GET', '/platforms', { token: user.session });
      assert.equal(answer.statusCode, 200, answer.body);
      return answer.json().data as { track: string; platform_id: number; needs_site: boolean; sandbox: boolean; allows: string[] }[];
    };

    test('each track with the platform id to connect it, what it allows, and whether it runs against the sandbox', async () => {
      const platforms = await listed(t);
      assert.deepEqual(
        platforms.map((p) => [p.track, p.platform_id, p.needs_site, p.sandbox]),
        [
          ['etsy', 1, false, true],
          ['tiktok-shop', 4, false, true],
          ['amazon-seller', 5, false, true],
          ['amazon-ads', 5, true, true],
        ],
      );
      for (const platform of platforms) assert.ok(platform.allows.length > 0);
      assert.deepEqual((await call(t, 'GET', '/platforms')).json(), errorBody(401, 'Unauthenticated'));
    });

    test('a platform with credentials configured is the platform itself, not the sandbox', async () => {
      const sandboxed = Object.fromEntries((await listed(etsyConfigured)).map((p) => [p.track, p.sandbox]));
      assert.deepEqual(sandboxed, { etsy: false, 'tiktok-shop': true, 'amazon-seller': true, 'amazon-ads': true });
    });
  });
}
