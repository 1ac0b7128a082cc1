/** Sets up the bench's user through Storelink's real API: register, create PATs, and read GET /user once. */
export interface BenchUser {
  /** The PAT the load is sent with (90-day expiry, so the expiry check has something to check). */
  readonly pat: string;
  readonly workspaceId: number;
  /** Headers of GET /api/v1/user: the PAT as bearer and X-Workspace-Id. */
  readonly headers: Record<string, string>;
}

export const PATS_PER_BENCH_USER = 10;

async function post(url: string, body: unknown, bearer?: string): Promise<any> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
    body: JSON.stringify(body),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`POST ${new URL(url).pathname} answered ${response.status}: ${JSON.stringify(json)}`);
  return json;
}

/** A new account with its own workspace, and PATS_PER_BENCH_USER PATs. */
export async function createBenchUser(baseUrl: string): Promise<BenchUser> {
  const api = `${baseUrl}/api/v1`;
  const registered = await post(`${api}/auth/register`, {
    email: 'bench@example.com',
    password: 'bench password long enough',
    name: 'Bench',
  });
  const session = registered.data.token as string;
  const pats: string[] = [];
  for (let i = 0; i < PATS_PER_BENCH_USER; i++) {
    pats.push((await post(`${api}/personal-access-tokens`, { name: `bench ${i}`, expires_in_days: 90 }, session)).data.token);
  }
  const workspaceId = registered.data.workspace.id as number;
  return { pat: pats[0]!, workspaceId, headers: { authorization: `Bearer ${pats[0]}`, 'x-workspace-id': String(workspaceId) } };
}

/** Headers of an answer that belong to the connection or the moment, not to the answer: not compared, not copied. */
const CONNECTION_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

/** GET /api/v1/user once: status, content-type, the exact body bytes, and the answer's own headers. */
export async function readUser(
  baseUrl: string,
  headers: Record<string, string>,
): Promise<{ status: number; contentType: string; body: string; headers: Record<string, string> }> {
  const response = await fetch(`${baseUrl}/api/v1/user`, { headers });
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    body: await response.text(),
    headers: ownHeaders(response.headers),
  };
}

/** An answer's own headers: without those of the connection or the moment. */
export function ownHeaders(headers: Headers): Record<string, string> {
  const own: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (!CONNECTION_HEADERS.has(name)) own[name] = value;
  });
  return own;
}
