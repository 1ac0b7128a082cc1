/**
 * (h) Listings on each platform's sandbox with its rate limit on: a publish of N products (1,000 in the full bench),
 * timed from the first POST to the platform holding them all, against the floor the limit sets (the calls the publish
 * made ÷ the calls the limit allows a second: Etsy's budget is one for every call, TikTok Shop's and Amazon's are per
 * API, so their floor is their busiest API's); then the price of every product changed at once, and the time from each change to the
 * platform holding the new price, median and p99.
 */
import { GRADUATED_UPLOADS_PER_DAY } from '../src/sandbox/context.js';
import { connectOnce } from './connect-flow.js';
import { type ServerProcess, sandboxOf } from './server-process.js';
import type { BenchUser } from './storelink-api.js';

/** Etsy's per-second limit the bench runs under: the newer documentation's example header (listings.md §1.10). */
export const ETSY_CALLS_PER_SECOND = 150;
/** TikTok Shop's default: 50 requests a second per API, per app and shop (listings.md §2.8); the sandbox's own default. */
export const TIKTOK_CALLS_PER_SECOND = 50;
const GIF_1X1 = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
/** A PNG's signature and IHDR of 640 x 480: TikTok Shop takes main images of 300 px and more. */
export const PNG_640X480 = Buffer.concat([
  Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'),
  Buffer.from([0, 0, 2, 128, 0, 0, 1, 224, 8, 2, 0, 0, 0]),
]);
/**
 * How often the platform is looked at. Each look serialises every listing of the shop inside the server under test, so
 * it is rare: the times are the platform's own (`created_at`, `updated_at`: when it took the change), not the bench's.
 */
export const POLL_MS = 500;
const PUBLISH_CLIENTS = 8;

export type BenchPlatform = 'etsy' | 'tiktok-shop' | 'amazon-seller';

/**
 * The least time `calls` take under a budget of `perSecond` a clock second, as Etsy's and TikTok Shop's sandboxes
 * count it (a fixed window: the budget is whole again at each new second): the first window's calls may come at its very
 * end, so n calls need ceil(n / perSecond) − 1 seconds, not n / perSecond. A short run's 100 calls at 50 a second fit in
 * an instant across two windows; counted as two seconds, its floor came out above the time taken.
 */
export const windowFloorSeconds = (calls: number, perSecond: number) => Math.max(0, Math.ceil(calls / perSecond) - 1);

/** Amazon's default usage plans of the calls a publish and a price change make (listings.md §3.11): rate a second, burst. */
export const AMAZON_PLANS: Readonly<Record<string, readonly [number, number]>> = {
  putListingsItem: [5, 10],
  patchListingsItem: [5, 5],
  getListingsItem: [5, 10],
  getDefinitionsProductType: [5, 10],
  searchDefinitionsProductTypes: [5, 10],
};

export interface ListingsResult {
  readonly platform: BenchPlatform;
  readonly listings: number;
  /** The limit the publish ran under, in words. */
  readonly limit: string;
  readonly publishSeconds: number;
  /** From the first POST to the last one answered (202): the part of the publish Storelink's API takes. */
  readonly postSeconds: number;
  /** Listing-API calls the publish made, per listing. */
  readonly callsPerListing: number;
  /** The calls the limit counts ÷ the calls it allows a second: no publish under the limit can be faster. */
  readonly floorSeconds: number;
  /** floorSeconds ÷ publishSeconds: 1 is the limit reached. */
  readonly ofFloor: number;
  /** The platform calls the price change made, by operation (Amazon's bulk feed: createFeed and its kin). */
  readonly priceCalls: Record<string, number>;
  /** From each price change's answer to the platform holding the new price, milliseconds. */
  readonly priceMedianMs: number;
  readonly priceP99Ms: number;
  readonly priceMaxMs: number;
}

interface Held {
  skus: { sku: string; price: string }[];
  state: string;
  created_at?: string;
  /** When the platform last took a change of the listing: its activation, or the new price. */
  updated_at: string;
}

