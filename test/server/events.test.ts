/**
 * GET /events (issue 37, item 1): the workspace's live status as server-sent events. Authenticated and scoped like
 * every request; a change of a listing, an order, a listing's advertising or a site is told to the streams of its
 * workspace, whoever made it (on PostgreSQL, another connection: another instance); a quiet stream gets heartbeats and
 * loses access within one once its token is revoked; the server's close ends open streams instead of waiting for them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { databaseKinds } from '../helpers/database.js';
import { FORBIDDEN, UNAUTHENTICATED } from '../helpers/fixtures.js';
import { etsySeller, publishMug } from '../helpers/listings.js';
import { API, call, createTestApp, registerUser, type TestApp } from '../helpers/test-app.js';

const HEARTBEAT_MS = 300;
/** Long enough for a notification to cross a loaded machine; events come in milliseconds. */
const EVENT_WAIT_MS = 5_000;

interface StreamEvent {
  event: string;
  data: string;
}

/** An open event stream: the events read so far, comments counted apart, and a wait for the next that matches. */
async function openStream(t: TestApp, headers: Record<string, string>) {
  const controller = new AbortController();
  const response = await fetch(`${t.deps.config.appUrl}${API}/events`, { headers, signal: controller.signal });
  const events: StreamEvent[] = [];
  let comments = 0;
  let closed = false;
  const waiters = new Set<() => void>();
  const wake = () => waiters.forEach((w) => w());
  void (async () => {
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let cut = buffer.indexOf('\n\n');
        while (cut >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const fields = Object.fromEntries(
            block.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
          );
          if (block.startsWith(':')) comments++;
          else if (fields.event) events.push({ event: fields.event, data: fields.data ?? '' });
          wake();
          cut = buffer.indexOf('\n\n');
        }
      }
    } catch {
      // aborted by the test
    } finally {
      closed = true;
      wake();
    }
  })();
  /** Waits until `ready` holds of what was read, or fails after `ms`. */
  const until = (ready: () => boolean, what: string, ms = EVENT_WAIT_MS) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!ready()) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`${what} did not come within ${ms} ms; events: ${JSON.stringify(events)}`));
      }, ms);
      waiters.add(check);
      check();
    });
  return {
    response,
    events,
    get comments() {
      return comments;
    },
    get closed() {
      return closed;
    },
    until,
    /** The index of the first event after `from` whose kind is `kind`, once it has come. */
    async change(kind: string, from = 0) {
      const found = () => events.findIndex((e, i) => i >= from && e.event === 'change' && JSON.parse(e.data).kind === kind);
      await until(() => found() >= 0, `a ${kind} change`);
      return found();
    },
    close: () => controller.abort(),
  };
}

const bearer = (token: string, workspace: number) => ({ authorization: `Bearer ${token}`, 'x-workspace-id': String(workspace) });

