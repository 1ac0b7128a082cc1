/**
 * (i) Orders and the oversell window, on the three sandboxes at once (Etsy, TikTok Shop and Amazon, each under its rate
 * limit as (h) runs them), every product published to all three:
 * - the oversell window: a buyer's sale on one platform, timed from the bench's order to each other platform's own
 *   `updated_at` for the listing once it holds the new pool quantity, per pair (seller → other). Each platform
 *   notifies: Etsy and TikTok Shop by webhook, Amazon by an ORDER_CHANGE on the sandbox's SQS queue.
 * - a burst of orders (1,000 in the full bench) placed by eight buyers at once across the three sandboxes: each counted
 *   once (one record per order, each line's stock taken once, each pool at start − sold), the platforms' calls counted
 *   against their limits (and their 429s, which none should be), the time to count them all against the floor (the
 *   larger of what those limits set for the reads made and the buyers' own placing: no reader counts an order before
 *   it is placed), and the listings' catching up after it.
 * The three platforms sell in pounds (TikTok Shop's sandbox shop is in the UK, Amazon is connected in its EU region and
 * sells on Amazon.co.uk), so one product is listed on all three.
 */
import {
  AMAZON_PLANS,
  type BenchPlatform,
  connectPlatform,
  ETSY_CALLS_PER_SECOND,
  PNG_640X480,
  percentile,
  platformName,
  publishOf,
  send,
  since,
  TIKTOK_CALLS_PER_SECOND,
  until,
  windowFloorSeconds,
} from './listings.js';
import { type ServerProcess, sandboxOf } from './server-process.js';
import type { BenchUser } from './storelink-api.js';

/**
 * The sandbox accounts of (i), apart from (h)'s: where each sells and is looked at (Amazon's buyer and inspection are
 * served at its track's own base for every region).
 */
const SHOPS: Record<BenchPlatform, { account: number; sandbox: string; request: Record<string, unknown> }> = {
  etsy: { account: 424_252, sandbox: '/etsy', request: {} },
  'tiktok-shop': { account: 424_253, sandbox: '/tiktok-shop', request: {} },
  'amazon-seller': { account: 424_254, sandbox: '/amazon-seller', request: { region: 'EU' } },
};
const ALL: readonly BenchPlatform[] = ['etsy', 'tiktok-shop', 'amazon-seller'];
/** Amazon's Orders API v2026-01-01 usage plans (orders.md §3): rate a second, burst. */
const AMAZON_ORDER_PLANS: Readonly<Record<string, readonly [number, number]>> = {
  searchOrders: [0.0056, 20],
  getOrder: [0.5, 30],
};
/** Units each product of the oversell window starts with; a sample sells one. */
const WINDOW_UNITS = 10;
/** Units each product of the burst starts with: more than the burst sells of it, so no sale is refused or oversold. */
const BURST_UNITS = 200;
const BUYERS = 8;

export interface OrdersSizes {
  /** Samples of the window from each seller. */
  readonly windowSamples: number;
  readonly burstOrders: number;
  readonly burstProducts: number;
  /** The listings count as caught up once no platform has changed one for this long. */
  readonly quietSeconds: number;
}

export const ORDERS_SIZES: Readonly<Record<'full' | 'short', OrdersSizes>> = {
  full: { windowSamples: 30, burstOrders: 1_000, burstProducts: 100, quietSeconds: 15 },
  short: { windowSamples: 2, burstOrders: 100, burstProducts: 10, quietSeconds: 3 },
};

export interface WindowPair {
  readonly seller: BenchPlatform;
  readonly other: BenchPlatform;
  readonly samples: number;
  /** From the sale to the other platform holding the new quantity, milliseconds. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** From the sale to Storelink recording the order (its `created_at`), median and max, milliseconds. */
  readonly seenP50Ms: number;
  readonly seenMaxMs: number;
}

export interface BurstPlatform {
  readonly platform: BenchPlatform;
  readonly orders: number;
  readonly units: number;
  /** From the burst's first sale to Storelink recording the last of this platform's orders, seconds. */
  readonly countedSeconds: number;
  /** The order reads made of the platform by then, by operation, and the floor its limit sets for them, seconds. */
  readonly readCalls: Readonly<Record<string, number>>;
  readonly floorSeconds: number;
  /** The platform's 429 answers during the burst. */
  readonly throttled: number;
  /** Which routes answered them (`GET /orders/2026-01-01/orders/:orderId 1`). */
  readonly throttledRoutes: string[];
  /**
   * Each order's time from its sale's answer to Storelink recording it, seconds: the median and the most, of all its
   * orders and of those placed in the burst's last quarter (a lag that grows through the burst is a backlog).
   */
  readonly lag: { readonly p50: number; readonly max: number; readonly lastQuarterP50: number };
}

