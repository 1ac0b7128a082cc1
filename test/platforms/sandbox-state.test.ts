/**
 * The sandbox keeps its state across restarts (issue 36, item 11; src/sandbox/state.ts): a real server started as
 * `npm start` starts it (SANDBOX_PERSIST on by default) connects a sandbox TikTok shop and publishes a listing; once
 * stopped and started again on the same database, the simulated shop still holds the listing and Storelink's refresh of
 * it finds it live there; `storelink sandbox:reset` then empties the sandbox for the next start. In-process apps on one
 * database show the same for Etsy's listings and the revocations, and that ids go on from the saved ones. On PGlite and
 * on PostgreSQL.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.js';
import { LISTING_QUEUE } from '../../src/core/listings/listing-work.js';
import { decodeState, encodeState } from '../../src/sandbox/state.js';
import { consent, locationOf, openCallback } from '../helpers/connect.js';
import { createTestDatabase, databaseKinds } from '../helpers/database.js';
import { mug, PNG_640X480 } from '../helpers/fixtures.js';
import { etsySeller, heldListings, publishMug } from '../helpers/listings.js';
import { api, as, createStorage, owner } from '../helpers/process-api.js';
import { outputsOf, type ServerProcess, startServerProcess } from '../helpers/server-process.js';
import { createTestApp, runDueJobs, TEST_APP_SECRET, TEST_ENCRYPTION_KEY, type TestApp, within } from '../helpers/test-app.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

test('the saved state keeps what the stores hold: Maps, Sets, bigints, bytes, and objects with a key named $t', () => {
  const state = {
    products: new Map<string, unknown>([['1729', { id: '1729', skus: [{ quantity: 3 }], note: undefined }]]),
    stocked: new Set([80_000_001, 80_000_002]),
    next: 1_729_592_969_712_207_000n,
    file: Buffer.from([0, 1, 2, 255]),
    tricky: { $t: 'map', v: 'a seller wrote this', $t$: 'and this', other: { $t: 'bigint', v: '1' } },
    when: new Date(1_796_230_000_000),
    text: 'a \u0000 byte and ünïcode',
  };
  const back = decodeState(encodeState(state)) as typeof state;
  assert.deepEqual(back.products, new Map([['1729', { id: '1729', skus: [{ quantity: 3 }] }]]));
  assert.deepEqual(back.stocked, new Set([80_000_001, 80_000_002]));
  assert.equal(back.next, 1_729_592_969_712_207_000n);
  assert.deepEqual([...back.file], [0, 1, 2, 255]);
  assert.deepEqual(back.tricky, state.tricky);
  assert.deepEqual(back.when, state.when);
  assert.equal(back.text, state.text);
});

test('the sandbox keeps its state unless SANDBOX_PERSIST=false (as the suite sets it)', () => {
  const secrets = { APP_SECRET: TEST_APP_SECRET, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY };
  assert.equal(loadConfig(secrets).sandboxPersist, true);
  assert.equal(loadConfig({ ...secrets, SANDBOX_PERSIST: 'false' }).sandboxPersist, false);
});

/** Runs `storelink <args>` as an operator would, with `env` on top of PATH alone: its exit code and output. */
async function storelink(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, ['bin/storelink.js', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const [code] = await once(child, 'exit');
  return { code: code as number, stdout, stderr };
}

for (const kind of databaseKinds()) {
  describe(`the sandbox's state across restarts [${kind}]`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    after(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
    });

    test('a published listing is still in the sandbox shop after a restart, and gone after storelink sandbox:reset', async (t) => {
      const began = performance.now();
      const mark = (what: string) => t.diagnostic(`${what} at ${Math.round(performance.now() - began)} ms`);
      const storage = await createStorage(kind);
      cleanups.push(storage.remove);
      // SANDBOX_PERSIST as `npm start` has it by default (the test above), which the test servers leave off. The review
      // passes at once, so the listing goes live.
      const env = {
        SANDBOX_PERSIST: 'true',
        APP_SECRET: TEST_APP_SECRET,
        ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
        LOG_LEVEL: 'warn',
        SANDBOX_REVIEW_SECONDS: '0',
        ...storage.env,
      };
      const servers: Record<string, ServerProcess | undefined> = {};
      const start = async (name: string) => {
        // Three starts one after another: each is given three minutes, as a loaded 2-CPU machine has needed over one.
        const server = await startServerProcess(env, { readyTimeoutMs: 180_000 });
        servers[name] = server;
        cleanups.push(() => server.stop());
        return server;
      };
      const account = '4701';
      try {
        const first = await start('first');
        mark('first server ready');
        const me = await owner(first);
        const started = await api(first, 'POST', '/authenticate-site', { ...as(me), body: { platform_id: 4 } });
        assert.equal(started.status, 200, JSON.stringify(started.json));
        const callback = await openCallback(await consent(started.json.data.url, 'allow', account));
        const site = Number(/\/site\/(\d+)\/listings$/.exec(locationOf(callback))![1]);
        const options = (await api(first, 'GET', `/sites/${site}/listing-options`, as(me))).json.data;
        const settings = await api(first, 'PUT', `/sites/${site}/listing-settings`, {
          ...as(me),
          body: { warehouse_id: options.warehouse_id[0].value },
        });
        assert.equal(settings.status, 200, JSON.stringify(settings.json));

        const created = await api(first, 'POST', '/products', { ...as(me), body: mug('KEPT', { colours: true, packaged: true }) });
        assert.equal(created.status, 201, JSON.stringify(created.json));
        const productId = created.json.data.id as number;
        const form = new FormData();
        form.set('file', new Blob([PNG_640X480], { type: 'image/png' }), 'mug.png');
        const uploaded = await fetch(`${first.url}/api/v1/products/${productId}/images`, {
          method: 'POST',
          headers: { authorization: `Bearer ${me.pat}`, 'x-workspace-id': String(me.workspace) },
          body: form,
        });
        assert.equal(uploaded.status, 201);
        const categories = (await api(first, 'GET', `/sites/${site}/categories?q=mug`, as(me))).json.data;
        const leaf = categories.find((category: { leaf: boolean }) => category.leaf);
        const attributes = (await api(first, 'GET', `/sites/${site}/categories/${leaf.id}/attributes`, as(me))).json.data;
        const given = Object.fromEntries(
          attributes
            .filter((attribute: { required: boolean }) => attribute.required)
            .map((attribute: { name: string; type: string; values: { value: string }[] }) => [
              attribute.name,
              attribute.type === 'multiselect' ? [attribute.values[0]!.value] : (attribute.values[0]?.value ?? 'text'),
            ]),
        );
        const published = await api(first, 'POST', `/sites/${site}/listings`, {
          ...as(me),
          body: { product_id: productId, category_id: leaf.id, attributes: given },
        });
        assert.equal(published.status, 202, JSON.stringify(published.json));
        const listingId = published.json.data.id as number;
        const listing = async (server: ServerProcess) => (await api(server, 'GET', `/listings/${listingId}`, as(me))).json.data;
        await within(120_000, async () => (await listing(first)).status === 'active', { pollMs: 200 });
        mark('listing active');

        /** What the sandbox TikTok shop of the account holds: its products' titles and skus. */
        const held = async (server: ServerProcess) => {
          const response = await fetch(`${server.url}/sandbox/tiktok-shop/accounts/${account}/listings`);
          assert.equal(response.status, 200);
          const items = (await response.json()) as { title: string; skus: { sku: string }[] }[];
          return items.map((item) => ({ title: item.title, skus: item.skus.map((sku) => sku.sku).sort() }));
        };
        const listed = [{ title: 'Stoneware mug KEPT', skus: ['KEPT-B', 'KEPT-W'] }];
        assert.deepEqual(await held(first), listed);
        await first.stop();
        assert.deepEqual(first.exitStatus(), { code: 0, signal: null });

        mark('first server stopped');
        const second = await start('second');
        mark('second server ready');
        assert.deepEqual(await held(second), listed, 'the sandbox shop still holds the listing after the restart');
        // Storelink's read of the listing on the platform finds it there, live.
        const refreshed = await api(second, 'POST', `/listings/${listingId}/refresh`, as(me));
        assert.equal(refreshed.status, 202, JSON.stringify(refreshed.json));
        await within(120_000, async () => (await listing(second)).sync_status === 'synced', { pollMs: 200 });
        const read = await listing(second);
        assert.equal(read.status, 'active', JSON.stringify(read));
        assert.deepEqual(read.issues, []);
        mark('refresh done');
        await second.stop();

        const reset = await storelink(['sandbox:reset'], env);
        assert.equal(reset.code, 0, reset.stderr);
        assert.match(reset.stdout, /^Sandbox state emptied \(\d+ saved parts? removed\)\n$/);
        assert.notEqual(reset.stdout, 'Sandbox state emptied (0 saved parts removed)\n');

        mark('reset done');
        const third = await start('third');
        mark('third server ready');
        assert.deepEqual(await held(third), [], 'the sandbox is empty after storelink sandbox:reset');
      } catch (error) {
        process.stderr.write(`${outputsOf(servers)}\n`);
        throw error;
      }
    });
  });
}