for (const kind of databaseKinds()) {
  describe(`live status events [${kind}]`, () => {
    let t: TestApp;
    /** Writes as another instance would: a connection of its own on PostgreSQL; PGlite admits one process. */
    let other: { run: (statement: string) => Promise<void>; close: () => Promise<void> };

    before(async () => {
      t = await createTestApp(kind, { listen: true, liveHeartbeatMs: HEARTBEAT_MS });
      // The sandbox's Etsy budget is timed by the test's clock, which stands still here: rate limits have tests of their own.
      Object.assign(t.deps.sandbox.etsyLimits, { perSecond: 1_000_000, perDay: 1_000_000_000 });
      if (t.database.url) {
        const pool = new pg.Pool({ connectionString: t.database.url, max: 1 });
        other = { run: async (statement) => void (await pool.query(statement)), close: () => pool.end() };
      } else {
        other = { run: async (statement) => void (await t.database.db.execute(sql.raw(statement))), close: async () => {} };
      }
    });
    after(async () => {
      await other?.close();
      await t?.close();
    });

    test('without a bearer the stream is refused with 401, and with a workspace not the caller’s with 403', async () => {
      const user = await registerUser(t);
      const stranger = await registerUser(t);
      const none = await call(t, 'GET', '/events', { workspace: user.workspace.id });
      assert.equal(none.statusCode, 401);
      assert.deepEqual(none.json(), UNAUTHENTICATED);
      const foreign = await call(t, 'GET', '/events', { token: stranger.session, workspace: user.workspace.id });
      assert.equal(foreign.statusCode, 403);
      assert.deepEqual(foreign.json(), FORBIDDEN);
      const missing = await call(t, 'GET', '/events', { token: user.session });
      assert.equal(missing.statusCode, 403);
      assert.equal(t.deps.live.size, 0);
    });

    test('a listing published and then failing is told to its workspace’s stream, and not to another workspace’s', async () => {
      const me = await etsySeller(t, '3701');
      const stranger = await registerUser(t);
      const mine = await openStream(t, bearer(me.session, me.workspace.id));
      const theirs = await openStream(t, bearer(stranger.session, stranger.workspace.id));
      assert.equal(mine.response.status, 200);
      assert.equal(mine.response.headers.get('content-type'), 'text/event-stream; charset=utf-8');
      assert.equal(mine.response.headers.get('cache-control'), 'no-store');
      await mine.until(() => mine.events[0]?.event === 'ready', 'ready');
      await theirs.until(() => theirs.events[0]?.event === 'ready', 'ready');

      const { id } = await publishMug(t, me, 'LIVE-1');
      const published = await mine.change('listings');
      // Another instance (on PostgreSQL, another connection) marks the listing's sync failed.
      await other.run(`update listings set sync_status = 'failed' where id = ${id}`);
      await mine.change('listings', published + 1);
      assert.deepEqual(
        theirs.events.filter((e) => e.event === 'change'),
        [],
      );
      mine.close();
      theirs.close();
    });

    test('an update that changes nothing shown (the watch’s read time) sends no event; an order’s and a site’s change do', async () => {
      const me = await etsySeller(t, '3702');
      const { id } = await publishMug(t, me, 'LIVE-2');
      const stream = await openStream(t, bearer(me.session, me.workspace.id));
      await stream.until(() => stream.events[0]?.event === 'ready', 'ready');
      // Notifications come in commit order: once a first site change is heard, any of the publish's has come before it.
      await other.run(`update sites set status = 'reauthorization_required' where id = ${me.site}`);
      const first = await stream.change('sites');
      await other.run(`update listings set read_at = now(), progress = '{"step": 1}' where id = ${id}`);
      await other.run(`update sites set status = 'connected' where id = ${me.site}`);
      const site = await stream.change('sites', first + 1);
      assert.deepEqual(
        stream.events.slice(first + 1, site).map((e) => e.event),
        [],
        'the read time alone told nothing',
      );
      await other.run(
        `insert into orders (workspace_id, site_id, platform_id, external_id, status, platform_status, currency, placed_at, platform_updated_at)
         values (${me.workspace.id}, ${me.site}, 1, 'LIVE-ORDER-2', 'open', 'paid', 'USD', now(), now())`,
      );
      await stream.change('orders', site + 1);
      stream.close();
    });

    test('a quiet stream gets a heartbeat, and ends within one once its session is revoked', async () => {
      const user = await registerUser(t);
      const open = t.deps.live.size;
      const stream = await openStream(t, bearer(user.session, user.workspace.id));
      await stream.until(() => stream.comments >= 1, 'a heartbeat', HEARTBEAT_MS * 10);
      assert.equal((await call(t, 'POST', '/auth/logout', { token: user.session })).statusCode, 200);
      await stream.until(() => stream.closed, 'the end of the stream', HEARTBEAT_MS * 10);
      assert.deepEqual(stream.events.at(-1), { event: 'end', data: '{"reason":"unauthorized"}' });
      assert.equal(t.deps.live.size, open);
    });

    test('a change made through another instance’s API reaches a stream open on this one', async () => {
      const me = await etsySeller(t, '3703');
      const { id } = await publishMug(t, me, 'LIVE-3');
      // Instance B: its own app, live hub, listener and job engine, on the same database (on PGlite, in this process).
      const b = await createTestApp(kind, { database: t.database, env: { APP_URL: t.deps.config.appUrl } });
      try {
        const stream = await openStream(t, bearer(me.session, me.workspace.id));
        await stream.until(() => stream.events[0]?.event === 'ready', 'ready');
        // Notifications come in commit order: once this site change is heard, the publish's has come before it.
        await other.run(`update sites set name = name || ' (live)' where id = ${me.site}`);
        const from = (await stream.change('sites')) + 1;
        const changed = await call(b, 'PATCH', `/listings/${id}`, { ...me.as, body: { attributes: { 200: '3', 507: ['602', '603'] } } });
        assert.equal(changed.statusCode, 202, changed.body);
        await stream.change('listings', from);
        stream.close();
      } finally {
        await b.close();
      }
    });

    test('a client that goes away leaves no stream behind', async () => {
      const user = await registerUser(t);
      const open = t.deps.live.size;
      const stream = await openStream(t, bearer(user.session, user.workspace.id));
      await stream.until(() => stream.events.length > 0, 'ready');
      assert.equal(t.deps.live.size, open + 1);
      stream.close();
      const start = Date.now();
      while (t.deps.live.size > open && Date.now() - start < EVENT_WAIT_MS) await new Promise((r) => setTimeout(r, 20));
      assert.equal(t.deps.live.size, open);
    });
  });

  describe(`live status events at shutdown [${kind}]`, () => {
    test('closing the server ends an open stream with `end` at once instead of waiting for it', async () => {
      const t = await createTestApp(kind, { listen: true });
      try {
        const user = await registerUser(t);
        const stream = await openStream(t, bearer(user.session, user.workspace.id));
        await stream.until(() => stream.events.length > 0, 'ready');
        const started = performance.now();
        // What main.ts's shutdown does, without the test app's closeAllConnections.
        await t.app.close();
        const took = performance.now() - started;
        await stream.until(() => stream.closed, 'the end of the stream');
        assert.deepEqual(stream.events.at(-1), { event: 'end', data: '{"reason":"shutdown"}' });
        assert.ok(took < 2_000, `close took ${Math.round(took)} ms`);
      } finally {
        await t.close();
      }
    });
  });
}
