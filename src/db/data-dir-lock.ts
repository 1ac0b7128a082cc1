/**
 * One process per embedded database: a lock file in DATA_DIR naming its owner, as PostgreSQL's postmaster.pid does.
 * PGlite takes no lock of its own, and a second process on the same directory loses acknowledged writes silently
 * (reliability review t9). The file is created with O_EXCL, so of two processes starting together one wins.
 */
import { closeSync, mkdirSync, openSync, readFileSync, readlinkSync, statSync, unlinkSync, utimesSync, writeSync } from 'node:fs';
import { hostname, uptime } from 'node:os';
import { resolve } from 'node:path';

export const LOCK_FILE = 'storelink.lock';
// The owner touches its lock this often, so a process that cannot see its pid (another container or machine on a
// shared volume) can tell a live owner from a gone one: a lock untouched for STALE_MS has no owner left.
const HEARTBEAT_MS = 10_000;
const STALE_MS = 45_000;

export interface LockOwner {
  readonly pid: number;
  readonly host: string;
  /** The owner's pid namespace (Linux), so a container's pid 1 is not taken for another container's. */
  readonly pidNamespace: string;
  readonly since: string;
}

export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly owner: LockOwner | null,
  ) {
    const who = owner ? `pid ${owner.pid} on ${owner.host}, since ${owner.since}` : 'its lock file is being written';
    super(
      `DATA_DIR: ${dataDir} is in use by another Storelink process (${who}). Only one process may open the embedded ` +
        'database: stop that server first, or set DATABASE_URL to use PostgreSQL, which any number of processes can share.',
    );
    this.name = 'DataDirInUseError';
  }
}

// Lock files this process holds: a lock naming our own pid is a previous life's only if it is not among them.
const heldHere = new Set<string>();

export interface DataDirLock {
  /** Stops the heartbeat and deletes the lock file if it is still this process's. */
  release(): void;
}

/** Takes DATA_DIR's lock, taking over one whose owner is gone (`warn` says so); throws DataDirInUseError if it is held. */
export function lockDataDir(dataDir: string, options: { warn?: (message: string) => void } = {}): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const path = resolve(dataDir, LOCK_FILE);
  const me: LockOwner = { pid: process.pid, host: hostname(), pidNamespace: pidNamespace(), since: new Date().toISOString() };
  // A second and third attempt only when the lock disappeared between two steps (its owner stopping meanwhile).
  for (let attempt = 1; !create(path, me); attempt++) {
    const held = readLock(path);
    if (!held) {
      if (attempt < 3) continue;
      throw new DataDirInUseError(dataDir, null);
    }
    if (heldHere.has(path) || !ownerIsGone(held, me)) throw new DataDirInUseError(dataDir, held.owner);
    takeOver(path, held, me, dataDir);
    const { owner } = held;
    options.warn?.(
      owner
        ? `DATA_DIR: took over the lock of a Storelink process that is gone (pid ${owner.pid} on ${owner.host}, since ${owner.since})`
        : 'DATA_DIR: took over a lock file that was never completed',
    );
    break;
  }
  heldHere.add(path);
  const heartbeat = setInterval(() => touch(path), HEARTBEAT_MS).unref();
  return {
    release() {
      clearInterval(heartbeat);
      heldHere.delete(path);
      const current = readLock(path);
      if (current?.owner?.pid === me.pid && current.owner.since === me.since) unlinkQuietly(path);
    },
  };
}

interface HeldLock {
  readonly owner: LockOwner | null;
  readonly text: string;
  readonly touchedAt: number;
}

/** Whether the lock's owner cannot be running: its pid is gone (same machine and pid namespace) or its heartbeat stopped. */
function ownerIsGone(held: HeldLock, me: LockOwner, now = Date.now()): boolean {
  const { owner } = held;
  const samePidSpace = owner !== null && owner.host === me.host && owner.pidNamespace === me.pidNamespace;
  if (!samePidSpace) return now - held.touchedAt > STALE_MS;
  // Our own pid, in a lock this process does not hold: a previous life (a container's pid 1 restarted).
  if (owner.pid === me.pid) return true;
  // Written before this machine booted: the pid may have been given to an unrelated process since.
  if (Date.parse(owner.since) < now - uptime() * 1000) return true;
  return !isRunning(owner.pid);
}

/**
 * Replaces a stale lock. Only the process holding `<lock>.takeover` (created with O_EXCL) may delete the lock file, and
 * only if it is still the stale one it read; a process starting meanwhile creates its lock normally and wins.
 */
function takeOver(path: string, stale: HeldLock, me: LockOwner, dataDir: string): void {
  const guard = `${path}.takeover`;
  if (!create(guard, me)) {
    // A guard is held for microseconds; an old one was left by a process killed while it held it.
    const guardHeld = readLock(guard);
    const abandoned = guardHeld !== null && Date.now() - guardHeld.touchedAt > HEARTBEAT_MS;
    if (abandoned) unlinkQuietly(guard);
    if (!abandoned || !create(guard, me)) throw new DataDirInUseError(dataDir, readLock(path)?.owner ?? null);
  }
  try {
    const current = readLock(path);
    if (current && current.text !== stale.text) throw new DataDirInUseError(dataDir, current.owner);
    if (current) unlinkQuietly(path);
    if (!create(path, me)) throw new DataDirInUseError(dataDir, readLock(path)?.owner ?? null);
  } finally {
    unlinkQuietly(guard);
  }
}

/** Creates `path` holding `owner`, or returns false when it exists. */
function create(path: string, owner: LockOwner): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, `${JSON.stringify(owner)}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** The lock at `path`, or null when there is none; an owner of null when its content cannot be read (being written). */
function readLock(path: string): HeldLock | null {
  try {
    const touchedAt = statSync(path).mtimeMs;
    const text = readFileSync(path, 'utf8');
    return { owner: parseOwner(text), text, touchedAt };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function parseOwner(text: string): LockOwner | null {
  try {
    const value = JSON.parse(text) as Partial<LockOwner>;
    const valid =
      Number.isInteger(value.pid) &&
      typeof value.host === 'string' &&
      typeof value.pidNamespace === 'string' &&
      typeof value.since === 'string';
    return valid ? (value as LockOwner) : null;
  } catch {
    return null;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, under another user.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

function pidNamespace(): string {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return '';
  }
}

function touch(path: string): void {
  try {
    const now = new Date();
    utimesSync(path, now, now);
  } catch {
    // The directory went away or became read-only: the next write reports it.
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {}
}