export interface BurstResult {
  readonly orders: number;
  readonly products: number;
  /** From the first sale to the last sale's answer: the buyers' own pace, seconds. */
  readonly placingSeconds: number;
  readonly platforms: readonly BurstPlatform[];
  /** From the first sale to the last order recorded. */
  readonly countedSeconds: number;
  /** The floor the platforms' limits set for the reads made: the busiest platform's. */
  readonly limitsFloorSeconds: number;
  /**
   * The floor: no reader counts an order before it is placed, nor reads faster than the limits allow, so the larger of
   * the placing (the last sale's answer) and the limits' floor.
   */
  readonly floorSeconds: number;
  readonly ofFloor: number;
  /**
   * The server process's CPU time (all its threads) from the first sale to the last order recorded, over that time: 1
   * is one CPU busy throughout. Storelink's alone, or with the simulated platforms' where they run in its process.
   */
  readonly serverCpuShare: number;
  /** Whether the simulated platforms ran in Storelink's own process (`--platforms-in-process`), not a server of their own. */
  readonly platformsInProcess: boolean;
  /** The same share for the simulated platforms' own server, where they ran in one; else null. */
  readonly platformsCpuShare: number | null;
  /** Each order recorded once, each line's stock taken once, each pool at start − sold: what was found wrong. */
  readonly duplicates: number;
  readonly missing: number;
  readonly wrongLines: number;
  readonly wrongPools: number;
  /** Listings of the burst's products after it: the last change a platform took, seconds from the first sale. */
  readonly listingsSettledSeconds: number;
  /**
   * Listings not holding their product's pool once the platforms stopped changing a while, per platform: how many, and
   * the units they offer beyond the pool (below it: negative).
   */
  readonly listingsOff: Readonly<Record<string, { listings: number; unitsOver: number }>>;
  /** Every call made to the platforms from the first sale to the last change, by operation (reads and writes). */
  readonly calls: Readonly<Record<string, number>>;
  /** The floor the limits set for those calls: the busiest platform's. */
  readonly listingsFloorSeconds: number;
}

export interface OrdersResult {
  readonly windows: readonly WindowPair[];
  readonly burst: BurstResult;
}

interface Held {
  skus: { sku: string; quantity: number }[];
  state: string;
  updated_at: string;
}

/** What a platform holds of each sku: its listing's state, quantity and last change (the platform's time). */
async function heldOf(server: ServerProcess, key: BenchPlatform): Promise<Map<string, { state: string; quantity: number; at: number }>> {
  const answer = await fetch(`${sandboxOf(server)}${SHOPS[key].sandbox}/accounts/${SHOPS[key].account}/listings`);
  const listings = (await answer.json()) as Held[];
  if (!Array.isArray(listings)) throw new Error(`${platformName(key)}'s listings answered ${answer.status} ${JSON.stringify(listings)}`);
  const held = new Map<string, { state: string; quantity: number; at: number }>();
  for (const listing of listings)
    for (const sku of listing.skus) held.set(sku.sku, { state: listing.state, quantity: sku.quantity, at: Date.parse(listing.updated_at) });
  return held;
}

async function callsNow(server: ServerProcess): Promise<Record<string, number>> {
  return (await (await fetch(`${sandboxOf(server)}/calls`)).json()) as Record<string, number>;
}

