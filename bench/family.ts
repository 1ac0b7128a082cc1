/**
 * (h) A 6-variant family (a tee in three sizes and two colours) listed on the three sandboxes, then every variant's
 * price changed at once, as a seller's price rise is: from the PATCH's answer to each platform holding all six new
 * prices, in its own currency (TikTok Shop's UK market by the site's rate). Repeated, so the figures are a median and
 * a max, not one sample.
 */
import { type BenchPlatform, connectPlatform, PNG_640X480, POLL_MS, platformName, publishOf, send, until } from './listings.js';
import { type ServerProcess, sandboxOf } from './server-process.js';
import type { BenchUser } from './storelink-api.js';

/** Sandbox accounts of this part alone, so no other part's listings are read beside it. */
const ACCOUNTS: Record<BenchPlatform, number> = { etsy: 424_252, 'tiktok-shop': 424_253, 'amazon-seller': 424_254 };
/** The pound rate TikTok Shop's UK site lists the dollar tee at: exact on whole-quarter prices. */
const GBP_RATE = 0.8;
// Amazon's SHIRT takes sizes from its list (the sandbox's schema): the tee is a family under SIZE_NAME/COLOR_NAME there.
const SIZES = ['Small', 'Medium', 'Large'];
const COLORS = ['Black', 'White'];

export interface FamilyResult {
  readonly variants: number;
  readonly changes: number;
  /** Per platform, each change's time from the PATCH's answer to the platform holding all the new prices: median and max. */
  readonly platforms: readonly { platform: BenchPlatform; medianMs: number; maxMs: number; calls: number }[];
  /** The same, to the last platform. */
  readonly everyMedianMs: number;
  readonly everyMaxMs: number;
}

interface Held {
  skus: { sku: string; price: string | number | null }[];
  state: string;
  /** An Amazon family's parent (DESIGN §15): no price of its own, never buyable. */
  variation_theme?: string | null;
}

/** Where each platform lists the tee: Amazon as a variation family of SHIRT (its themes vary on size and colour). */
const familyPublishOf = (key: BenchPlatform) =>
  key === 'amazon-seller' ? { category_id: 'SHIRT', attributes: { department: 'unisex-adult' } } : publishOf(key);

export async function benchFamily(
  server: ServerProcess,
  user: BenchUser,
  platforms: readonly BenchPlatform[],
  changes: number,
): Promise<FamilyResult> {
  const skus = SIZES.flatMap((size) => COLORS.map((color) => ({ sku: `FAM-${size}-${color.toUpperCase()}`, size, color })));
  const body = {
    title: 'Bench family tee',
    description: 'Organic cotton, six variants.',
    brand: 'Bench',
    currency: 'USD',
    options: [
      { name: 'Size', values: SIZES },
      { name: 'Color', values: COLORS },
    ],
    variants: skus.map((v, i) => ({
      sku: v.sku,
      option_values: { Size: v.size, Color: v.color },
      price: '20.00',
      quantity: 50,
      barcode: String(200_000_000_000 + i),
    })),
    package: { weight_grams: 180, length_mm: 300, width_mm: 250, height_mm: 20 },
  };
  const product = (await send(server, user, 'POST', '/products', body)).data as { id: number };
  const form = new FormData();
  form.set('file', new Blob([PNG_640X480], { type: 'image/png' }), 'tee.png');
  const uploaded = await fetch(`${server.url}/api/v1/products/${product.id}/images`, { method: 'POST', headers: user.headers, body: form });
  if (uploaded.status !== 201) throw new Error(`the image upload answered ${uploaded.status}`);

  const held = async (key: BenchPlatform): Promise<Held[]> =>
    (await fetch(`${sandboxOf(server)}/${key}/accounts/${ACCOUNTS[key]}/listings`)).json() as Promise<Held[]>;
  const pricesOn = async (key: BenchPlatform) =>
    new Map((await held(key)).flatMap((listing) => listing.skus.map((sku) => [sku.sku, Number(sku.price)] as const)));
  const listedAt = (key: BenchPlatform, price: number) => (key === 'tiktok-shop' ? Math.round(price * GBP_RATE * 100) / 100 : price);
  for (const key of platforms) {
    const site = await connectPlatform(server, user, key, ACCOUNTS[key]);
    if (key === 'tiktok-shop') {
      const settings = (await send(server, user, 'GET', `/sites/${site}/listing-settings`)).data;
      await send(server, user, 'PUT', `/sites/${site}/listing-settings`, { ...settings, exchange_rates: { USD: String(GBP_RATE) } });
    }
    await send(server, user, 'POST', `/sites/${site}/listings`, { product_id: product.id, ...familyPublishOf(key) });
  }
  const holds = async (key: BenchPlatform, price: number) => {
    const prices = await pricesOn(key);
    return skus.every((v) => prices.get(v.sku) === listedAt(key, price));
  };
  // Live everywhere first (TikTok Shop's review passes, Amazon makes the skus buyable): only then is a price change one.
  await until(600_000, async () => (await Promise.all(platforms.map((key) => holds(key, 20)))).every(Boolean), 'the family going live');
  for (const key of platforms)
    await until(
      600_000,
      async () => (await held(key)).every((listing) => listing.variation_theme || listing.state === 'active'),
      `${platformName(key)} live`,
    );

  const samples = new Map<BenchPlatform, number[]>(platforms.map((key) => [key, []]));
  const every: number[] = [];
  const callsBefore = await callCounts(server);
  for (let change = 1; change <= changes; change++) {
    const price = 20 + change * 0.25;
    const current = (await send(server, user, 'GET', `/products/${product.id}`)).data;
    const variants = current.variants.map((v: Record<string, unknown>) => ({ ...v, price: price.toFixed(2) }));
    await send(server, user, 'PATCH', `/products/${product.id}`, { variants });
    const answered = performance.now();
    const pending = new Set(platforms);
    while (pending.size > 0) {
      for (const key of [...pending]) {
        if (!(await holds(key, price))) continue;
        samples.get(key)!.push(performance.now() - answered);
        pending.delete(key);
      }
      if (performance.now() - answered > 120_000)
        throw new Error(`the family's price change ${change}: not on ${[...pending].join(', ')} in 120 s`);
      if (pending.size > 0) await new Promise((resolve) => setTimeout(resolve, POLL_MS / 10));
    }
    every.push(performance.now() - answered);
  }
  const callsAfter = await callCounts(server);
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
  return {
    variants: skus.length,
    changes,
    platforms: platforms.map((key) => ({
      platform: key,
      medianMs: median(samples.get(key)!),
      maxMs: Math.max(...samples.get(key)!),
      // The listing calls a change made on the platform, on average.
      calls:
        Object.entries(callsAfter)
          .filter(([name]) => name.startsWith(`${key}:`))
          .reduce((sum, [name, n]) => sum + n - (callsBefore[name] ?? 0), 0) / changes,
    })),
    everyMedianMs: median(every),
    everyMaxMs: Math.max(...every),
  };
}

/** The sandbox's call counts, by platform and operation. */
async function callCounts(server: ServerProcess): Promise<Record<string, number>> {
  return (await (await fetch(`${sandboxOf(server)}/calls`)).json()) as Record<string, number>;
}
