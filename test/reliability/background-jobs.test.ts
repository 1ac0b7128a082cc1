/**
 * The job engine (pg-boss) across process death, in real server processes: a webhook delivery or a token renewal in
 * flight when its instance is killed -9 is taken over by the restarted instance; SIGTERM aborts deliveries in flight,
 * starts none, and ends the process within 10 s (a platform call a request waits on included), the deliveries being
 * sent after the restart; and on PostgreSQL two instances renewing short-lived Etsy tokens never present a
 * rotated refresh token twice. PGlite restarts on the same DATA_DIR, PostgreSQL on the same database, both on one port.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { describe, test } from 'node:test';
import { consent, openCallback } from '../helpers/connect.js';
import { type DatabaseKind, databaseKinds } from '../helpers/database.js';
import { api, as, connectEtsy, createStorage, owner, site } from '../helpers/process-api.js';
import { startReceiver } from '../helpers/receiver.js';
import { freePort, outputsOf, type ServerProcess, startServerProcess } from '../helpers/server-process.js';
import { TEST_APP_SECRET, TEST_ENCRYPTION_KEY, within } from '../helpers/test-app.js';

const POLL_MS = 100;
const SHORT_TOKENS = { SANDBOX_ACCESS_TOKEN_TTL_SECONDS: '30' };

/** What `server`'s simulated platforms were asked, per `track:endpoint`. */
async function sandboxCalls(server: ServerProcess): Promise<Record<string, number>> {
  return (await fetch(`${server.url}/sandbox/calls`)).json() as Promise<Record<string, number>>;
}

async function setFault(server: ServerProcess, fault: { track: string; endpoint: string; fault: string; delay_ms?: number }) {
  const headers = { 'content-type': 'application/json' };
  const answer = await fetch(`${server.url}/sandbox/faults`, { method: 'POST', headers, body: JSON.stringify(fault) });
  assert.equal(answer.status, 204, await answer.text());
}

interface Stage {
  /** Starts a server named `name` (for the failure report) on the test's storage, with `env` on top of the common one. */
  start(name: string, env?: Record<string, string>, port?: number): Promise<ServerProcess>;
  /** kill -9, resolved once the process is gone (so its DATA_DIR and port are free). */
  kill(server: ServerProcess): Promise<void>;
}

/**
 * A test whose server processes are all stopped, and whose storage is removed, however it ends; a failure prints
 * what every server wrote.
 */
function stageTest(kind: DatabaseKind, name: string, timeout: number, body: (stage: Stage) => Promise<void>) {
  test(name, { timeout }, async () => {
    const storage = await createStorage(kind);
    const servers: Record<string, ServerProcess> = {};
    const secrets = { APP_SECRET: TEST_APP_SECRET, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY };
    const common = { ...storage.env, ...secrets, NODE_ENV: 'test', LOG_LEVEL: 'info' };
    const stage: Stage = {
      start: async (serverName, env = {}, port) => {
        servers[serverName] = await startServerProcess({ ...common, ...env }, port ? { port } : {});
        return servers[serverName];
      },
      async kill(server) {
        process.kill(server.pid, 'SIGKILL');
        await within(5_000, async () => server.exited(), { pollMs: 20 });
      },
    };
    try {
      await body(stage);
    } catch (error) {
      process.stderr.write(`${outputsOf(servers)}\n`);
      throw error;
    } finally {
      await Promise.all(Object.values(servers).map((server) => server.stop()));
      await storage.remove();
    }
  });
}

/**
 * A webhook receiver that holds every request open, noting when the sender gives up on each, until answer() makes it
 * answer 200 (to every request from then on, and to none held before).
 */
