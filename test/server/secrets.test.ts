import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, test } from 'node:test';
import { type ConfigError, loadConfig } from '../../src/config.js';
import { resolveSecrets } from '../../src/secrets.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'storelink-secrets-'));
  dirs.push(dir);
  return dir;
}

test('unset secrets are generated once into DATA_DIR with mode 0600 and reused on the next start', () => {
  const dir = dataDir();
  const warnings: string[] = [];
  const first = resolveSecrets(loadConfig({ DATA_DIR: dir }), (m) => warnings.push(m));
  const second = resolveSecrets(loadConfig({ DATA_DIR: dir }), () => {});
  assert.equal(statSync(join(dir, 'secrets.json')).mode & 0o777, 0o600);
  assert.equal(first.appSecret, second.appSecret);
  assert.deepEqual(first.encryptionKey, second.encryptionKey);
  assert.equal(first.encryptionKey.length, 32);
  assert.match(warnings[0]!, /APP_SECRET and ENCRYPTION_KEY not set/);
});

test('a secret given in the environment is used and never written to the secrets file', () => {
  const dir = dataDir();
  const appSecret = 'an-app-secret-from-the-environment-0123456789';
  const config = resolveSecrets(loadConfig({ DATA_DIR: dir, APP_SECRET: appSecret }), () => {});
  assert.equal(config.appSecret, appSecret);
  assert.ok(!readFileSync(join(dir, 'secrets.json'), 'utf8').includes(appSecret));
});

test('a secrets file that cannot be read stops the start instead of silently making a new key', () => {
  for (const content of [
    '{not json',
    JSON.stringify({ appSecret: 'x'.repeat(40), encryptionKey: 'short' }),
    JSON.stringify({ encryptionKey: 'ab'.repeat(32) }),
  ]) {
    const dir = dataDir();
    writeFileSync(join(dir, 'secrets.json'), content);
    assert.throws(
      () => resolveSecrets(loadConfig({ DATA_DIR: dir }), () => {}),
      (e: ConfigError) => e.problems.length === 1 && e.problems[0]!.startsWith('DATA_DIR:'),
    );
  }
});