/** A buyer's order on the platform's sandbox; answers its id. */
async function sell(server: ServerProcess, key: BenchPlatform, lines: { sku: string; quantity: number }[]): Promise<string> {
  const answer = await fetch(`${sandboxOf(server)}${SHOPS[key].sandbox}/accounts/${SHOPS[key].account}/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ lines }),
  });
  const body = (await answer.json()) as { id?: string; error?: string };
  if (answer.status !== 201) throw new Error(`a sale on ${platformName(key)} answered ${answer.status} ${JSON.stringify(body)}`);
  return body.id!;
}

/** The setting of (i): three sites, and products published to all three. */
interface World {
  readonly server: ServerProcess;
  readonly user: BenchUser;
  readonly sites: Record<BenchPlatform, number>;
  /** Product ids by sku. */
  readonly products: Map<string, number>;
}

async function openWorld(server: ServerProcess, user: BenchUser, skus: { sku: string; units: number }[]): Promise<World> {
  const sites = {} as Record<BenchPlatform, number>;
  for (const key of ALL) sites[key] = await connectPlatform(server, user, key, SHOPS[key].account, SHOPS[key].request);
  const products = new Map<string, number>();
  for (const [i, { sku, units }] of skus.entries()) {
    const body = {
      title: `Bench mug ${i}`,
      description: 'Stoneware, holds 350 ml.',
      brand: 'Bench',
      currency: 'GBP',
      variants: [{ sku, price: '20.00', quantity: units, barcode: String(200_000_000_000 + i) }],
      package: { weight_grams: 400, length_mm: 120, width_mm: 100, height_mm: 100 },
    };
    const id = (await send(server, user, 'POST', '/products', body)).data.id as number;
    const form = new FormData();
    form.set('file', new Blob([PNG_640X480], { type: 'image/png' }), 'mug.png');
    const uploaded = await fetch(`${server.url}/api/v1/products/${id}/images`, { method: 'POST', headers: user.headers, body: form });
    if (uploaded.status !== 201) throw new Error(`the image upload answered ${uploaded.status}`);
    products.set(sku, id);
  }
  const publishes = [...products.values()].flatMap((id) => ALL.map((key) => ({ id, key })));
  let next = 0;
  const client = async () => {
    while (next < publishes.length) {
      const { id, key } = publishes[next++]!;
      await send(server, user, 'POST', `/sites/${sites[key]}/listings`, { product_id: id, ...publishOf(key) });
    }
  };
  await Promise.all(Array.from({ length: BUYERS }, client));
  for (const key of ALL) {
    await until(
      600_000,
      async () => {
        const held = await heldOf(server, key);
        return skus.every(({ sku, units }) => held.get(sku)?.state === 'active' && held.get(sku)?.quantity === units);
      },
      `every product live on ${platformName(key)} with its units`,
    );
  }
  return { server, user, sites, products };
}

interface Sample {
  seller: BenchPlatform;
  other: BenchPlatform;
  ms: number;
  seenMs: number;
}

/**
 * One sale of a unit of `sku` on `seller` and the other platforms' catching up: from the moment the bench asked for the
 * sale to each other platform's own time of taking the new quantity, and to Storelink's recording of the order.
 */
async function window(world: World, seller: BenchPlatform, sku: string, limitMs: number): Promise<Sample[]> {
  const { server, user } = world;
  const soldAt = Date.now();
  const id = await sell(server, seller, [{ sku, quantity: 1 }]);
  const times = new Map<BenchPlatform, number>();
  const others = ALL.filter((key) => key !== seller);
  await until(
    limitMs,
    async () => {
      for (const key of others.filter((k) => !times.has(k))) {
        const held = (await heldOf(server, key)).get(sku);
        if (held?.quantity === WINDOW_UNITS - 1) times.set(key, held.at - soldAt);
      }
      return times.size === others.length;
    },
    `a sale of ${sku} on ${platformName(seller)} reaching ${others.map(platformName).join(' and ')}`,
  ).catch(async (error) => {
    throw new Error(`${(error as Error).message} (order ${id})`);
  });
  const recorded = (await send(server, user, 'GET', `/orders?site_id=${world.sites[seller]}&sku=${encodeURIComponent(sku)}`)).data;
  const seenMs = recorded.length === 1 ? Date.parse(recorded[0].created_at) - soldAt : Number.NaN;
  return others.map((other) => ({ seller, other, ms: times.get(other)!, seenMs }));
}

async function windows(world: World, sellers: readonly BenchPlatform[], sizes: OrdersSizes, skusOf: (key: string) => string[]) {
  const samples: Sample[] = [];
  for (let i = 0; i < sizes.windowSamples; i++) {
    for (const seller of sellers) samples.push(...(await window(world, seller, skusOf(seller)[i]!, 30_000)));
  }
  const pairs: WindowPair[] = [];
  for (const seller of ALL) {
    for (const other of ALL) {
      const of = samples.filter((s) => s.seller === seller && s.other === other);
      if (of.length === 0) continue;
      const ms = of.map((s) => s.ms).sort((a, b) => a - b);
      const seen = of.map((s) => s.seenMs).sort((a, b) => a - b);
      pairs.push({
        seller,
        other,
        samples: of.length,
        p50Ms: percentile(ms, 50),
        p99Ms: percentile(ms, 99),
        maxMs: ms.at(-1)!,
        seenP50Ms: percentile(seen, 50),
        seenMaxMs: seen.at(-1)!,
      });
    }
  }
  return pairs;
}

/** The floor a platform's limit sets for calls made to it (by operation): no client within the limit is faster. */
function floorOf(key: BenchPlatform, calls: Record<string, number>): number {
  const per = Object.entries(calls).map(([operation, n]) => [operation.slice(key.length + 1), n] as const);
  if (key === 'etsy')
    return windowFloorSeconds(
      per.reduce((sum, [, n]) => sum + n, 0),
      ETSY_CALLS_PER_SECOND,
    );
  if (key === 'tiktok-shop') return windowFloorSeconds(Math.max(0, ...per.map(([, n]) => n)), TIKTOK_CALLS_PER_SECOND);
  return Math.max(
    0,
    ...per.map(([operation, n]) => {
      const [rate, burst] = AMAZON_ORDER_PLANS[operation] ?? AMAZON_PLANS[operation] ?? [Number.POSITIVE_INFINITY, 0];
      return Math.max(0, n - burst) / rate;
    }),
  );
}

/** The median and the most of the lags, and the median of the burst's last quarter's. */
function lagOf(lags: readonly { seconds: number; late: boolean }[]): BurstPlatform['lag'] {
  const sorted = (values: number[]) => values.sort((a, b) => a - b);
  const all = sorted(lags.map((l) => l.seconds));
  const late = sorted(lags.filter((l) => l.late).map((l) => l.seconds));
  const at = (values: number[], p: number) => (values.length === 0 ? Number.NaN : percentile(values, p));
  return { p50: at(all, 50), max: at(all, 100), lastQuarterP50: at(late, 50) };
}

/** The operations that read orders, on the three platforms. */
const ORDER_READS = new Set(['getShopReceipts', 'getShopReceipt', 'search_orders', 'get_order_detail', 'searchOrders', 'getOrder']);
const NOT_CALLS = new Set(['authorize', 'consent', 'token', 'identity', 'shop', 'shops', 'token_get', 'token_refresh', 'throttled']);
/** The sandbox counts each 429 by its route too, as `throttled <method> <route>`: a refusal, not a call. */
const THROTTLED_ROUTE = 'throttled ';
const platformCalls = (key: BenchPlatform, calls: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(calls).filter(([k, n]) => {
      const name = k.slice(key.length + 1);
      return k.startsWith(`${key}:`) && !NOT_CALLS.has(name) && !name.startsWith(THROTTLED_ROUTE) && n > 0;
    }),
  );
/** The routes that answered the platform's 429s, each with its count. */
const throttledRoutes = (key: BenchPlatform, calls: Record<string, number>) =>
  Object.entries(calls)
    .filter(([k, n]) => k.startsWith(`${key}:${THROTTLED_ROUTE}`) && n > 0)
    .map(([k, n]) => `${k.slice(key.length + 1 + THROTTLED_ROUTE.length)} ${n}`);

/** Every order of a site recorded since `from` (on `placed_at`, which platforms give in whole seconds). */
async function ordersOf(world: World, key: BenchPlatform, from: number): Promise<any[]> {
  const all: any[] = [];
  const sinceIso = new Date(Math.floor(from / 1000) * 1000 - 1000).toISOString();
  for (let page = 1; ; page++) {
    const answer = await send(
      world.server,
      world.user,
      'GET',
      `/orders?site_id=${world.sites[key]}&since=${encodeURIComponent(sinceIso)}&per_page=100&page=${page}`,
    );
    all.push(...answer.data);
    if (answer.data.length < 100) return all;
  }
}

async function burst(world: World, sellers: readonly BenchPlatform[], sizes: OrdersSizes, skus: readonly string[]): Promise<BurstResult> {
  const { server, user } = world;
  const count = sizes.burstOrders;
  // Each order sells one unit of one product; every fourth two of another besides: 1,500 units for 1,000 orders.
  const orders = Array.from({ length: count }, (_, i) => ({
    seller: sellers[i % sellers.length]!,
    lines: [{ sku: skus[i % skus.length]!, quantity: 1 }, ...(i % 4 === 3 ? [{ sku: skus[(i * 3 + 1) % skus.length]!, quantity: 2 }] : [])],
  }));
  const sold = new Map<string, number>();
  for (const order of orders) for (const line of order.lines) sold.set(line.sku, (sold.get(line.sku) ?? 0) + line.quantity);
  const totals = async () =>
    Object.fromEntries(
      await Promise.all(
        sellers.map(async (key) => [key, (await send(server, user, 'GET', `/orders?site_id=${world.sites[key]}&per_page=1`)).meta.total]),
      ),
    ) as Record<string, number>;
  const before = await totals();
  const callsBefore = await callsNow(server);
  const placed = new Map<string, { seller: BenchPlatform; units: number; at: number; index: number }>();
  const cpuBefore = server.cpuMicros();
  const platformsCpu = server.platforms?.cpuMicros() ?? null;
  const started = Date.now();
  let next = 0;
  const buyer = async () => {
    while (next < orders.length) {
      const index = next++;
      const order = orders[index]!;
      const id = await sell(server, order.seller, order.lines);
      const units = order.lines.reduce((sum, l) => sum + l.quantity, 0);
      placed.set(`${order.seller}:${id}`, { seller: order.seller, units, at: Date.now(), index });
    }
  };
  await Promise.all(Array.from({ length: BUYERS }, buyer));
  const placingSeconds = (Date.now() - started) / 1000;
  const expected = Object.fromEntries(sellers.map((key) => [key, before[key]! + orders.filter((o) => o.seller === key).length]));
  let counted: Record<string, number> = {};
  await until(
    600_000,
    async () => {
      counted = await totals();
      return sellers.every((key) => counted[key]! >= expected[key]!);
    },
    `the burst's orders counted (${JSON.stringify(counted)} of ${JSON.stringify(expected)})`,
  );
  const callsCounted = since(await callsNow(server), callsBefore);
  console.log(
    `i ${count} orders placed in ${placingSeconds.toFixed(1)} s, all counted ${((Date.now() - started) / 1000).toFixed(1)} s after the first`,
  );
  const countedMs = Date.now() - started;
  const cpuShare = (server.cpuMicros() - cpuBefore) / 1000 / countedMs;

  // Exactly once: each order of the burst recorded once, its lines holding its units, each taken in whole.
  let duplicates = 0;
  let wrongLines = 0;
  const found = new Set<string>();
  const countedAt: Record<string, number> = {};
  const lags: Record<string, { seconds: number; late: boolean }[]> = {};
  for (const key of sellers) {
    for (const order of await ordersOf(world, key, started)) {
      const mine = placed.get(`${key}:${order.external_id}`);
      if (!mine) continue;
      if (found.has(`${key}:${order.external_id}`)) duplicates++;
      found.add(`${key}:${order.external_id}`);
      countedAt[key] = Math.max(countedAt[key] ?? 0, Date.parse(order.created_at));
      (lags[key] ??= []).push({ seconds: (Date.parse(order.created_at) - mine.at) / 1000, late: mine.index >= (count * 3) / 4 });
      const lines = order.lines as { quantity: number; stock_taken: number; stock_returned: number; issues: unknown[] }[];
      const units = lines.reduce((sum, l) => sum + l.quantity, 0);
      const ok =
        units === mine.units && lines.every((l) => l.stock_taken === l.quantity && l.stock_returned === 0 && l.issues.length === 0);
      if (!ok || order.history) wrongLines++;
    }
  }
  const missing = placed.size - found.size;
  let wrongPools = 0;
  for (const sku of skus) {
    const product = (await send(server, user, 'GET', `/products/${world.products.get(sku)}`)).data;
    if (product.variants[0].quantity !== BURST_UNITS - (sold.get(sku) ?? 0)) wrongPools++;
  }

  // The listings catch up: every listing of the burst's products, looked at until no platform has changed one a while.
  const pool = (sku: string) => BURST_UNITS - (sold.get(sku) ?? 0);
  let lastChange = 0;
  let quietSince = Date.now();
  let off: Record<string, { listings: number; unitsOver: number }> = {};
  await until(
    900_000,
    async () => {
      let latest = 0;
      off = {};
      for (const key of ALL) {
        const held = await heldOf(server, key);
        for (const sku of skus) {
          const listing = held.get(sku);
          latest = Math.max(latest, listing?.at ?? 0);
          if (listing?.quantity === pool(sku)) continue;
          const platform = (off[platformName(key)] ??= { listings: 0, unitsOver: 0 });
          platform.listings++;
          platform.unitsOver += (listing?.quantity ?? 0) - pool(sku);
        }
      }
      if (latest > lastChange) [lastChange, quietSince] = [latest, Date.now()];
      return Object.keys(off).length === 0 || Date.now() - quietSince > sizes.quietSeconds * 1000;
    },
    'the listings catching up',
  );
  const callsAfter = since(await callsNow(server), callsBefore);

  const platforms = sellers.map((key): BurstPlatform => {
    const reads = Object.fromEntries(
      Object.entries(platformCalls(key, callsCounted)).filter(([k]) => ORDER_READS.has(k.slice(key.length + 1))),
    );
    return {
      platform: key,
      orders: orders.filter((o) => o.seller === key).length,
      units: orders.filter((o) => o.seller === key).reduce((sum, o) => sum + o.lines.reduce((s, l) => s + l.quantity, 0), 0),
      countedSeconds: ((countedAt[key] ?? Number.NaN) - started) / 1000,
      readCalls: reads,
      floorSeconds: floorOf(key, reads),
      throttled: callsAfter[`${key}:throttled`] ?? 0,
      throttledRoutes: throttledRoutes(key, callsAfter),
      lag: lagOf(lags[key] ?? []),
    };
  });
  const countedSeconds = Math.max(...platforms.map((p) => p.countedSeconds));
  const limitsFloorSeconds = Math.max(...platforms.map((p) => p.floorSeconds));
  const floorSeconds = Math.max(limitsFloorSeconds, placingSeconds);
  return {
    orders: count,
    products: skus.length,
    placingSeconds,
    platforms,
    countedSeconds,
    limitsFloorSeconds,
    floorSeconds,
    ofFloor: floorSeconds / countedSeconds,
    serverCpuShare: cpuShare,
    platformsInProcess: world.server.platforms === undefined,
    platformsCpuShare: platformsCpu === null ? null : (world.server.platforms!.cpuMicros() - platformsCpu) / 1000 / countedMs,
    duplicates,
    missing,
    wrongLines,
    wrongPools,
    listingsSettledSeconds: (lastChange - started) / 1000,
    listingsOff: off,
    calls: Object.fromEntries(ALL.flatMap((key) => Object.entries(platformCalls(key, callsAfter)))),
    listingsFloorSeconds: Math.max(...ALL.map((key) => floorOf(key, platformCalls(key, callsAfter)))),
  };
}