async function startHoldingReceiver() {
  const held: { path: string; webhookId: string; abandonedAt: number | null }[] = [];
  const delivered = new Set<string>();
  let answering = false;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const request = { path: req.url ?? '', webhookId: String(req.headers['webhook-id']) };
      if (answering) {
        delivered.add(`${request.path} ${request.webhookId}`);
        res.writeHead(200).end();
        return;
      }
      const entry = { ...request, abandonedAt: null as number | null };
      held.push(entry);
      res.on('close', () => (entry.abandonedAt ??= performance.now()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    held,
    delivered,
    answer: () => void (answering = true),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Sends SIGTERM; resolves with how long the process took to exit (measured up to 20 s, beyond the 10 s promised). */
async function terminate(server: ServerProcess): Promise<number> {
  process.kill(server.pid, 'SIGTERM');
  const since = performance.now();
  return within(20_000, async () => server.exited(), { since, pollMs: 20 }).catch(() => performance.now() - since);
}

/** Prints a measurement to the test report. */
const report = (kind: DatabaseKind, text: string) => process.stdout.write(`[${kind}] ${text}\n`);

for (const kind of databaseKinds()) {
  describe(`background jobs across process death [${kind}]`, () => {
    const deliveryTest = 'a delivery in flight when its instance is killed -9 is delivered after the restart, with the same webhook-id';
    stageTest(kind, deliveryTest, 150_000, async (stage) => {
      const receiver = await startReceiver('first');
      try {
        const port = await freePort();
        const env = { OUTBOUND_TIMEOUT_MS: '3000' };
        const a = await stage.start('A', env, port);
        const actor = await owner(a, receiver.url);
        await connectEtsy(a, actor, '1');
        await within(15_000, async () => receiver.received.length >= 1, { pollMs: 20 });

        await stage.kill(a);
        const killedAt = performance.now();
        const restarted = await stage.start("A'", env, port);
        const takeover = await within(60_000, async () => receiver.received.length >= 2, { since: killedAt, pollMs: POLL_MS });
        assert.deepEqual(receiver.received[1], receiver.received[0]);
        assert.equal(receiver.received[0]!.type, 'site.connected');

        const deliveries = () => api(restarted, 'GET', `/webhooks/${actor.webhook}/deliveries`, as(actor));
        await within(5_000, async () => (await deliveries()).json.data?.[0]?.status === 'delivered', { pollMs: POLL_MS });
        const [delivery, ...others] = (await deliveries()).json.data;
        const seen = [delivery.message_id, delivery.status, delivery.last_status_code, others.length];
        assert.deepEqual(seen, [receiver.received[0]!.webhookId, 'delivered', 200, 0]);
        report(kind, `the restarted instance delivered ${Math.round(takeover)} ms after the kill`);
      } finally {
        await receiver.close();
      }
    });

    const renewalTest = 'a renewal in flight when its instance is killed -9 is taken over after the restart and the site stays connected';
    stageTest(kind, renewalTest, 180_000, async (stage) => {
      const port = await freePort();
      const env = { ...SHORT_TOKENS, OUTBOUND_TIMEOUT_MS: '3000' };
      const a = await stage.start('A', env, port);
      const actor = await owner(a);
      const siteId = await connectEtsy(a, actor, '1');
      const connected = (await sandboxCalls(a))['etsy:token'] ?? 0;
      await setFault(a, { track: 'etsy', endpoint: 'token', fault: 'slow', delay_ms: 60_000 });
      // The renewal is due about 15 s after connecting; its token call then hangs on the slow fault.
      await within(40_000, async () => ((await sandboxCalls(a))['etsy:token'] ?? 0) > connected, { pollMs: POLL_MS });

      await stage.kill(a);
      const killedAt = performance.now();
      const restarted = await stage.start("A'", env, port);
      const renewed = async () => (await site(restarted, actor, siteId)).last_refreshed_at !== null;
      const takeover = await within(90_000, renewed, { since: killedAt, pollMs: 500 });
      assert.equal((await site(restarted, actor, siteId)).status, 'connected');
      const calls = await sandboxCalls(restarted);
      assert.equal(calls['etsy:refresh-token-reused'] ?? 0, 0, JSON.stringify(calls));
      report(kind, `the restarted instance renewed the token ${Math.round(takeover)} ms after the kill`);
    });

    const sigtermTest =
      'SIGTERM aborts the deliveries in flight at once, starts no other, exits 0, and the restarted instance sends them all';
    stageTest(kind, sigtermTest, 120_000, async (stage) => {
      const receiver = await startHoldingReceiver();
      try {
        const port = await freePort();
        const a = await stage.start('A', {}, port);
        const actor = await owner(a);
        const webhooks: number[] = [];
        for (const path of ['/one', '/two']) {
          const hook = await api(a, 'POST', '/webhooks', {
            ...as(actor),
            body: { url: `${receiver.url}${path}`, events: ['site.connected'] },
          });
          assert.equal(hook.status, 201, JSON.stringify(hook.json));
          webhooks.push(hook.json.data.id);
        }
        // Six deliveries: two endpoints, each taking two at a time, so four hang and two wait in the queue.
        for (const account of ['1', '2', '3']) await connectEtsy(a, actor, account);
        await within(15_000, async () => receiver.held.length >= 4, { pollMs: 20 });
        await new Promise((resolve) => setTimeout(resolve, 500));
        const heldAtSignal = receiver.held.length;

        const signalledAt = performance.now();
        const took = await terminate(a);
        const abandoned = receiver.held.map((request) =>
          request.abandonedAt === null ? null : Math.round(request.abandonedAt - signalledAt),
        );
        report(
          kind,
          `exited ${Math.round(took)} ms after SIGTERM; the ${heldAtSignal} deliveries in flight were abandoned after ${abandoned.join(', ')} ms`,
        );
        assert.ok(took < 10_000, `still running ${Math.round(took)} ms after SIGTERM`);
        assert.deepEqual(a.exitStatus(), { code: 0, signal: null });
        assert.ok(
          abandoned.every((ms) => ms !== null && ms < 2_000),
          `deliveries in flight were abandoned ${abandoned.join(', ')} ms after SIGTERM`,
        );
        assert.equal(receiver.held.length, heldAtSignal, 'an attempt started after SIGTERM');

        receiver.answer();
        const restarted = await stage.start("A'", {}, port);
        const sent = await within(30_000, async () => receiver.delivered.size >= 6, { pollMs: POLL_MS });
        report(kind, `the restarted instance sent all 6 deliveries ${Math.round(sent)} ms after it was ready`);
        for (const webhook of webhooks) {
          const deliveries = await api(restarted, 'GET', `/webhooks/${webhook}/deliveries`, as(actor));
          const seen = deliveries.json.data.map((d: any) => [d.status, d.attempts, d.last_error]);
          // The abandoned attempt is not held against the receiver: one attempt, the one that was answered.
          assert.deepEqual(seen, Array(3).fill(['delivered', 1, null]), JSON.stringify(deliveries.json.data));
        }
      } finally {
        await receiver.close();
      }
    });

    const drainTest = 'SIGTERM while a request waits on a platform that never answers exits 0 within 10 s, the request answered';
    stageTest(kind, drainTest, 120_000, async (stage) => {
      const receiver = await startHoldingReceiver();
      try {
        const a = await stage.start('A');
        const actor = await owner(a);
        const hook = await api(a, 'POST', '/webhooks', {
          ...as(actor),
          body: { url: `${receiver.url}/hooks`, events: ['site.connected'] },
        });
        assert.equal(hook.status, 201, JSON.stringify(hook.json));
        await connectEtsy(a, actor, '1');
        await within(15_000, async () => receiver.held.length >= 1, { pollMs: 20 });

        // The next connection's code exchange never gets an answer: its callback request is in flight at the signal.
        const started = await api(a, 'POST', '/authenticate-site', { ...as(actor), body: { platform_id: 1 } });
        const callbackUrl = await consent(started.json.data.url, 'allow', '2');
        const tokenCalls = (await sandboxCalls(a))['etsy:token'] ?? 0;
        await setFault(a, { track: 'etsy', endpoint: 'token', fault: 'timeout' });
        const callback = openCallback(callbackUrl).then(
          (response) => response.status,
          (error: Error) => error.message,
        );
        await within(5_000, async () => ((await sandboxCalls(a))['etsy:token'] ?? 0) > tokenCalls, { pollMs: 20 });

        const took = await terminate(a);
        const answer = await callback;
        report(kind, `exited ${Math.round(took)} ms after SIGTERM with a platform call and a delivery hanging; the callback got ${answer}`);
        assert.ok(took < 10_000, `still running ${Math.round(took)} ms after SIGTERM`);
        assert.deepEqual(a.exitStatus(), { code: 0, signal: null });
        assert.equal(answer, 302, 'the callback request was not answered');
      } finally {
        await receiver.close();
      }
    });

    if (kind === 'postgres') {
      const sharedTest = 'two instances renewing short-lived tokens for 120 s present each rotated refresh token once';
      stageTest(kind, sharedTest, 240_000, async (stage) => {
        const portA = await freePort();
        // Both call A's simulator (APP_URL names A), so one simulator sees every renewal and every reused refresh token.
        const env = { ...SHORT_TOKENS, APP_URL: `http://127.0.0.1:${portA}` };
        const started = await Promise.allSettled([stage.start('A', env, portA), stage.start('B', env)]);
        for (const result of started) if (result.status === 'rejected') throw result.reason;
        const a = (started[0] as PromiseFulfilledResult<ServerProcess>).value;
        const actor = await owner(a);
        const siteIds: number[] = [];
        for (let account = 11; account <= 18; account++) siteIds.push(await connectEtsy(a, actor, String(account)));
        const connected = (await sandboxCalls(a))['etsy:token'] ?? 0;

        await new Promise((resolve) => setTimeout(resolve, 120_000));
        const calls = await sandboxCalls(a);
        const renewals = (calls['etsy:token'] ?? 0) - connected;
        report(kind, `${renewals} renewals of ${siteIds.length} sites in 120 s; calls: ${JSON.stringify(calls)}`);
        assert.equal(calls['etsy:refresh-token-reused'] ?? 0, 0, JSON.stringify(calls));
        assert.ok(renewals >= siteIds.length * 4, `only ${renewals} renewals`);
        const now = Date.now();
        for (const siteId of siteIds) {
          const { status, last_refreshed_at: refreshedAt } = await site(a, actor, siteId);
          assert.equal(status, 'connected', `site ${siteId}`);
          assert.ok(refreshedAt && now - Date.parse(refreshedAt) < 40_000, `site ${siteId} last renewed at ${refreshedAt}`);
        }
      });
    }
  });
}