for (const kind of databaseKinds()) {
  describe(`the sandbox's state across apps on one database [${kind}]`, () => {
    test("Etsy's listings and the revocations are put back as saved at close, new ids follow on, and a reset leaves them empty", async () => {
      const database = await createTestDatabase(kind);
      const apps: TestApp[] = [];
      const open = async () => {
        const app = await createTestApp(kind, { database, listen: true, env: { SANDBOX_PERSIST: 'true', SANDBOX_REVIEW_SECONDS: '0' } });
        apps.push(app);
        Object.assign(app.deps.sandbox.etsyLimits, { perSecond: 1_000_000, perDay: 1_000_000_000 });
        return app;
      };
      const closeApp = async (app: TestApp) => {
        apps.splice(apps.indexOf(app), 1);
        await app.close();
      };
      try {
        const first = await open();
        const etsy = await etsySeller(first, '4801');
        await publishMug(first, etsy, 'ETSY-KEPT');
        await runDueJobs(first, LISTING_QUEUE);
        const revoked = await fetch(`${first.deps.config.appUrl}/sandbox/revoke`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ track: 'amazon-seller', account: 4802 }),
        });
        assert.equal(revoked.status, 204);
        const held = await heldListings(first, 'etsy', '4801');
        assert.deepEqual(
          held.map((listing) => listing.title),
          ['Stoneware mug ETSY-KEPT'],
        );
        await closeApp(first);

        const second = await open();
        assert.deepEqual(await heldListings(second, 'etsy', '4801'), held);
        assert.ok(second.deps.sandbox.revokedGrants.has('amazon-seller:4802'));
        // A new listing after the restart takes the next id, not one the first app gave already.
        const another = await etsySeller(second, '4803');
        await publishMug(second, another, 'ETSY-NEXT');
        await runDueJobs(second, LISTING_QUEUE);
        const next = await heldListings(second, 'etsy', '4803');
        assert.equal(next.length, 1);
        assert.notEqual(next[0]!.id, held[0]!.id);
        await closeApp(second);

        assert.ok((await second.deps.resetSandboxState()) >= 2);
        const third = await open();
        assert.deepEqual(await heldListings(third, 'etsy', '4801'), []);
        assert.deepEqual(await heldListings(third, 'etsy', '4803'), []);
        assert.equal(third.deps.sandbox.revokedGrants.size, 0);
      } finally {
        for (const app of apps) await app.close();
        await database.close();
      }
    });
  });
}