/**
 * (i) on one Storelink whose sandbox serves the three platforms: `sellers` are the platforms that sell (all three
 * unless `--platform` names one); the other platforms' listings are the ones that follow.
 */
export async function benchOrders(
  server: ServerProcess,
  user: BenchUser,
  sizes: OrdersSizes,
  sellers: readonly BenchPlatform[] = ALL,
): Promise<OrdersResult> {
  const named = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `WIN-${prefix}-${i}`);
  const windowSkus: Record<string, string[]> = {
    etsy: sellers.includes('etsy') ? named('E', sizes.windowSamples) : [],
    'tiktok-shop': sellers.includes('tiktok-shop') ? named('T', sizes.windowSamples) : [],
    'amazon-seller': sellers.includes('amazon-seller') ? named('A', sizes.windowSamples) : [],
  };
  const burstSkus = Array.from({ length: sizes.burstProducts }, (_, i) => `BURST-${i}`);
  const settingUp = Date.now();
  const world = await openWorld(server, user, [
    ...Object.values(windowSkus)
      .flat()
      .map((sku) => ({ sku, units: WINDOW_UNITS })),
    ...burstSkus.map((sku) => ({ sku, units: BURST_UNITS })),
  ]);
  console.log(`i ${world.products.size} products live on the three platforms after ${((Date.now() - settingUp) / 1000).toFixed(0)} s`);
  const pairs = await windows(world, sellers, sizes, (key) => windowSkus[key]!);
  for (const w of pairs)
    console.log(
      `i window ${platformName(w.seller)} → ${platformName(w.other)} (${w.samples}): p50 ${(w.p50Ms / 1000).toFixed(2)} s, p99 ${(w.p99Ms / 1000).toFixed(2)} s`,
    );
  return { windows: pairs, burst: await burst(world, sellers, sizes, burstSkus) };
}
