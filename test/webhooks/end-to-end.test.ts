/** Webhooks end to end: endpoints, signed deliveries from the outbox, retries and giving up, redelivery, the events. */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import { createOutbox } from '../../src/core/webhooks/outbox.js';
import { addMembership } from '../../src/db/accounts.repo.js';
import { type Actor, connectThroughSandbox, locationOf } from '../helpers/connect.js';
import { databaseKinds } from '../helpers/database.js';
import { refreshDue, sendDue, storeRevoked } from '../helpers/jobs.js';
import { call, createPat, createTestApp, errorBody, registerUser, type TestApp } from '../helpers/test-app.js';

/** A receiver on loopback that records what it is sent and answers with `status`. */
async function startReceiver() {
  const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  const state = { status: 200, location: '' };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(state.status, state.location ? { location: state.location } : {}).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`;
  return { url, received, state, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** Standard Webhooks verification, written here independently of the service's signer. */
function verify(secret: string, headers: IncomingHttpHeaders, body: string): boolean {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`).digest('base64');
  return String(headers['webhook-signature'])
    .split(' ')
    .some((s) => s === `v1,${expected}`);
}

for (const kind of databaseKinds()) {
  describe(`webhooks [${kind}]`, () => {
    let t: TestApp;
    let owner: Actor & { user: { id: number } };
    // A PAT that never expires: some tests move the clock past a session's 12 hours.
    let pat: string;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    before(async () => (receiver = await startReceiver()));
    after(() => receiver.close());
    beforeEach(async () => {
      t = await createTestApp(kind, { listen: true, renewals: 'by-hand' });
      owner = await registerUser(t);
      pat = (await createPat(t, owner.session, { expires_in_days: null })).token;
      receiver.received.length = 0;
      receiver.state.status = 200;
      receiver.state.location = '';
    });
    afterEach(() => t.close());

    const api = (method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) =>
      call(t, method, path, { token: pat, workspace: owner.workspace.id, body });
    async function subscribe(
      events: string[] = [
        'site.connected',
        'site.reauthorization_required',
        'site.recovered',
        'site.disconnected',
        'advertising.connected',
      ],
    ) {
      const response = await api('POST', '/webhooks', { url: receiver.url, events });
      assert.equal(response.statusCode, 201, response.body);
      return response.json().data as { id: number; secret: string };
    }
    const connectEtsy = async (account = '1') =>
      Number(/\/site\/(\d+)\//.exec(locationOf(await connectThroughSandbox(t, owner, { platform_id: 1 }, 'allow', account)))![1]);
    const eventsReceived = () => receiver.received.map((r) => JSON.parse(r.body).type as string);

    test('an endpoint is created with its secret shown once, listed without it, and refused for bad input or members', async () => {
      const hook = await subscribe(['site.connected']);
      assert.match(hook.secret, /^whsec_/);
      const list = (await api('GET', '/webhooks')).json();
      assert.deepEqual(list.data, [
        { id: hook.id, url: receiver.url, events: ['site.connected'], created_at: t.clock.now().toISOString() },
      ]);
      assert.deepEqual(
        Object.keys((await api('POST', '/webhooks', { url: 'javascript:alert(1)', events: ['site.connected'] })).json().errors),
        ['url'],
      );
      assert.deepEqual(Object.keys((await api('POST', '/webhooks', { url: receiver.url, events: ['site.exploded'] })).json().errors), [
        'events.0',
      ]);
      assert.deepEqual(Object.keys((await api('POST', '/webhooks', { url: receiver.url, events: [] })).json().errors), ['events']);
      const member = await registerUser(t);
      await addMembership(t.database.db, { userId: member.user.id, workspaceId: owner.workspace.id, role: 'member' });
      const refused = await call(t, 'GET', '/webhooks', { token: member.session, workspace: owner.workspace.id });
      assert.deepEqual([refused.statusCode, refused.json()], [403, errorBody(403, 'Invalid workspace or access denied')]);
    });

    test('connecting a site delivers a signed site.connected event that carries no credential', async () => {
      const hook = await subscribe();
      const siteId = await connectEtsy();
      assert.deepEqual(await sendDue(t), { delivered: 1, retry: 0, failed: 0 });
      const [delivery] = receiver.received;
      assert.ok(verify(hook.secret, delivery!.headers, delivery!.body), 'the signature verifies');
      assert.match(String(delivery!.headers['webhook-id']), /^msg_/);
      const payload = JSON.parse(delivery!.body);
      assert.deepEqual([payload.type, payload.data.site.id, payload.data.site.status], ['site.connected', siteId, 'connected']);
      assert.ok(!/access_token|refresh_token|Atza|TTP_|ciphertext/.test(delivery!.body));
      const log = (await api('GET', `/webhooks/${hook.id}/deliveries`)).json().data;
      assert.deepEqual(
        [log[0].status, log[0].attempts, log[0].last_status_code, log[0].event_type],
        ['delivered', 1, 200, 'site.connected'],
      );
    });

    test('a refused grant sends site.reauthorization_required, reconnecting sends site.recovered, disconnecting site.disconnected', async () => {
      await subscribe();
      const siteId = await connectEtsy('3');
      await storeRevoked(t, siteId, '70000003.revoked');
      assert.equal((await refreshDue(t)).reauthorization_required, 1);
      await connectEtsy('3');
      assert.equal((await api('DELETE', `/sites/${siteId}`)).statusCode, 200);
      await sendDue(t);
      assert.deepEqual(eventsReceived(), ['site.connected', 'site.reauthorization_required', 'site.recovered', 'site.disconnected']);
    });

    test('a grant revoked in the sandbox becomes reauthorization_required and a signed webhook within one refresh cycle', async () => {
      const hook = await subscribe(['site.reauthorization_required']);
      const siteId = await connectEtsy('8');
      assert.equal(
        (
          await t.app.inject({
            method: 'POST',
            url: '/sandbox/revoke',
            payload: 'track=etsy&account=8',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
          })
        ).statusCode,
        204,
      );
      t.clock.advance(51 * 60_000);
      assert.equal((await refreshDue(t)).reauthorization_required, 1);
      assert.equal((await api('GET', `/sites/${siteId}`)).json().data.status, 'reauthorization_required');
      assert.equal((await sendDue(t)).delivered, 1);
      const [delivery] = receiver.received;
      assert.ok(verify(hook.secret, delivery!.headers, delivery!.body));
      assert.deepEqual(
        [JSON.parse(delivery!.body).type, JSON.parse(delivery!.body).data.site.id],
        ['site.reauthorization_required', siteId],
      );
    });

    test('5xx answers are retried with back-off for 24 hours, then the delivery fails', async () => {
      const hook = await subscribe(['site.connected']);
      await connectEtsy();
      receiver.state.status = 503;
      assert.equal((await sendDue(t)).retry, 1);
      let [entry] = (await api('GET', `/webhooks/${hook.id}/deliveries`)).json().data;
      assert.deepEqual(
        [entry.status, entry.attempts, entry.next_attempt_at],
        ['pending', 1, new Date(t.clock.now().getTime() + 30_000).toISOString()],
      );
      assert.equal((await sendDue(t)).retry, 0, 'not before its time');
      let attempts = 1;
      for (let i = 0; i < 60 && entry.status === 'pending'; i++) {
        t.clock.set(new Date(entry.next_attempt_at));
        await sendDue(t);
        attempts += 1;
        [entry] = (await api('GET', `/webhooks/${hook.id}/deliveries`)).json().data;
      }
      assert.equal(receiver.received.length, attempts);
      assert.ok(attempts > 20 && attempts < 40, `${attempts} attempts`);
    });

    test('a redirect is not followed, and redelivery sends the same message id again', async () => {
      const hook = await subscribe(['site.connected']);
      await connectEtsy();
      receiver.state.status = 302;
      receiver.state.location = 'http://127.0.0.1:1/elsewhere';
      assert.equal((await sendDue(t)).failed, 1);
      assert.equal(receiver.received.length, 1);
      const [failed] = (await api('GET', `/webhooks/${hook.id}/deliveries`)).json().data;
      assert.deepEqual([failed.status, failed.last_status_code, failed.last_error], ['failed', 302, 'answered 302']);
      receiver.state.status = 204;
      const again = await api('POST', `/webhooks/${hook.id}/deliveries/${failed.id}/redeliver`);
      assert.equal(again.statusCode, 202);
      assert.equal((await sendDue(t)).delivered, 1);
      assert.equal(receiver.received[1]!.headers['webhook-id'], receiver.received[0]!.headers['webhook-id']);
    });

    test('a deleted endpoint receives nothing more', async () => {
      const hook = await subscribe(['site.connected']);
      assert.equal((await api('DELETE', `/webhooks/${hook.id}`)).statusCode, 200);
      assert.equal((await api('DELETE', `/webhooks/${hook.id}`)).statusCode, 404);
      await connectEtsy();
      assert.deepEqual(await sendDue(t), { delivered: 0, retry: 0, failed: 0 });
      const audit = (await api('GET', '/audit-events?per_page=5')).json().data.map((e: { action: string }) => e.action);
      assert.deepEqual(
        audit.filter((a: string) => a.startsWith('webhook.')),
        ['webhook.deleted', 'webhook.created'],
      );
    });

    test("a change's events reach each endpoint that subscribes, queued together whatever their number", async () => {
      const both = await subscribe(['order.created', 'order.cancelled']);
      const created = await subscribe(['order.created']);
      const emit = async (types: ('order.created' | 'order.cancelled')[]) => {
        const before = t.queries.count;
        await t.database.db.transaction((tx) =>
          createOutbox(t.deps.jobs).emitMany(
            tx,
            owner.workspace.id,
            types.map((type, n) => ({ type, data: { n } })),
            t.clock.now(),
          ),
        );
        return t.queries.count - before;
      };
      const one = await emit(['order.created']);
      const six = await emit(['order.created', 'order.cancelled', 'order.created', 'order.created', 'order.cancelled', 'order.created']);
      // A burst of orders emits an event each while it holds the stock it moved: no statement more for each.
      assert.equal(six, one, 'six events cost the statements of one');
      assert.deepEqual(await sendDue(t), { delivered: 2 + 10, retry: 0, failed: 0 });
      const got = receiver.received.map((r) => {
        const body = JSON.parse(r.body);
        return `${body.type} ${body.data.n}`;
      });
      // Every event to the endpoint subscribed to both, the four order.created of the second change to the other as well.
      assert.deepEqual(got.sort(), [
        'order.cancelled 1',
        'order.cancelled 4',
        'order.created 0',
        'order.created 0',
        'order.created 0',
        'order.created 0',
        'order.created 2',
        'order.created 2',
        'order.created 3',
        'order.created 3',
        'order.created 5',
        'order.created 5',
      ]);
      for (const hook of [both, created]) {
        const log = (await api('GET', `/webhooks/${hook.id}/deliveries?per_page=100`)).json().data;
        assert.ok(log.length > 0 && log.every((d: { status: string }) => d.status === 'delivered'));
      }
    });
  });
}