/** What differs from one platform to the next in the bench. */
interface Platform {
  readonly name: string;
  readonly platformId: 1 | 4 | 5;
  readonly account: number;
  readonly limit: string;
  /** What the seller picks on the sandbox's consent page besides the account (TikTok Shop: the market it sells in). */
  readonly choices: Record<string, string>;
  prepare(server: ServerProcess): Promise<void>;
  settings(options: Record<string, { value: string }[]>): Record<string, unknown>;
  readonly currency: string;
  readonly image: { bytes: Buffer; type: string; name: string };
  readonly publish: { category_id: string; attributes: Record<string, unknown> };
  /** What the product needs besides (Amazon: a brand, and a barcode for each variant). */
  extra(i: number): { brand?: string; barcode?: string };
  /** When the listing counts as published: the moment its platform says so (Etsy's activation, TikTok's creation). */
  published(listing: Held): number | null;
  /** The floor of a publish that made `calls` (per operation) for `count` listings. */
  floorSeconds(calls: Record<string, number>, count: number): number;
}

const PLATFORMS: Record<BenchPlatform, Platform> = {
  etsy: {
    name: 'Etsy',
    platformId: 1,
    account: 424_242,
    choices: {},
    limit: `${ETSY_CALLS_PER_SECOND} calls/s`,
    async prepare(server) {
      const limits = await fetch(`${sandboxOf(server)}/limits`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ per_second: ETSY_CALLS_PER_SECOND, per_day: 10_000_000 }),
      });
      if (limits.status !== 204) throw new Error(`POST /sandbox/limits answered ${limits.status}`);
    },
    settings: (options) => ({
      shipping_profile_id: options.shipping_profile_id![0]!.value,
      return_policy_id: options.return_policy_id![0]!.value,
      readiness_state_id: options.readiness_state_id![0]!.value,
      who_made: 'i_did',
      when_made: 'made_to_order',
      // The orders bench sells its pound mugs on this dollar shop too (DESIGN §15: a rate, or a 422).
      exchange_rates: { GBP: '1.27' },
    }),
    currency: 'USD',
    image: { bytes: GIF_1X1, type: 'image/gif', name: 'tote.gif' },
    publish: { category_id: '1011', attributes: { 200: '1' } },
    extra: () => ({}),
    published: (listing) => (listing.state === 'active' ? Date.parse(listing.updated_at) : null),
    floorSeconds: (calls) =>
      windowFloorSeconds(
        Object.values(calls).reduce((sum, n) => sum + n, 0),
        ETSY_CALLS_PER_SECOND,
      ),
  },
  'tiktok-shop': {
    name: 'TikTok Shop',
    platformId: 4,
    account: 424_243,
    // The sandbox's seller is in the US unless the consent page says otherwise: this bench sells in pounds.
    choices: { market: 'GB' },
    limit: `${TIKTOK_CALLS_PER_SECOND} calls/s per API`,
    // The sandbox's rate limit is TikTok's own. Its shops are new ones, on probation at 100 new products a day: the
    // bench publishes 1,000 to a shop (and (i) over 100), as a shop out of probation may (listings.md §2.2).
    async prepare(server) {
      const limits = await fetch(`${sandboxOf(server)}/tiktok-shop/limits`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ uploads_per_day: GRADUATED_UPLOADS_PER_DAY }),
      });
      if (limits.status !== 204) throw new Error(`POST /sandbox/tiktok-shop/limits answered ${limits.status}`);
    },
    settings: (options) => ({ warehouse_id: options.warehouse_id![0]!.value }),
    // The shop of a UK seller (choices) sells in pounds.
    currency: 'GBP',
    image: { bytes: PNG_640X480, type: 'image/png', name: 'tote.png' },
    publish: { category_id: '602011', attributes: {} },
    extra: () => ({}),
    published: (listing) => (listing.created_at ? Date.parse(listing.created_at) : null),
    floorSeconds: (calls) => windowFloorSeconds(Math.max(...Object.values(calls)), TIKTOK_CALLS_PER_SECOND),
  },
  'amazon-seller': {
    name: 'Amazon',
    platformId: 5,
    account: 424_244,
    choices: {},
    limit: 'each operation at 5/s (burst 5 to 10)',
    // The sandbox's usage plans are Amazon's defaults.
    prepare: async () => undefined,
    settings: (options) => ({ marketplace_id: options.marketplace_id![0]!.value, exchange_rates: { GBP: '1.27' } }),
    currency: 'USD',
    image: { bytes: GIF_1X1, type: 'image/gif', name: 'tote.gif' },
    publish: { category_id: 'HOME', attributes: {} },
    // A UPC each (12 digits), since Amazon identifies a new product by its barcode.
    extra: (i) => ({ brand: 'Bench', barcode: String(100_000_000_000 + i) }),
    published: (listing) => (listing.created_at ? Date.parse(listing.created_at) : null),
    // Each operation has a bucket of its own: the busiest one (past its burst, at its rate) sets the floor.
    floorSeconds: (calls) =>
      Math.max(
        ...Object.entries(calls).map(([key, n]) => {
          const [rate, burst] = AMAZON_PLANS[key.slice('amazon-seller:'.length)] ?? [Number.POSITIVE_INFINITY, 0];
          return Math.max(0, n - burst) / rate;
        }),
      ),
  },
};

