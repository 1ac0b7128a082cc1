/**
 * The TikTok Shop simulator's product API (listings.md §2, DESIGN §10 "Sandbox"), driven over real HTTP as a platform
 * client would call it, with the request signature computed here from TikTok's documented steps and no adapter code:
 * reference data, upload, create and audit, refusals, price and stock, batches, signature, rate limit, inspection.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import { SANDBOX_CLIENTS } from '../../../src/sandbox/context.js';
import { setTikTokShopRateLimit } from '../../../src/sandbox/tiktok-shop/product-store.js';
import { PNG_640X480, SANDBOX_REVIEW_MS, TIKTOK_CATEGORY } from '../../helpers/fixtures.js';
import { createTestApp, injectForm, type TestApp } from '../../helpers/test-app.js';

const APP = SANDBOX_CLIENTS.tiktokShop;
const { MUGS } = TIKTOK_CATEGORY;

let t: TestApp;
let base: string;
before(async () => {
  t = await createTestApp('pglite', { listen: true });
  base = `${t.deps.sandbox.sandboxUrl}/tiktok-shop`;
});
after(() => t.close());
beforeEach(() => setTikTokShopRateLimit(t.deps.sandbox, 1_000_000));

/** TikTok's signature: HMAC-SHA256(secret; secret + path + sorted key+value pairs + body + secret), lowercase hex. */
function sign(path: string, params: Record<string, string>, body: string): string {
  const pairs = Object.entries(params).sort(([a], [b]) => (a < b ? -1 : 1));
  const text = APP.appSecret + path + pairs.map(([key, value]) => key + value).join('') + body + APP.appSecret;
  return createHmac('sha256', APP.appSecret).update(text).digest('hex');
}

interface Shop {
  token: string;
  cipher: string;
  id: string;
}

/** A token through the consent page (a UK seller's, selling in pounds) and the token call, and the account's first shop. */
async function connect(account: number): Promise<Shop> {
  const consent = await injectForm(t, '/sandbox/tiktok-shop/authorize', {
    service_id: APP.serviceId,
    state: 's',
    decision: 'allow',
    account: String(account),
    market: 'GB',
  });
  const code = new URL(consent.headers.location as string).searchParams.get('code')!;
  const tokens = await fetch(
    `${base}/api/v2/token/get?${new URLSearchParams({ app_key: APP.appKey, app_secret: APP.appSecret, auth_code: code, grant_type: 'authorized_code' })}`,
  );
  const token = ((await tokens.json()) as { data: { access_token: string } }).data.access_token;
  const shops = await call({ token, cipher: '', id: '' }, 'GET', '/authorization/202309/shops', undefined, { noCipher: true });
  const shop = (shops.body.data as { shops: { cipher: string; id: string }[] }).shops[0]!;
  return { token, cipher: shop.cipher, id: shop.id };
}

/** A signed call; `badSign` sends a wrong signature. */
async function call(
  shop: Shop,
  method: string,
  path: string,
  payload?: object,
  options: { noCipher?: boolean; badSign?: boolean; query?: Record<string, string> } = {},
) {
  const params: Record<string, string> = {
    app_key: APP.appKey,
    timestamp: String(Math.floor(t.clock.now().getTime() / 1000)),
    ...(options.noCipher ? {} : { shop_cipher: shop.cipher }),
    ...options.query,
  };
  const body = payload ? JSON.stringify(payload) : '';
  const signature = options.badSign ? '0'.repeat(64) : sign(path, params, body);
  const response = await fetch(`${base}${path}?${new URLSearchParams({ ...params, sign: signature })}`, {
    method,
    headers: { 'x-tts-access-token': shop.token, 'content-type': 'application/json' },
    ...(payload ? { body } : {}),
  });
  return { status: response.status, body: (await response.json()) as { code: number; message: string; data: Record<string, unknown> } };
}

async function upload(shop: Shop, bytes: Buffer = PNG_640X480) {
  const params = { app_key: APP.appKey, timestamp: String(Math.floor(t.clock.now().getTime() / 1000)), shop_cipher: shop.cipher };
  const path = '/product/202309/images/upload';
  const form = new FormData();
  form.append('data', new Blob([bytes], { type: 'image/png' }), 'mug.png');
  form.append('use_case', 'MAIN_IMAGE');
  const response = await fetch(`${base}${path}?${new URLSearchParams({ ...params, sign: sign(path, params, '') })}`, {
    method: 'POST',
    headers: { 'x-tts-access-token': shop.token },
    body: form,
  });
  return (await response.json()) as { code: number; data: { uri: string; width: number; height: number; use_case: string } };
}

