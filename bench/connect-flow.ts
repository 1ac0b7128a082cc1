/**
 * (d) The whole sandbox connect flow as a browser and a script would drive it, in flows per second:
 * POST /authenticate-site (Etsy, with the PAT) -> the sandbox consent page -> Allow with a sandbox account number ->
 * the callback (code exchange, shop lookup, site stored) -> the success redirect. Every flow uses another account
 * number, so every flow stores a new site.
 */
import type { BenchUser } from './storelink-api.js';

export interface FlowResult {
  readonly flows: number;
  readonly flowsPerSecond: number;
  readonly failures: number;
  readonly firstFailure: string | null;
  /** Sites GET /sites lists afterwards: one per completed flow. */
  readonly sitesStored: number;
}

export const FLOW_WORKERS = 10;
const MAX_SANDBOX_ACCOUNT = 999_999;

export async function runConnectFlows(baseUrl: string, user: BenchUser, durationSeconds: number, firstAccount = 1): Promise<FlowResult> {
  let next = firstAccount;
  let flows = 0;
  let failures = 0;
  let firstFailure: string | null = null;
  const deadline = Date.now() + durationSeconds * 1000;
  const started = Date.now();
  const worker = async () => {
    while (Date.now() < deadline) {
      const account = next++;
      if (account > MAX_SANDBOX_ACCOUNT) throw new Error('ran out of sandbox account numbers');
      try {
        await connectOnce(baseUrl, user, account);
        flows++;
      } catch (error) {
        failures++;
        firstFailure ??= (error as Error).message;
      }
    }
  };
  await Promise.all(Array.from({ length: FLOW_WORKERS }, worker));
  const seconds = (Date.now() - started) / 1000;
  return { flows, flowsPerSecond: flows / seconds, failures, firstFailure, sitesStored: await countSites(baseUrl, user) };
}

/**
 * One connect flow of sandbox `account` (Etsy unless `platformId` says another seller platform, with the consent page's
 * further `choices` and the authorization request's further fields, such as Amazon's `region`); answers the site's id.
 */
export async function connectOnce(
  baseUrl: string,
  user: BenchUser,
  account: number,
  platformId: 1 | 4 | 5 = 1,
  choices: Record<string, string> = {},
  request: Record<string, unknown> = {},
): Promise<number> {
  const asked = await fetch(`${baseUrl}/api/v1/authenticate-site`, {
    method: 'POST',
    headers: { ...user.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ ...request, platform_id: platformId }),
  });
  expect(asked.status === 200, `authenticate-site answered ${asked.status}`);
  const url = ((await asked.json()) as { data: { url: string } }).data.url;

  const page = await fetch(url);
  expect(page.status === 200 && (await page.text()).includes('Sandbox'), `consent page answered ${page.status}`);
  // The consent form carries the authorization request's parameters as hidden fields, plus the user's choice.
  const form = new URLSearchParams([
    ...new URL(url).searchParams,
    ['decision', 'allow'],
    ['account', String(account)],
    ...Object.entries(choices),
  ]);
  const consented = await fetch(url.split('?')[0]!, { method: 'POST', body: form, redirect: 'manual' });
  await consented.arrayBuffer();
  expect(consented.status === 302, `consent POST answered ${consented.status}`);

  const callback = await fetch(consented.headers.get('location')!, { redirect: 'manual' });
  await callback.arrayBuffer();
  const target = callback.headers.get('location') ?? '';
  expect(callback.status === 302 && /\/site\/\d+\/listings$/.test(target), `callback answered ${callback.status} to ${target}`);
  return Number(/\/site\/(\d+)\/listings$/.exec(target)![1]);
}

async function countSites(baseUrl: string, user: BenchUser): Promise<number> {
  const response = await fetch(`${baseUrl}/api/v1/sites?per_page=1`, { headers: user.headers });
  return ((await response.json()) as { meta: { total: number } }).meta.total;
}

function expect(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(message);
}
