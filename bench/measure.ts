/**
 * One load run of a server as every figure of the bench is measured: the same warm-up for every server, then the
 * measured run, with the server's own CPU time per request beside its throughput (CPU time moves far less than
 * throughput on a shared machine); and the medians of several such runs.
 */
import { execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { type LoadResult, type LoadShape, runLoad } from './load.js';
import type { ServerProcess } from './server-process.js';

export interface Measurement extends LoadResult {
  /** The server process's CPU time (user and system, all threads) during the measured run, over its requests. */
  readonly cpuMicrosPerRequest: number;
  /** The process's highest RSS from the ramp to the end of the measured run (bytes), where the bench read it. */
  readonly peakRss?: number;
}

/**
 * The first part of every warm-up: 10 connections, one request in flight each. A server met cold by the full load
 * (1,000 requests in flight before its code is compiled) can stay for its whole life in a state where every request
 * costs more: Storelink did so in 7 of 9 such starts on 2026-12-04, and in none of 28 started with this ramp
 * (BENCHMARKS.md, "The headers of the API's answers, and the load's cold start"). The bench measures the server as it
 * runs once warm, the same way for every server it compares.
 */
export const RAMP_SHAPE: LoadShape = { connections: 10, pipelining: 1 };

/**
 * The server is first left alone: a child process it started would run beside it, on its CPU (a child inherits the
 * pinning), and take turns with it. A first start on the embedded database leaves one, which remakes the database's
 * image from 10 s after the start (src/db/pglite-image.ts): in the measured run of a build comparison, each side on a
 * new database, it cost the server a third of its throughput and 6 % more CPU per request (BENCHMARKS.md, "PGlite's
 * image remade beside the measured server").
 */
export async function measureServer(
  server: ServerProcess,
  path: string,
  headers: Record<string, string>,
  options: { warmup: number; duration: number; shape?: LoadShape },
): Promise<Measurement> {
  const url = `${server.url}${path}`;
  await server.untilAlone();
  const ramp = options.warmup > 0 ? await runLoad(url, headers, options.warmup, RAMP_SHAPE) : null;
  const warm = options.warmup > 0 ? await runLoad(url, headers, options.warmup, options.shape) : null;
  const cpuBefore = server.cpuMicros();
  const result = await runLoad(url, headers, options.duration, options.shape);
  const cpu = server.cpuMicros() - cpuBefore;
  return {
    ...result,
    failures: result.failures + (ramp?.failures ?? 0) + (warm?.failures ?? 0),
    cpuMicrosPerRequest: result.requests > 0 ? cpu / result.requests : Number.NaN,
  };
}

/**
 * A server's idle memory once settled: the lowest RSS over `seconds` alone, read every second. V8 gives back the young
 * generation grown during start-up, and start-up garbage, only once it sees the process idle (10 to 30 s here).
 */
export async function settledRss(server: ServerProcess, seconds: number): Promise<number> {
  let lowest = server.memory().rss;
  for (let i = 0; i < seconds; i++) {
    await sleep(1000);
    lowest = Math.min(lowest, server.memory().rss);
  }
  return lowest;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Each figure's median over the rounds; failures are summed, since any one of them fails the bench. */
export function medianOf(rounds: readonly Measurement[]): Measurement {
  const of = (field: Exclude<keyof Measurement, 'failures' | 'peakRss'>) => median(rounds.map((r) => r[field]));
  return {
    rps: of('rps'),
    p50: of('p50'),
    p99: of('p99'),
    requests: of('requests'),
    cpuMicrosPerRequest: of('cpuMicrosPerRequest'),
    peakRss: median(rounds.map((r) => r.peakRss ?? Number.NaN)),
    failures: rounds.reduce((sum, r) => sum + r.failures, 0),
  };
}

/**
 * Where to pin, among the CPUs this process may use: the server under test on the last, the load generator on the
 * others; null (no pinning) with a single CPU or without taskset.
 */
export function cpuPins(): { server: string; load: string } | null {
  let allowed: number[];
  try {
    // "pid 123's current affinity list: 0-3,6"
    const answer = execFileSync('taskset', ['--cpu-list', '--pid', String(process.pid)], { encoding: 'utf8' });
    allowed = answer
      .slice(answer.lastIndexOf(':') + 1)
      .trim()
      .split(',')
      .flatMap((part) => {
        const [first, last = first] = part.split('-').map(Number);
        return Array.from({ length: last! - first! + 1 }, (_, i) => first! + i);
      });
  } catch {
    return null;
  }
  if (allowed.length < 2) return null;
  return { server: String(allowed.at(-1)), load: allowed.slice(0, -1).join(',') };
}
