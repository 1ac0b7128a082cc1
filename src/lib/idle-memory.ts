/**
 * Gives memory back to the system while the server is idle.
 *
 * V8 grows the young generation's semi-spaces during start-up and under load (to the 8 MB `npm start` allows, or to
 * whatever `--max-semi-space-size` says), and shrinks them only at a collection made while allocation is low. An idle
 * server allocates too little to fill even a small young generation, so no collection comes, and what start-up or a
 * burst of load grew stays committed until V8's memory reducer runs: 45 to 100 s later on this server, since the
 * reducer judges the allocation rate over the last few collections, and those were made during the burst. The old
 * generation likewise keeps what a burst left (start-up's one-off code, caches) until then.
 *
 * Node.js gives V8 no idle notifications, so this looks every `intervalMs`. When the process has used less than
 * `idleCpuShare` of one CPU since the last look:
 * - if it worked (used more) at any time since its last full collection, or never had one, one full collection:
 *   the old generation's pages freed by it go back to the system;
 * - then, if the young generation is above `youngFloorBytes`, one minor collection, after which V8 sees the low
 *   allocation rate itself and shrinks the young generation to its minimum (about 1 MB).
 * Under load the CPU share is far above the threshold and nothing happens. A server that stays idle is left alone once
 * it has given back what it could.
 *
 * It needs node's `--expose-gc` (`npm start` passes it); without it, it does nothing.
 */
import { getHeapSpaceStatistics } from 'node:v8';

export interface IdleMemoryOptions {
  intervalMs?: number;
  /** The share of one CPU (0 to 1) under which the process counts as idle. */
  idleCpuShare?: number;
  /** Committed young-generation bytes at or under which there is nothing to give back. */
  youngFloorBytes?: number;
}

/** What the trimmer reads and does, passed in so a test can drive it. */
export interface IdleMemoryProbe {
  /** CPU time the process has used since it started, user and system, in microseconds. */
  cpuMicros(): number;
  /** Bytes the young generation has committed now. */
  youngBytes(): number;
  /** One minor (young-generation) collection. */
  collectYoung(): void;
  /** One full collection (both generations). */
  collectAll(): void;
}

/** The probe of this process, or null when node was started without `--expose-gc`. */
export function processProbe(): IdleMemoryProbe | null {
  const gc = (globalThis as { gc?: (options?: { type: 'minor' }) => void }).gc;
  if (typeof gc !== 'function') return null;
  return {
    cpuMicros: () => {
      const { user, system } = process.cpuUsage();
      return user + system;
    },
    youngBytes: () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0,
    collectYoung: () => gc({ type: 'minor' }),
    // Without options: node 20's V8 makes a minor collection of `{ type: 'major' }`, and a full one only of this.
    collectAll: () => gc(),
  };
}

/** What one look leaves for the next: the CPU time and moment it read, and whether the process worked since a full collection. */
export interface IdleState {
  cpuMicros: number;
  atMs: number;
  worked: boolean;
}

/**
 * One look (the rule above), separate from the timer so it can be checked without waiting. Returns the collection made,
 * if any, and the state for the next look.
 */
export function idleLook(
  probe: IdleMemoryProbe,
  previous: IdleState,
  nowMs: number,
  options: Required<IdleMemoryOptions>,
): IdleState & { collected: Array<'full' | 'young'> } {
  const cpuMicros = probe.cpuMicros();
  const elapsedMicros = (nowMs - previous.atMs) * 1000;
  const idle = elapsedMicros > 0 && (cpuMicros - previous.cpuMicros) / elapsedMicros < options.idleCpuShare;
  if (!idle) return { collected: [], cpuMicros, atMs: nowMs, worked: true };
  const collected: Array<'full' | 'young'> = [];
  if (previous.worked) {
    probe.collectAll();
    collected.push('full');
  }
  // A full collection leaves the young generation's size as it was; only a minor one made now shrinks it.
  if (probe.youngBytes() > options.youngFloorBytes) {
    probe.collectYoung();
    collected.push('young');
  }
  // The collection's own CPU time is not the next interval's load.
  return { collected, cpuMicros: collected.length > 0 ? probe.cpuMicros() : cpuMicros, atMs: nowMs, worked: false };
}

/** Starts looking every `intervalMs` (an unref'd timer: it never keeps the process alive); returns the stop. */
export function trimWhenIdle(probe: IdleMemoryProbe | null, options: IdleMemoryOptions = {}): () => void {
  if (!probe) return () => {};
  const settings: Required<IdleMemoryOptions> = {
    intervalMs: options.intervalMs ?? 10_000,
    idleCpuShare: options.idleCpuShare ?? 0.02,
    youngFloorBytes: options.youngFloorBytes ?? 4 * 1024 * 1024,
  };
  // Start-up was work: the first idle look collects fully.
  let last: IdleState = { cpuMicros: probe.cpuMicros(), atMs: performance.now(), worked: true };
  const timer = setInterval(() => {
    last = idleLook(probe, last, performance.now(), settings);
  }, settings.intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
