/**
 * (h) Listings on the sandbox Etsy with its rate limit on: a publish of N products (1,000 in the full bench), timed from
 * the first POST to the shop holding them all active, against the floor the limit sets (Etsy calls per listing × N ÷
 * the calls allowed a second); then the price of every product changed at once, and the time from each change to the
 * shop holding the new price, median and p99.
 */
import { connectOnce } from './connect-flow.js';
import type { ServerProcess } from './server-process.js';
import type { BenchUser } from './storelink-api.js';

/** Etsy's per-second limit the bench runs under: the newer documentation's example header (listings.md §1.10). */
export const ETSY_CALLS_PER_SECOND = 150;
const SANDBOX_ACCOUNT = 424_242;
const GIF_1X1 = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
/**
 * How often the shop is looked at. Each look serialises every listing of the shop inside the server under test, so it
 * is rare: the times are the shop's own (`updated_at`, when it took the change), not when the bench looked.
 */
const POLL_MS = 500;

export interface ListingsResult {
  readonly listings: number;
  readonly callsPerSecond: number;
  readonly publishSeconds: number;
  /** Etsy listing-API calls the publish made, per listing. */
  readonly callsPerListing: number;
  /** callsPerListing × listings ÷ callsPerSecond: no publish under the limit can be faster. */
  readonly floorSeconds: number;
  /** floorSeconds ÷ publishSeconds: 1 is the limit reached. */
  readonly ofFloor: number;
  /** From each price change's answer to the shop holding the new price, milliseconds. */
  readonly priceMedianMs: number;
  readonly priceP99Ms: number;
  readonly priceMaxMs: number;
}

interface ShopListing {
  skus: { sku: string; price: string }[];
  state: string;
  /** When the shop last took a change of the listing: its activation, or the new price. */
  updated_at: string;
}

async function send(server: ServerProcess, user: BenchUser, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${server.url}/api/v1${path}`, {
    method,
    headers: { ...user.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = (await response.json()) as any;
  if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status} ${JSON.stringify(answer).slice(0, 300)}`);
  return answer;
}

/** Etsy listing-API calls the sandbox counted so far (every `etsy:` operation but the connect flow's). */
async function listingCalls(server: ServerProcess): Promise<number> {
  const calls = (await (await fetch(`${server.url}/sandbox/calls`)).json()) as Record<string, number>;
  const connect = new Set(['etsy:authorize', 'etsy:consent', 'etsy:token', 'etsy:identity', 'etsy:shop']);
  return Object.entries(calls)
    .filter(([key]) => key.startsWith('etsy:') && !connect.has(key))
    .reduce((sum, [, n]) => sum + n, 0);
}

const shop = async (server: ServerProcess): Promise<ShopListing[]> =>
  (await fetch(`${server.url}/sandbox/etsy/accounts/${SANDBOX_ACCOUNT}/listings`)).json() as Promise<ShopListing[]>;

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function until(limitMs: number, check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${limitMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

export async function benchListings(server: ServerProcess, user: BenchUser, count: number): Promise<ListingsResult> {
  const limits = await fetch(`${server.url}/sandbox/limits`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ per_second: ETSY_CALLS_PER_SECOND, per_day: 10_000_000 }),
  });
  if (limits.status !== 204) throw new Error(`POST /sandbox/limits answered ${limits.status}`);
  const site = await connectOnce(server.url, user, SANDBOX_ACCOUNT);
  const options = (await send(server, user, 'GET', `/sites/${site}/listing-options`)).data;
  await send(server, user, 'PUT', `/sites/${site}/listing-settings`, {
    shipping_profile_id: options.shipping_profile_id[0].value,
    return_policy_id: options.return_policy_id[0].value,
    readiness_state_id: options.readiness_state_id[0].value,
    who_made: 'i_did',
    when_made: 'made_to_order',
  });
  const products: { id: number; sku: string }[] = [];
  for (let i = 0; i < count; i++) {
    const sku = `BENCH-L-${i}`;
    const body = { title: `Bench tote ${i}`, currency: 'USD', variants: [{ sku, price: '20.00', quantity: 5 }] };
    const id = (await send(server, user, 'POST', '/products', body)).data.id as number;
    const form = new FormData();
    form.set('file', new Blob([GIF_1X1], { type: 'image/gif' }), 'tote.gif');
    const uploaded = await fetch(`${server.url}/api/v1/products/${id}/images`, { method: 'POST', headers: user.headers, body: form });
    if (uploaded.status !== 201) throw new Error(`the image upload answered ${uploaded.status}`);
    products.push({ id, sku });
  }

  const callsBefore = await listingCalls(server);
  // Wall-clock milliseconds, as the shop's `updated_at` are (the server runs on this machine's clock).
  const started = Date.now();
  for (const product of products) {
    await send(server, user, 'POST', `/sites/${site}/listings`, { product_id: product.id, category_id: '1011', attributes: { 200: '1' } });
  }
  let held: ShopListing[] = [];
  await until(600_000, async () => (held = await shop(server)).filter((l) => l.state === 'active').length === count, 'the publish');
  const publishSeconds = (Math.max(...held.map((l) => Date.parse(l.updated_at))) - started) / 1000;
  const callsPerListing = ((await listingCalls(server)) - callsBefore) / count;
  const floorSeconds = (callsPerListing * count) / ETSY_CALLS_PER_SECOND;

  // Every price at once, as a CSV import of new prices would; each change timed from its own answer to the shop's
  // taking it (the listing's last change: the new price is the only one the change makes).
  const changedAt = new Map<string, number>();
  for (const product of products) {
    const current = (await send(server, user, 'GET', `/products/${product.id}`)).data;
    const variants = current.variants.map((v: { id: number; sku: string; price: string; quantity: number }) => ({ ...v, price: '23.00' }));
    await send(server, user, 'PATCH', `/products/${product.id}`, { variants });
    changedAt.set(product.sku, Date.now());
  }
  const repriced = (listing: ShopListing) => listing.skus.length > 0 && listing.skus.every((sku) => sku.price === '23.00');
  await until(600_000, async () => (held = await shop(server)).filter(repriced).length === count, 'the price change');
  const latencies = held.map((listing) => Date.parse(listing.updated_at) - changedAt.get(listing.skus[0]!.sku)!);
  latencies.sort((a, b) => a - b);
  return {
    listings: count,
    callsPerSecond: ETSY_CALLS_PER_SECOND,
    publishSeconds,
    callsPerListing,
    floorSeconds,
    ofFloor: floorSeconds / publishSeconds,
    priceMedianMs: percentile(latencies, 50),
    priceP99Ms: percentile(latencies, 99),
    priceMaxMs: latencies.at(-1)!,
  };
}