export async function send(server: ServerProcess, user: BenchUser, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${server.url}/api/v1${path}`, {
    method,
    headers: { ...user.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = (await response.json()) as any;
  if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status} ${JSON.stringify(answer).slice(0, 300)}`);
  return answer;
}

/** The platform's listing-API calls the sandbox counted so far, by operation (the connect flow's and its 429s left out). */
async function listingCalls(server: ServerProcess, platform: BenchPlatform): Promise<Record<string, number>> {
  const calls = (await (await fetch(`${sandboxOf(server)}/calls`)).json()) as Record<string, number>;
  const connect = new Set(['authorize', 'consent', 'token', 'identity', 'shop', 'shops', 'token_get', 'token_refresh', 'throttled']);
  return Object.fromEntries(
    Object.entries(calls).filter(([key]) => key.startsWith(`${platform}:`) && !connect.has(key.slice(platform.length + 1))),
  );
}

export const since = (after: Record<string, number>, before: Record<string, number>) =>
  Object.fromEntries(Object.entries(after).map(([key, n]) => [key, n - (before[key] ?? 0)]));

export const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

export async function until(limitMs: number, check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${limitMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * Connects the platform's sandbox `account` (the listings bench's own unless said) to the user's workspace, with the
 * platform's rate limit as the bench runs it and the site's listing settings (`request`: the authorization request's
 * further fields, such as Amazon's `region`); answers the site's id.
 */
export async function connectPlatform(
  server: ServerProcess,
  user: BenchUser,
  key: BenchPlatform,
  account = PLATFORMS[key].account,
  request: Record<string, unknown> = {},
): Promise<number> {
  const platform = PLATFORMS[key];
  await platform.prepare(server);
  const site = await connectOnce(server.url, user, account, platform.platformId, platform.choices, request);
  const options = (await send(server, user, 'GET', `/sites/${site}/listing-options`)).data;
  await send(server, user, 'PUT', `/sites/${site}/listing-settings`, platform.settings(options));
  return site;
}

/** What a publish to the platform sends besides the product: its category and attributes. */
export const publishOf = (key: BenchPlatform) => PLATFORMS[key].publish;

export async function benchListings(server: ServerProcess, user: BenchUser, count: number, key: BenchPlatform): Promise<ListingsResult> {
  const platform = PLATFORMS[key];
  const site = await connectPlatform(server, user, key);
  const held = async (): Promise<Held[]> =>
    (await fetch(`${sandboxOf(server)}/${key}/accounts/${platform.account}/listings`)).json() as Promise<Held[]>;
  const products: { id: number; sku: string }[] = [];
  for (let i = 0; i < count; i++) {
    const sku = `BENCH-${key}-${i}`;
    const { brand, barcode } = platform.extra(i);
    const body = {
      title: `Bench tote ${i}`,
      description: 'Heavy canvas, long handles.',
      ...(brand ? { brand } : {}),
      currency: platform.currency,
      variants: [{ sku, price: '20.00', quantity: 5, ...(barcode ? { barcode } : {}) }],
      package: { weight_grams: 200, length_mm: 300, width_mm: 250, height_mm: 20 },
    };
    const id = (await send(server, user, 'POST', '/products', body)).data.id as number;
    const form = new FormData();
    form.set('file', new Blob([platform.image.bytes], { type: platform.image.type }), platform.image.name);
    const uploaded = await fetch(`${server.url}/api/v1/products/${id}/images`, { method: 'POST', headers: user.headers, body: form });
    if (uploaded.status !== 201) throw new Error(`the image upload answered ${uploaded.status}`);
    products.push({ id, sku });
  }

  const callsBefore = await listingCalls(server, key);
  // Wall-clock milliseconds, as the platform's times are (the server runs on this machine's clock).
  const started = Date.now();
  // Eight clients publish at once, as a seller's script or a bulk publish from the dashboard would.
  let next = 0;
  const client = async () => {
    while (next < products.length) {
      const product = products[next++]!;
      await send(server, user, 'POST', `/sites/${site}/listings`, { product_id: product.id, ...platform.publish });
    }
  };
  await Promise.all(Array.from({ length: PUBLISH_CLIENTS }, client));
  const postSeconds = (Date.now() - started) / 1000;
  let listed: Held[] = [];
  await until(600_000, async () => (listed = await held()).filter((l) => platform.published(l) !== null).length === count, 'the publish');
  const publishSeconds = (Math.max(...listed.map((l) => platform.published(l)!)) - started) / 1000;
  const calls = since(await listingCalls(server, key), callsBefore);
  const callsPerListing = Object.values(calls).reduce((sum, n) => sum + n, 0) / count;
  const floorSeconds = platform.floorSeconds(calls, count);

  // TikTok changes the price of a live product only: its review (SANDBOX_REVIEW_SECONDS) passes first.
  await until(600_000, async () => (listed = await held()).filter((l) => l.state === 'active').length === count, 'going live');
  // And Storelink has seen them live: a listing it still holds in review (Amazon's is read back every minute) is changed
  // by its own PATCH, never put in a bulk feed (src/core/listings/offer-feeds.ts), so repricing before would not
  // measure the burst a seller makes on live listings.
  const activeInStorelink = async () =>
    (await send(server, user, 'GET', `/sites/${site}/listings?status=active&per_page=1`)).meta.total as number;
  await until(600_000, async () => (await activeInStorelink()) === count, 'Storelink seeing the listings live');
  // Every price at once, as a CSV import of new prices would; each change timed from its own answer to the platform's
  // taking it (the listing's last change: the new price is the only one the change makes).
  // Twenty changes in flight at once, as a seller's tool or an import sends them: the machine's speed does not pace
  // them under the platform's own rate (one by one on a loaded machine, they arrived slower than Amazon's 5 PATCHes a
  // second, and never made a burst).
  const changedAt = new Map<string, number>();
  const changeCallsBefore = await listingCalls(server, key);
  const queue = [...products];
  const changeOne = async () => {
    for (let product = queue.shift(); product; product = queue.shift()) {
      const current = (await send(server, user, 'GET', `/products/${product.id}`)).data;
      const variants = current.variants.map((v: { id: number; sku: string; price: string; quantity: number }) => ({
        ...v,
        price: '23.00',
      }));
      await send(server, user, 'PATCH', `/products/${product.id}`, { variants });
      changedAt.set(product.sku, Date.now());
    }
  };
  await Promise.all(Array.from({ length: 20 }, changeOne));
  const repriced = (listing: Held) => listing.skus.length > 0 && listing.skus.every((sku) => sku.price === '23.00');
  await until(600_000, async () => (listed = await held()).filter(repriced).length === count, 'the price change');
  const changeCalls = since(await listingCalls(server, key), changeCallsBefore);
  const latencies = listed.map((listing) => Date.parse(listing.updated_at) - changedAt.get(listing.skus[0]!.sku)!);
  latencies.sort((a, b) => a - b);
  return {
    platform: key,
    listings: count,
    limit: platform.limit,
    publishSeconds,
    postSeconds,
    callsPerListing,
    floorSeconds,
    ofFloor: floorSeconds / publishSeconds,
    priceCalls: Object.fromEntries(Object.entries(changeCalls).filter(([, n]) => n > 0)),
    priceMedianMs: percentile(latencies, 50),
    priceP99Ms: percentile(latencies, 99),
    priceMaxMs: latencies.at(-1)!,
  };
}

export const platformName = (key: BenchPlatform) => PLATFORMS[key].name;
