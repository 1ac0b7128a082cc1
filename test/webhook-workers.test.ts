/** Webhook deliveries sent by the workers themselves (not driven by hand): one slow receiver holds up no one else. */
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { connectThroughSandbox, locationOf } from './helpers/connect.js';
import { databaseKinds } from './helpers/database.js';
import { call, createPat, createTestApp, registerUser, type TestApp, within } from './helpers/test-app.js';

/** A receiver on loopback: `hang` keeps every request open until close(); otherwise it answers 200 at once. */
async function startReceiver(hang: boolean) {
  const received: string[] = [];
  const open = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push(JSON.parse(body).type);
      if (hang) open.add(res);
      else res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`,
    received,
    close: () => {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

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
      const slow = await startReceiver(true);
      const fast = await startReceiver(false);
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
        assert.deepEqual(fast.received, ['site.connected']);
        assert.ok(slow.received.length <= 2, `at most two deliveries at a time to one endpoint (saw ${slow.received.length})`);
        process.stdout.write(`[${kind}] the other workspace's delivery arrived ${Math.round(waited)} ms after its event\n`);
      } finally {
        await slow.close();
        await fast.close();
      }
    });
  });
}
