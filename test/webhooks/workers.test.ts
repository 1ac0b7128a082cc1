/** Webhook deliveries sent by the workers themselves (not driven by hand): one slow receiver holds up no one else. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connectThroughSandbox, locationOf } from '../helpers/connect.js';
import { databaseKinds } from '../helpers/database.js';
import { startReceiver } from '../helpers/receiver.js';
import { call, createPat, createTestApp, registerUser, type TestApp, within } from '../helpers/test-app.js';

for (const kind of databaseKinds()) {
  describe(`webhook workers [${kind}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind, { listen: true, workers: true });
    });
    after(() => t.close());

    async function workspaceWithHook(url: string) {
      const owner = await registerUser(t);
      const pat = (await createPat(t, owner.session, { expires_in_days: null })).token;
      const created = await call(t, 'POST', '/webhooks', {
        token: pat,
        workspace: owner.workspace.id,
        body: { url, events: ['site.connected'] },
      });
      assert.equal(created.statusCode, 201, created.body);
      return owner;
    }

    test("a receiver that never answers does not hold up another workspace's delivery", { timeout: 60_000 }, async () => {
      const slow = await startReceiver('all');
      const fast = await startReceiver('none');
      try {
        const patient = await workspaceWithHook(slow.url);
        for (let account = 1; account <= 6; account++)
          locationOf(await connectThroughSandbox(t, patient, { platform_id: 1 }, 'allow', String(account)));
        // The workers are busy with the slow receiver before the other workspace's event exists.
        await within(10_000, async () => slow.received.length >= 1, { pollMs: 50 });
        const other = await workspaceWithHook(fast.url);
        const since = performance.now();
        locationOf(await connectThroughSandbox(t, other, { platform_id: 1 }, 'allow', '7'));
        const waited = await within(5_000, async () => fast.received.length === 1, { since, pollMs: 50 });
        assert.deepEqual(
          fast.received.map((r) => r.type),
          ['site.connected'],
        );
        assert.ok(slow.received.length <= 2, `at most two deliveries at a time to one endpoint (saw ${slow.received.length})`);
        process.stdout.write(`[${kind}] the other workspace's delivery arrived ${Math.round(waited)} ms after its event\n`);
      } finally {
        await slow.close();
        await fast.close();
      }
    });
  });
}
