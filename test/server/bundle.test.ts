/**
 * The server `npm start` runs: the bundle `npm run build:server` makes (scripts/build-server.ts), started with plain
 * node and the start script's flags and environment. The rest of the suite runs the source through tsx, where every
 * package loads from node_modules; the bundle compiles some of them in (scripts/server-bundle.ts). This checks, on
 * each database, that those work there: the API's schemas (typebox, for validation and the OpenAPI document), tokens
 * (jose), the catalogue's CSV (csv-parse, csv-stringify) and storage (drizzle-orm), the sandbox's connect flow, a
 * webhook delivered by the job engine (pg-boss), and a clean shutdown.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { databaseKinds } from '../helpers/database.js';
import { api, as, connectEtsy, createStorage, owner } from '../helpers/process-api.js';
import { startReceiver } from '../helpers/receiver.js';
import { startScript, startServerProcess } from '../helpers/server-process.js';
import { TEST_APP_SECRET, TEST_ENCRYPTION_KEY, within } from '../helpers/test-app.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// Beside dist/server, so that its packages resolve from node_modules and the dashboard from dist/web as dist/server's do.
const OUT = `dist/server-bundle-test-${process.pid}`;

before(async () => {
  await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/build-server.ts', OUT], { cwd: ROOT, timeout: 120_000 });
});
after(() => rm(`${ROOT}/${OUT}`, { recursive: true, force: true }));

for (const kind of databaseKinds()) {
  describe(`the server bundle (${kind})`, () => {
    test('answers the API, connects through the sandbox, delivers a webhook, and stops cleanly', { timeout: 90_000 }, async (t) => {
      const storage = await createStorage(kind);
      t.after(storage.remove);
      const receiver = await startReceiver('none');
      t.after(receiver.close);
      const start = startScript();
      const server = await startServerProcess(
        { ...start.env, ...storage.env, APP_SECRET: TEST_APP_SECRET, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY },
        { nodeArgs: [...start.flags, `${OUT}/main.js`] },
      );
      t.after(() => server.stop());
      try {
        const actor = await owner(server, receiver.url);

        const user = await api(server, 'GET', '/user', as(actor));
        assert.equal(user.status, 200, JSON.stringify(user.json));
        // A body the schema refuses: the seed's error shape, from the bundled typebox schema through Ajv.
        const refused = await api(server, 'POST', '/webhooks', { ...as(actor), body: { url: 42, events: ['site.connected'] } });
        assert.equal(refused.status, 422, JSON.stringify(refused.json));
        assert.equal(refused.json.success, false);
        const document = await api(server, 'GET', '/openapi.json');
        assert.equal(document.status, 200);
        assert.ok(document.json.paths['/api/v1/products']?.post?.requestBody, 'the OpenAPI document describes the body of POST /products');

        // The catalogue's CSV both ways (csv-parse, csv-stringify) over its storage (drizzle-orm).
        const headers = { authorization: `Bearer ${actor.pat}`, 'x-workspace-id': String(actor.workspace) };
        const imported = await fetch(`${server.url}/api/v1/products/import`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'text/csv' },
          body: 'handle,title,currency,sku,price,quantity\r\nmug,Bundled mug,EUR,BUNDLE-1,3.00,1\r\n',
        });
        assert.deepEqual(await imported.json(), { success: true, data: { created: 1, updated: 0, unchanged: 0, removed: 0, ignored: [] } });
        const exported = await (await fetch(`${server.url}/api/v1/products/export`, { headers })).text();
        assert.match(exported, /^handle,title,/);
        assert.match(exported, /Bundled mug,.*BUNDLE-1/);

        const siteId = await connectEtsy(server, actor, '1');
        await within(20_000, async () => receiver.received.some((delivery) => delivery.type === 'site.connected'));
        const sites = await api(server, 'GET', '/sites', as(actor));
        assert.deepEqual(
          sites.json.data.map((site: { id: number }) => site.id),
          [siteId],
        );

        await server.stop();
        assert.deepEqual(server.exitStatus(), { code: 0, signal: null });
      } catch (error) {
        throw new Error(`${(error as Error).message}\n--- the server's output ---\n${server.output()}`);
      }
    });
  });
}
