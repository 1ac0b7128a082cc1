/**
 * Gives V8's young generation back while the server is idle.
 *
 * `npm start` lets the young generation's semi-spaces grow to 64 MB, so that requests in flight die young instead of
 * being promoted (BENCHMARKS.md, "What the hardening issue's item 7 changed"). V8 grows them during start-up and under
 * load, and shrinks them only at a collection made while allocation is low. An idle server allocates too little to
 * fill even a small young generation, so no collection comes, and what start-up or a burst of load grew stays
 * committed until V8's memory reducer runs: 45 to 100 s later on this server, since the reducer judges the allocation
 * rate over the last few collections, and those were made during the burst.
 *
 * Node.js gives V8 no idle notifications, so this looks every `intervalMs`: when the process has used less than
 * `idleCpuShare` of one CPU since the last look and the young generation is above `youngFloorBytes`, it makes one minor
 * collection. V8 then sees the low allocation rate itself and shrinks the young generation to its minimum (about 1 MB).
 * Under load the CPU share is far above the threshold and nothing happens; a server that stays idle, once shrunk, is
 * below the floor and is left alone.
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
}

/** The probe of this process, or null when node was started without `--expose-gc`. */
export function processProbe(): IdleMemoryProbe | null {
  const gc = (globalThis as { gc?: (options: { type: 'minor' }) => void }).gc;
  if (typeof gc !== 'function') return null;
  return {
    cpuMicros: () => {
      const { user, system } = process.cpuUsage();
      return user + system;
    },
    youngBytes: () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0,
    collectYoung: () => gc({ type: 'minor' }),
  };
}

/**
 * One look: collects when the process was idle since the previous look and holds a grown young generation. Returns
 * whether it collected. Separate from the timer so the rule can be checked without waiting.
 */
export function idleLook(
  probe: IdleMemoryProbe,
  previous: { cpuMicros: number; atMs: number },
  nowMs: number,
  options: Required<IdleMemoryOptions>,
): { collected: boolean; cpuMicros: number; atMs: number } {
  const cpuMicros = probe.cpuMicros();
  const elapsedMicros = (nowMs - previous.atMs) * 1000;
  const idle = elapsedMicros > 0 && (cpuMicros - previous.cpuMicros) / elapsedMicros < options.idleCpuShare;
  const collected = idle && probe.youngBytes() > options.youngFloorBytes;
  if (collected) probe.collectYoung();
  // The collection's own CPU time is not the next interval's load.
  return { collected, cpuMicros: collected ? probe.cpuMicros() : cpuMicros, atMs: nowMs };
}

/** Starts looking every `intervalMs` (an unref'd timer: it never keeps the process alive); returns the stop. */
export function trimWhenIdle(probe: IdleMemoryProbe | null, options: IdleMemoryOptions = {}): () => void {
  if (!probe) return () => {};
  const settings: Required<IdleMemoryOptions> = {
    intervalMs: options.intervalMs ?? 10_000,
    idleCpuShare: options.idleCpuShare ?? 0.02,
    youngFloorBytes: options.youngFloorBytes ?? 4 * 1024 * 1024,
  };
  let last = { cpuMicros: probe.cpuMicros(), atMs: performance.now() };
  const timer = setInterval(() => {
    last = idleLook(probe, last, performance.now(), settings);
  }, settings.intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