const mug = (shop: Shop, uri: string, overrides: Record<string, unknown> = {}) => ({
  title: 'Speckled stoneware mug, 350 ml, handmade',
  description: '<p>A speckled mug.</p>',
  category_id: MUGS,
  main_images: [{ uri }],
  skus: [{ seller_sku: 'MUG-1', price: { amount: '24.00', currency: 'GBP' }, inventory: [{ warehouse_id: `${shop.id}001`, quantity: 7 }] }],
  package_weight: { value: '0.4', unit: 'KILOGRAM' },
  package_dimensions: { length: '12', width: '12', height: '10', unit: 'CENTIMETER' },
  product_attributes: [{ id: '100392', values: [{ id: '1001533' }] }],
  ...overrides,
});

async function create(shop: Shop, overrides: Record<string, unknown> = {}) {
  const { data } = await upload(shop);
  const response = await call(shop, 'POST', '/product/202309/products', mug(shop, data.uri, overrides));
  assert.equal(response.body.code, 0, JSON.stringify(response.body));
  return response.body.data as { product_id: string; skus: { id: string; seller_sku: string }[] };
}

const product = async (shop: Shop, id: string) =>
  (await call(shop, 'GET', `/product/202309/products/${id}`)).body.data as Record<string, any>;

describe('TikTok Shop product API', () => {
  test('categories, rules, attributes and warehouses answer the reference data', async () => {
    const shop = await connect(301);
    const categories = (await call(shop, 'GET', '/product/202309/categories')).body;
    assert.equal(categories.code, 0);
    const list = categories.data.categories as { id: string; is_leaf: boolean; local_name: string }[];
    assert.ok(list.some((each) => each.id === MUGS && each.is_leaf && each.local_name === 'Mugs'));
    const rules = (await call(shop, 'GET', `/product/202309/categories/${MUGS}/rules`)).body.data as {
      package_dimension: { is_required: boolean };
    };
    assert.equal(rules.package_dimension.is_required, true);
    const attributes = (await call(shop, 'GET', `/product/202309/categories/${MUGS}/attributes`)).body.data.attributes as Record<
      string,
      unknown
    >[];
    assert.ok(attributes.some((each) => each.name === 'Material' && each.is_requried === true && each.type === 'PRODUCT_PROPERTY'));
    assert.equal((await call(shop, 'GET', '/product/202309/categories/600001/rules')).body.code, 12052024);
    const warehouses = (await call(shop, 'GET', '/logistics/202309/warehouses')).body.data.warehouses as Record<string, unknown>[];
    assert.equal(warehouses.length, 2);
    assert.deepEqual(
      warehouses.filter((each) => each.is_default).map((each) => [each.id, each.type]),
      [[`${shop.id}001`, 'SALES_WAREHOUSE']],
    );
  });

  test('an upload answers a hosted uri with its size, and a non-image is refused', async () => {
    const shop = await connect(302);
    const uploaded = await upload(shop);
    assert.equal(uploaded.code, 0);
    assert.match(uploaded.data.uri, /^tos-maliva-i-o3syd03w52-us\//);
    assert.deepEqual([uploaded.data.width, uploaded.data.height, uploaded.data.use_case], [640, 480, 'MAIN_IMAGE']);
    assert.equal((await upload(shop, Buffer.from('not an image at all'))).code, 12038002);
  });

  test('a created product is PENDING, then ACTIVATE after the review time, with its status webhook', async () => {
    const shop = await connect(303);
    const created = await create(shop);
    assert.equal(created.skus[0]!.seller_sku, 'MUG-1');
    assert.equal((await product(shop, created.product_id)).status, 'PENDING');
    t.clock.advance(SANDBOX_REVIEW_MS);
    const live = await product(shop, created.product_id);
    assert.equal(live.status, 'ACTIVATE');
    assert.equal(live.skus[0].inventory[0].quantity, 7);
    assert.deepEqual(
      live.category_chains.map((each: { local_name: string }) => each.local_name),
      ['Home & Kitchen', 'Drinkware', 'Mugs'],
    );
  });

  test('a title with the word prohibited fails audit with reasons', async () => {
    const shop = await connect(304);
    const created = await create(shop, { title: 'Prohibited mug' });
    t.clock.advance(SANDBOX_REVIEW_MS);
    const failed = await product(shop, created.product_id);
    assert.equal(failed.status, 'FAILED');
    assert.equal(failed.audit_failed_reasons[0].position, 'title');
  });

  test('the same idempotency key answers the same product', async () => {
    const shop = await connect(305);
    const { data } = await upload(shop);
    const body = mug(shop, data.uri, { idempotency_key: 'a6f1c0d3e' });
    const first = await call(shop, 'POST', '/product/202309/products', body);
    const second = await call(shop, 'POST', '/product/202309/products', body);
    assert.equal(first.body.data.product_id, second.body.data.product_id);
  });

  test('listing_check reports failures and stores nothing', async () => {
    const shop = await connect(306);
    const { data } = await upload(shop);
    const check = await call(shop, 'POST', '/product/202309/products/listing_check', mug(shop, data.uri, { product_attributes: [] }));
    assert.equal(check.body.code, 0);
    assert.equal(check.body.data.check_result, 'FAILED');
    assert.match((check.body.data.fail_reasons as { message: string }[])[0]!.message, /Material/);
    const search = await call(shop, 'POST', '/product/202309/products/search', {}, { query: { page_size: '10' } });
    assert.equal(search.body.data.total_count, 0);
  });

  test('a missing required attribute or an image not uploaded is refused', async () => {
    const shop = await connect(307);
    const { data } = await upload(shop);
    const noMaterial = await call(shop, 'POST', '/product/202309/products', mug(shop, data.uri, { product_attributes: [] }));
    assert.equal(noMaterial.body.code, 36009004);
    assert.match(noMaterial.body.message, /Material/);
    const foreign = await call(shop, 'POST', '/product/202309/products', mug(shop, 'https://example.com/mug.jpg'));
    assert.equal(foreign.body.code, 12052028);
  });

  test('price and inventory updates change a live product without audit', async () => {
    const shop = await connect(308);
    const created = await create(shop);
    const skuId = created.skus[0]!.id;
    const early = await call(shop, 'POST', `/product/202309/products/${created.product_id}/prices/update`, {
      skus: [{ id: skuId, price: { amount: '19.00', currency: 'GBP' } }],
    });
    assert.equal(early.body.code, 12052901);
    t.clock.advance(SANDBOX_REVIEW_MS);
    const price = await call(shop, 'POST', `/product/202309/products/${created.product_id}/prices/update`, {
      skus: [{ id: skuId, price: { amount: '19.00', currency: 'GBP' } }],
    });
    assert.equal(price.body.code, 0, JSON.stringify(price.body));
    const stock = await call(shop, 'POST', `/product/202309/products/${created.product_id}/inventory/update`, {
      skus: [{ id: skuId, inventory: [{ warehouse_id: `${shop.id}001`, quantity: 3 }] }],
    });
    assert.equal(stock.body.code, 0, JSON.stringify(stock.body));
    const live = await product(shop, created.product_id);
    assert.equal(live.status, 'ACTIVATE');
    assert.equal(live.skus[0].price.sale_price, '19.00');
    assert.equal(live.skus[0].inventory[0].quantity, 3);
  });

  test('batches answer per-item errors for unknown ids', async () => {
    const shop = await connect(309);
    const created = await create(shop);
    t.clock.advance(SANDBOX_REVIEW_MS);
    const ids = { product_ids: [created.product_id, '1'] };
    const off = await call(shop, 'POST', '/product/202309/products/deactivate', ids);
    assert.equal(off.body.code, 0);
    assert.deepEqual(
      (off.body.data.errors as { detail: { product_id: string } }[]).map((each) => each.detail.product_id),
      ['1'],
    );
    assert.equal((await product(shop, created.product_id)).status, 'SELLER_DEACTIVATED');
    assert.equal((await call(shop, 'POST', '/product/202309/products/activate', ids)).body.code, 0);
    assert.equal((await product(shop, created.product_id)).status, 'PENDING');
    const removed = await call(shop, 'DELETE', '/product/202309/products', ids);
    assert.equal((removed.body.data.errors as unknown[]).length, 1);
    assert.equal((await product(shop, created.product_id)).status, 'DELETED');
  });

  test('a bad signature is refused with 106001', async () => {
    const shop = await connect(310);
    const response = await call(shop, 'GET', '/product/202309/categories', undefined, { badSign: true });
    assert.equal(response.status, 200);
    assert.equal(response.body.code, 106001);
  });

  test('a spent per-shop budget answers 429 with 36009002', async () => {
    const shop = await connect(311);
    setTikTokShopRateLimit(t.deps.sandbox, 2);
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await call(shop, 'GET', '/logistics/202309/warehouses'));
    assert.deepEqual(
      answers.map((each) => each.status),
      [200, 200, 429],
    );
    assert.equal(answers[2]!.body.code, 36009002);
  });

  test('the inspection shows what the account shops hold', async () => {
    const shop = await connect(312);
    const created = await create(shop);
    t.clock.advance(SANDBOX_REVIEW_MS);
    const response = await fetch(`${base}/accounts/312/listings`);
    const listings = (await response.json()) as Record<string, unknown>[];
    assert.equal(listings.length, 1);
    assert.deepEqual(
      { ...listings[0], created_at: undefined, updated_at: undefined },
      {
        id: created.product_id,
        title: 'Speckled stoneware mug, 350 ml, handmade',
        state: 'active',
        status: 'ACTIVATE',
        skus: [{ sku: 'MUG-1', price: '24.00', quantity: 7 }],
        audit_failed_reasons: [],
        created_at: undefined,
        updated_at: undefined,
      },
    );
    // Created when the product was, last changed when its review passed.
    assert.equal(Date.parse(String(listings[0]!.updated_at)) - Date.parse(String(listings[0]!.created_at)), SANDBOX_REVIEW_MS);
  });
});
