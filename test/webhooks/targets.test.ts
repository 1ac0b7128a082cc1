/**
 * Webhook targets when private targets are refused (production unless ALLOW_PRIVATE_WEBHOOK_TARGETS=true, DESIGN §8):
 * hosts are resolved and checked at creation and again at every delivery, which connects to the checked address. DNS
 * is a table the tests change (no real resolver), and the receiver listens on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import type { ResolvedAddress } from '../../src/lib/public-address.js';
import { type Actor, connectThroughSandbox, locationOf } from '../helpers/connect.js';
import { createTestDatabase, databaseKinds, type TestDatabase } from '../helpers/database.js';
import { sendDue } from '../helpers/jobs.js';
import { startReceiver } from '../helpers/receiver.js';
import { call, createPat, createTestApp, registerUser, type TestApp } from '../helpers/test-app.js';

const PRIVATE_REFUSED = { ALLOW_PRIVATE_WEBHOOK_TARGETS: 'false' };
const PRIVATE_ALLOWED = { ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' };

/** DNS as a table the test edits; a name not in it does not resolve. */
function fakeDns() {
  const table = new Map<string, string[]>();
  const lookups: string[] = [];
  const resolveHost = async (name: string): Promise<ResolvedAddress[]> => {
    lookups.push(name);
    const addresses = table.get(name);
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { table, lookups, resolveHost };
}

for (const kind of databaseKinds()) {
  describe(`webhook targets [${kind}]`, () => {
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    let port: number;
    let dns: ReturnType<typeof fakeDns>;
    const apps: TestApp[] = [];
    before(async () => {
      receiver = await startReceiver('none');
      port = Number(new URL(receiver.url).port);
    });
    after(() => receiver.close());
    afterEach(async () => {
      for (const opened of apps.splice(0)) await opened.close();
      receiver.received.length = 0;
    });

    async function app(env: Record<string, string>, database?: TestDatabase) {
      dns = fakeDns();
      const created = await createTestApp(kind, { listen: true, env, resolveHost: dns.resolveHost, ...(database ? { database } : {}) });
      apps.push(created);
      return created;
    }
    async function owner(t: TestApp) {
      const actor = await registerUser(t);
      return { ...actor, pat: (await createPat(t, actor.session, { expires_in_days: null })).token };
    }
    const createHook = (t: TestApp, actor: Actor & { pat: string }, url: string) =>
      call(t, 'POST', '/webhooks', { token: actor.pat, workspace: actor.workspace.id, body: { url, events: ['site.connected'] } });
    const deliveries = async (t: TestApp, actor: Actor & { pat: string }, hookId: number) =>
      (await call(t, 'GET', `/webhooks/${hookId}/deliveries`, { token: actor.pat, workspace: actor.workspace.id })).json().data;
    const connectEtsy = async (t: TestApp, actor: Actor) =>
      locationOf(await connectThroughSandbox(t, actor, { platform_id: 1 }, 'allow', '1'));

    test('creation is refused for localhost., an IPv4-mapped loopback, names resolving to loopback or partly private, and names that do not resolve', async () => {
      const t = await app(PRIVATE_REFUSED);
      const actor = await owner(t);
      dns.table.set('hooks.customer.example', ['127.0.0.1']);
      dns.table.set('mixed.customer.example', ['93.184.216.34', '10.0.0.7']);
      dns.table.set('localhost', ['127.0.0.1']);
      const notPublic = { url: ['The url must not point at a loopback, private or other non-public address.'] };
      for (const url of [
        `http://localhost.:${port}/hooks`,
        `http://localhost:${port}/hooks`,
        `http://[::ffff:127.0.0.1]:${port}/hooks`,
        `http://[::7f00:1]:${port}/hooks`,
        `http://hooks.customer.example:${port}/hooks`,
        'https://mixed.customer.example/hooks',
      ]) {
        const refused = await createHook(t, actor, url);
        assert.deepEqual([refused.statusCode, refused.json().errors], [422, notPublic], url);
      }
      const unresolved = await createHook(t, actor, 'https://nowhere.customer.example/hooks');
      assert.deepEqual([unresolved.statusCode, unresolved.json().errors], [422, { url: ["The url's host could not be resolved."] }]);
      const list = await call(t, 'GET', '/webhooks', { token: actor.pat, workspace: actor.workspace.id });
      assert.deepEqual(list.json().data, []);
    });

    test('creation accepts a name that resolves only to public addresses', async () => {
      const t = await app(PRIVATE_REFUSED);
      dns.table.set('hooks.customer.example', ['93.184.216.34', '2606:4700:4700::1111']);
      const created = await createHook(t, await owner(t), 'https://hooks.customer.example/hooks');
      assert.equal(created.statusCode, 201, created.body);
      assert.deepEqual(dns.lookups, ['hooks.customer.example']);
    });

    test('an endpoint stored while private targets were allowed is refused when sent, once, with the reason in the deliveries log', async () => {
      const database = await createTestDatabase(kind);
      try {
        const earlier = await app(PRIVATE_ALLOWED, database);
        const actor = await owner(earlier);
        const created = await createHook(earlier, actor, receiver.url);
        assert.equal(created.statusCode, 201, created.body);
        await earlier.close();
        apps.splice(apps.indexOf(earlier), 1);

        const t = await app(PRIVATE_REFUSED, database);
        await connectEtsy(t, actor);
        assert.deepEqual(await sendDue(t), { delivered: 0, retry: 0, failed: 1 });
        assert.equal(receiver.received.length, 0);
        const [entry] = await deliveries(t, actor, created.json().data.id);
        assert.deepEqual(
          [entry.status, entry.attempts, entry.last_status_code, entry.last_error, entry.next_attempt_at],
          ['failed', 1, null, 'refused: the host resolves to an address that is not public', null],
        );
      } finally {
        for (const opened of apps.splice(0)) await opened.close();
        await database.close();
      }
    });

    test('a name that resolved to a public address at creation and to 127.0.0.1 at send time is refused, and the receiver gets nothing', async () => {
      const t = await app(PRIVATE_REFUSED);
      const actor = await owner(t);
      dns.table.set('rebind.customer.example', ['93.184.216.34']);
      const created = await createHook(t, actor, `http://rebind.customer.example:${port}/hooks`);
      assert.equal(created.statusCode, 201, created.body);
      dns.table.set('rebind.customer.example', ['127.0.0.1']);
      await connectEtsy(t, actor);
      assert.deepEqual(await sendDue(t), { delivered: 0, retry: 0, failed: 1 });
      assert.equal(receiver.received.length, 0);
      const [entry] = await deliveries(t, actor, created.json().data.id);
      assert.deepEqual([entry.status, entry.last_error], ['failed', 'refused: the host resolves to an address that is not public']);
      assert.deepEqual(dns.lookups, ['rebind.customer.example', 'rebind.customer.example']);
    });

    test('a delivery connects to the address its host resolved to (private targets allowed), keeping the name in Host', async () => {
      const t = await app(PRIVATE_ALLOWED);
      const actor = await owner(t);
      dns.table.set('hooks.customer.example', ['127.0.0.1']);
      const created = await createHook(t, actor, `http://hooks.customer.example:${port}/hooks`);
      assert.equal(created.statusCode, 201, created.body);
      assert.deepEqual(dns.lookups, [], 'not resolved at creation while private targets are allowed');
      await connectEtsy(t, actor);
      assert.deepEqual(await sendDue(t), { delivered: 1, retry: 0, failed: 0 });
      assert.deepEqual(
        receiver.received.map((r) => [r.type, r.host]),
        [['site.connected', `hooks.customer.example:${port}`]],
      );
      assert.deepEqual(dns.lookups, ['hooks.customer.example']);
    });
  });
}
