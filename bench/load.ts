/** One autocannon run with the bench's fixed shape: 100 connections, pipelining 10, a given duration. */
import autocannon from 'autocannon';

export interface LoadResult {
  /** Average requests per second over the run. */
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly requests: number;
  /** Answers outside 2xx, plus connection errors and timeouts: any of them fails the bench. */
  readonly failures: number;
}

export const CONNECTIONS = 100;
export const PIPELINING = 10;

/** How many requests are in flight: 100 connections pipelining 10 unless a run says otherwise. */
export interface LoadShape {
  connections: number;
  pipelining: number;
}

export async function runLoad(
  url: string,
  headers: Record<string, string>,
  durationSeconds: number,
  shape: LoadShape = { connections: CONNECTIONS, pipelining: PIPELINING },
): Promise<LoadResult> {
  const result = await autocannon({ url, headers, ...shape, duration: durationSeconds });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}
