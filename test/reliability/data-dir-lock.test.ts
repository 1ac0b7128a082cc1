/** The DATA_DIR lock's rules for an owner it finds: who is still running, and whose lock may be taken over. */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { DataDirInUseError, LOCK_FILE, lockDataDir } from '../../src/db/data-dir-lock.js';

let dataDir: string;
let ownNamespace = '';
const lockPath = () => join(dataDir, LOCK_FILE);

/** Writes a lock as another process would have, touched `ageMs` ago. */
function writeLock(owner: { pid: number; host?: string; pidNamespace?: string; since?: string }, ageMs = 0) {
  writeFileSync(lockPath(), JSON.stringify({ host: hostname(), pidNamespace: ownNamespace, since: new Date().toISOString(), ...owner }));
  const touched = new Date(Date.now() - ageMs);
  utimesSync(lockPath(), touched, touched);
}

describe('the DATA_DIR lock', () => {
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'storelink-lock-unit-'));
    // This process's pid namespace, as the lock records it.
    const own = lockDataDir(dataDir);
    ownNamespace = JSON.parse(readFileSync(lockPath(), 'utf8')).pidNamespace;
    own.release();
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  test('a second lock in the same process is refused while the first is held, and granted once it is released', () => {
    const first = lockDataDir(dataDir);
    assert.throws(() => lockDataDir(dataDir), DataDirInUseError);
    first.release();
    assert.equal(existsSync(lockPath()), false);
    lockDataDir(dataDir).release();
  });

  test('a lock whose pid is running on this machine is refused, naming the pid', () => {
    writeLock({ pid: process.ppid });
    assert.throws(
      () => lockDataDir(dataDir),
      (error: Error) => error instanceof DataDirInUseError && error.message.includes(`pid ${process.ppid} `),
    );
  });

  test('a lock whose pid is gone is taken over, and the takeover is reported', () => {
    writeLock({ pid: 2 ** 22 + 12_345 }); // above Linux's pid_max: no such process
    const warnings: string[] = [];
    const lock = lockDataDir(dataDir, { warn: (message) => warnings.push(message) });
    assert.equal(JSON.parse(readFileSync(lockPath(), 'utf8')).pid, process.pid);
    assert.match(warnings.join('\n'), /took over the lock of a Storelink process that is gone \(pid 4206649 /);
    lock.release();
  });

  test('a lock written before this machine booted is taken over even if its pid now runs', () => {
    writeLock({ pid: process.ppid, since: new Date(0).toISOString() });
    lockDataDir(dataDir).release();
  });

  test('a lock from another machine or container is refused while its owner keeps touching it, and taken over after 45 s without', () => {
    writeLock({ pid: 1, host: 'another-host' }, 5_000);
    assert.throws(() => lockDataDir(dataDir), DataDirInUseError);
    writeLock({ pid: 1, host: 'another-host' }, 60_000);
    lockDataDir(dataDir).release();
    writeLock({ pid: process.ppid, pidNamespace: 'pid:[another container]' }, 5_000);
    assert.throws(() => lockDataDir(dataDir), DataDirInUseError);
  });

  test('a lock file left half-written is refused while fresh and taken over once old', () => {
    writeFileSync(lockPath(), '');
    assert.throws(() => lockDataDir(dataDir), DataDirInUseError);
    const old = new Date(Date.now() - 60_000);
    utimesSync(lockPath(), old, old);
    lockDataDir(dataDir).release();
  });

  test('release leaves alone a lock that another process has taken since', () => {
    const lock = lockDataDir(dataDir);
    writeLock({ pid: process.ppid });
    lock.release();
    assert.equal(JSON.parse(readFileSync(lockPath(), 'utf8')).pid, process.ppid);
  });
});
