/** JSON requests to a server process that never throw, and the check that an answer is the seed's 503. */

export interface Answer {
  /** 0 when no HTTP answer came (refused, reset, or aborted after `timeoutMs`). */
  status: number;
  retryAfter: string | null;
  body: unknown;
  ms: number;
}

/** One request to `${baseUrl}/api/v1${path}` with a JSON body (if any); a transport failure is status 0. */
export async function requestJson(
  baseUrl: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown; timeoutMs?: number } = {},
): Promise<Answer> {
  const startedAt = performance.now();
  try {
    const response = await fetch(`${baseUrl}/api/v1${path}`, {
      method,
      headers: { ...options.headers, ...(options.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return { status: response.status, retryAfter: response.headers.get('retry-after'), body, ms: performance.now() - startedAt };
  } catch (error) {
    return { status: 0, retryAfter: null, body: String(error), ms: performance.now() - startedAt };
  }
}

/** Why an answer is not the seed's 503 (`{success:false,code:503,message}` and a Retry-After header), or null when it is. */
export function notSeed503(answer: Pick<Answer, 'status' | 'retryAfter' | 'body'>): string | null {
  if (answer.status !== 503) return `status ${answer.status}: ${JSON.stringify(answer.body)}`;
  const body = answer.body as Record<string, unknown> | null;
  const shaped =
    typeof body === 'object' &&
    body !== null &&
    Object.keys(body).sort().join(',') === 'code,message,success' &&
    body.success === false &&
    body.code === 503 &&
    typeof body.message === 'string';
  if (!shaped) return `503 body ${JSON.stringify(answer.body)}`;
  if (!answer.retryAfter || !/^\d+$/.test(answer.retryAfter)) return `503 with Retry-After ${JSON.stringify(answer.retryAfter)}`;
  return null;
}

/** Counts of answers by status, as `201: 40, 503: 3`, for failure messages. */
export function statusCounts(answers: readonly Pick<Answer, 'status'>[]): string {
  const counts = new Map<number, number>();
  for (const a of answers) counts.set(a.status, (counts.get(a.status) ?? 0) + 1);
  return [...counts]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${status}: ${n}`)
    .join(', ');
}
