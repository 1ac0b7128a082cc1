/**
 * `npm start`'s prestart (package.json): it builds the server only when dist/server is not the build of the sources as
 * they are (scripts/server-bundle-current.ts), so a start of an unchanged checkout spends no 2 to 3 s on a build. Run
 * on a small copy of the project's layout whose build:server only leaves a mark, with the real prestart command and
 * the real check.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, beforeEach, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { bundleInputsHash, INPUTS_HASH_FILE, serverBundleCurrent } from '../../scripts/server-bundle-current.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PRESTART = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.prestart!;

describe("npm start's prestart", () => {
  const root = mkdtempSync(join(tmpdir(), 'storelink-prestart-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  /** The copy as a build leaves it: sources, a bundle, an image and the inputs' hash; no mark of a build run since. */
  beforeEach(() => {
    rmSync(root, { recursive: true, force: true });
    mkdirSync(join(root, 'src/db/migrations'), { recursive: true });
    mkdirSync(join(root, 'dist/server'), { recursive: true });
    mkdirSync(join(root, 'dist/pglite-image'), { recursive: true });
    cpSync(join(ROOT, 'scripts/server-bundle-current.ts'), join(root, 'scripts/server-bundle-current.ts'));
    writeFileSync(join(root, 'src/main.ts'), "console.log('storelink');\n");
    writeFileSync(join(root, 'src/db/migrations/0000_init.sql'), 'create table a (id int);\n');
    const build = "node -e \"require('fs').writeFileSync('built', '')\"";
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'copy', private: true, scripts: { 'build:server': build } }));
    writeFileSync(join(root, 'package-lock.json'), '{}\n');
    writeFileSync(join(root, 'dist/server/main.js'), '');
    writeFileSync(join(root, 'dist/pglite-image/0123.tar'), '');
    writeFileSync(join(root, 'dist/server', INPUTS_HASH_FILE), `${bundleInputsHash(root)}\n`);
  });

  /** Runs the prestart in the copy: whether it built. */
  async function prestartBuilds(): Promise<boolean> {
    await promisify(execFile)('sh', ['-c', PRESTART], { cwd: root, timeout: 60_000 });
    return existsSync(join(root, 'built'));
  }

  test('a bundle built from the sources as they are is not built again', async () => {
    assert.equal(serverBundleCurrent(root), true);
    assert.equal(await prestartBuilds(), false);
  });

  test('an edited source file, a new one or a changed lock file builds it again', async () => {
    writeFileSync(join(root, 'src/main.ts'), "console.log('storelink, edited');\n");
    assert.equal(serverBundleCurrent(root), false);
    assert.equal(await prestartBuilds(), true);

    rmSync(join(root, 'built'));
    writeFileSync(join(root, 'src/main.ts'), "console.log('storelink');\n");
    assert.equal(serverBundleCurrent(root), true, 'the same contents again are current');
    writeFileSync(join(root, 'src/db/migrations/0001_more.sql'), 'create table b (id int);\n');
    assert.equal(await prestartBuilds(), true);

    rmSync(join(root, 'built'));
    rmSync(join(root, 'src/db/migrations/0001_more.sql'));
    writeFileSync(join(root, 'package-lock.json'), '{"lockfileVersion":3}\n');
    assert.equal(await prestartBuilds(), true);
  });

  test('a missing bundle, hash or image builds it', async () => {
    for (const missing of ['dist/server/main.js', `dist/server/${INPUTS_HASH_FILE}`, 'dist/pglite-image/0123.tar']) {
      rmSync(join(root, missing));
      assert.equal(await prestartBuilds(), true, `built without ${missing}`);
      writeFileSync(join(root, missing), missing.endsWith(INPUTS_HASH_FILE) ? `${bundleInputsHash(root)}\n` : '');
      rmSync(join(root, 'built'));
    }
  });
});
