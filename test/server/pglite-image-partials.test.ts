/** The embedded database's image (src/db/pglite-image.ts): what a killed build or remaking child left aside is swept. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { sweepAbandonedPartials } from '../../src/db/pglite-image.js';

test("a partial image of a process that is gone is removed; a live process's, the image and other keys' are kept", () => {
  const dir = mkdtempSync(join(tmpdir(), 'storelink-image-'));
  try {
    // A pid that surely ran and is gone: a child that has exited.
    const gone = spawnSync(process.execPath, ['-e', '']).pid!;
    const key = '0123456789abcdef';
    for (const name of [key, `${key}.${gone}`, `${key}.${process.pid}`, 'fedcba9876543210.1']) {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, 'PG_VERSION'), '17');
    }
    writeFileSync(join(dir, `${key}.tar`), 'image');
    writeFileSync(join(dir, `${key}.tar.${gone}`), 'half an image');
    sweepAbandonedPartials(key, dir);
    assert.deepEqual(readdirSync(dir).sort(), [key, `${key}.${process.pid}`, `${key}.tar`, 'fedcba9876543210.1'].sort());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a directory of images that is not there yet is nothing to sweep', () => {
  assert.doesNotThrow(() => sweepAbandonedPartials('0123456789abcdef', join(tmpdir(), 'storelink-no-such-dir')));
});
