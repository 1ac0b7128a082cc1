/**
 * The Etsy simulator's listing API (listings.md §1, DESIGN §10 "Sandbox"), driven over HTTP through the real app as a
 * platform client would call it, with no adapter code (nothing from src/platforms): the taxonomy, the shop's
 * prerequisites, a listing's whole life, every refusal, scopes, rate limits, faults and the inspection endpoint.
 * These are sandbox tests, so they run on PGlite alone: the database plays no part in them.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { SANDBOX_CLIENTS } from '../../../src/sandbox/context.js';
import { PKCE_CHALLENGE, PKCE_VERIFIER, PNG_640X480 } from '../../helpers/fixtures.js';
import { createTestApp, injectForm, type TestApp } from '../../helpers/test-app.js';

const ETSY = SANDBOX_CLIENTS.etsy;
const KEY = `${ETSY.clientId}:${ETSY.sharedSecret}`;
const BASE = '/sandbox/etsy/v3/application';
const ALL_LISTING_SCOPES = 'shops_r listings_r listings_w listings_d';
const MUGS = 1071;
const PRIMARY_COLOR = 200;
const CAPACITY = 300;
/** Never more than this in one simulated second unless a test lowers it: the test clock does not move by itself. */
const UNLIMITED = { perSecond: 1_000_000, perDay: 1_000_000_000 };

let t: TestApp;
before(async () => {
  t = await createTestApp('pglite');
});
after(() => t.close());
beforeEach(() => {
  Object.assign(t.deps.sandbox.etsyLimits, UNLIMITED);
  t.deps.sandbox.faults.clear();
});

const shopOf = (account: number) => 80_000_000 + account;
const ids = (shop: number) => ({ shipping: shop * 100 + 1, readiness: shop * 100 + 11, returns: shop * 100 + 21 });

/** A sandbox grant through the simulator's consent page and token endpoint; returns the access token. */
async function connect(account: number, scope = ALL_LISTING_SCOPES): Promise<string> {
  const consent = await injectForm(t, '/sandbox/etsy/authorize', {
    response_type: 'code',
    client_id: ETSY.clientId,
    redirect_uri: t.deps.sandbox.callbackUrl('etsy'),
    scope,
    state: 'state-1',
    code_challenge: PKCE_CHALLENGE,
    code_challenge_method: 'S256',
    decision: 'allow',
    account: String(account),
  });
  const code = new URL(consent.headers.location as string).searchParams.get('code')!;
  const tokens = await injectForm(
    t,
    '/sandbox/etsy/v3/public/oauth/token',
    {
      grant_type: 'authorization_code',
      client_id: ETSY.clientId,
      redirect_uri: t.deps.sandbox.callbackUrl('etsy'),
      code,
      code_verifier: PKCE_VERIFIER,
    },
    { 'x-api-key': KEY },
  );
  assert.equal(tokens.statusCode, 200, tokens.body);
  return tokens.json().access_token;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const headersOf = (token: string | null) => ({ 'x-api-key': KEY, ...(token ? { authorization: `Bearer ${token}` } : {}) });
const call = (token: string | null, method: Method, path: string, payload?: object, headers: Record<string, string> = {}) =>
  t.app.inject({ method, url: `${BASE}${path}`, headers: { ...headersOf(token), ...headers }, ...(payload ? { payload } : {}) });
const form = (token: string, method: 'POST' | 'PATCH', path: string, fields: Record<string, string>) =>
  t.app.inject({
    method,
    url: `${BASE}${path}`,
    headers: { ...headersOf(token), 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  });

/** A createDraftListing form; an override of undefined leaves the field out. */
const draftFields = (shop: number, overrides: Record<string, string | undefined> = {}) => {
  const fields = { ...DRAFT_DEFAULTS(shop), ...overrides };
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Record<string, string>;
};
const DRAFT_DEFAULTS = (shop: number) => ({
  quantity: '5',
  title: 'Walnut coaster set',
  description: 'Four oiled walnut coasters',
  price: '24.00',
  who_made: 'i_did',
  when_made: 'made_to_order',
  taxonomy_id: String(MUGS),
  shipping_profile_id: String(ids(shop).shipping),
  readiness_state_id: String(ids(shop).readiness),
  return_policy_id: String(ids(shop).returns),
});
const createDraft = (token: string, account: number, overrides: Record<string, string | undefined> = {}) =>
  form(token, 'POST', `/shops/${shopOf(account)}/listings`, draftFields(shopOf(account), overrides));

async function draft(token: string, account: number, overrides: Record<string, string | undefined> = {}): Promise<number> {
  const response = await createDraft(token, account, overrides);
  assert.equal(response.statusCode, 201, response.body);
  return response.json().listing_id;
}

/** A multipart body built in the test, so the simulator's parser is what is checked. */
function multipart(parts: Array<{ name: string; value: string | Buffer; filename?: string }>) {
  const boundary = 'sandbox-boundary-1234';
  const chunks = parts.flatMap(({ name, value, filename }) => [
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"\r\nContent-Type: application/octet-stream` : ''}\r\n\r\n`,
    ),
    Buffer.isBuffer(value) ? value : Buffer.from(value),
    Buffer.from('\r\n'),
  ]);
  return { payload: Buffer.concat([...chunks, Buffer.from(`--${boundary}--\r\n`)]), type: `multipart/form-data; boundary=${boundary}` };
}

const upload = (
  token: string,
  account: number,
  listingId: number,
  parts: Parameters<typeof multipart>[0] = [{ name: 'image', value: PNG_640X480, filename: 'a.png' }],
) => {
  const body = multipart(parts);
  return t.app.inject({
    method: 'POST',
    url: `${BASE}/shops/${shopOf(account)}/listings/${listingId}/images`,
    headers: { ...headersOf(token), 'content-type': body.type },
    payload: body.payload,
  });
};

const setState = (token: string, account: number, listingId: number, state: string) =>
  form(token, 'PATCH', `/shops/${shopOf(account)}/listings/${listingId}`, { state });

const inspect = async (account: number) =>
  (await t.app.inject({ method: 'GET', url: `/sandbox/etsy/accounts/${account}/listings` })).json();

/** Two variation properties (colour and capacity), four products, price varying on capacity only. */
const variedInventory = (readiness: number) => {
  const product = (color: string, colorId: number, capacity: string, price: number, quantity: number, sku: string) => ({
    sku,
    property_values: [
      { property_id: PRIMARY_COLOR, value_ids: [colorId], values: [color] },
      { property_id: CAPACITY, scale_id: 11, value_ids: [] as number[], values: [capacity] },
    ],
    offerings: [{ price, quantity, is_enabled: true, readiness_state_id: readiness }],
  });
  return {
    products: [
      product('Black', 1, '12', 20, 3, 'MUG-BK-12'),
      product('Black', 1, '16', 24, 2, 'MUG-BK-16'),
      product('White', 2, '12', 20, 0, 'MUG-WH-12'),
      product('White', 2, '16', 24, 4, 'MUG-WH-16'),
    ],
    price_on_property: [CAPACITY],
    quantity_on_property: [PRIMARY_COLOR, CAPACITY],
    sku_on_property: [PRIMARY_COLOR, CAPACITY],
    readiness_state_on_property: [],
  };
};

describe('the seller taxonomy', () => {
  test('the tree has three levels, with each node its parent, children and full path', async () => {
    const response = await call(null, 'GET', '/seller-taxonomy/nodes');
    assert.equal(response.statusCode, 200);
    const { count, results } = response.json();
    assert.equal(count, results.length);
    const home = results.find((node: { name: string }) => node.name === 'Home & Living');
    assert.deepEqual([home.level, home.parent_id], [1, null]);
    const kitchen = home.children.find((node: { name: string }) => node.name === 'Kitchen & Dining');
    assert.ok(home.child_ids.includes(kitchen.id));
    const mugs = kitchen.children.find((node: { id: number }) => node.id === MUGS);
    assert.deepEqual(
      { name: mugs.name, level: mugs.level, parent: mugs.parent_id, children: mugs.children, path: mugs.full_path_taxonomy_ids },
      { name: 'Mugs', level: 3, parent: kitchen.id, children: [], path: [home.id, kitchen.id, MUGS] },
    );
  });

  test("a leaf's properties say which are required and carry their possible values", async () => {
    const { count, results } = (await call(null, 'GET', `/seller-taxonomy/nodes/${MUGS}/properties`)).json();
    assert.equal(count, results.length);
    const color = results.find((property: { property_id: number }) => property.property_id === PRIMARY_COLOR);
    assert.deepEqual([color.name, color.is_required, color.supports_variations], ['Primary color', true, true]);
    assert.deepEqual(color.possible_values[0], { value_id: 1, name: 'Black', scale_id: null, equal_to: [] });
    assert.ok(results.some((property: { name: string; is_required: boolean }) => property.name === 'Material' && property.is_required));
  });

  test('a leaf may have no properties, and an unknown node is 404', async () => {
    assert.deepEqual((await call(null, 'GET', '/seller-taxonomy/nodes/3021/properties')).json(), { count: 0, results: [] });
    assert.equal((await call(null, 'GET', '/seller-taxonomy/nodes/999999/properties')).statusCode, 404);
  });

  test('the taxonomy is public but still needs the keystring and shared secret', async () => {
    const response = await t.app.inject({ method: 'GET', url: `${BASE}/seller-taxonomy/nodes`, headers: { 'x-api-key': ETSY.clientId } });
    assert.deepEqual([response.statusCode, response.json()], [403, { error: 'Shared secret is required in x-api-key header.' }]);
  });
});

describe("a shop's prerequisites", () => {
  test('two shipping profiles, return policies and processing profiles, in Etsy shapes and fixed ids', async () => {
    const token = await connect(101);
    const shop = shopOf(101);
    const profiles = (await call(token, 'GET', `/shops/${shop}/shipping-profiles`)).json();
    assert.equal(profiles.count, 2);
    assert.deepEqual(
      profiles.results.map((p: { shipping_profile_id: number; title: string }) => [p.shipping_profile_id, p.title]),
      [
        [shop * 100 + 1, 'Standard shipping'],
        [shop * 100 + 2, 'Express shipping'],
      ],
    );
    const policies = (await call(token, 'GET', `/shops/${shop}/policies/return`)).json();
    assert.deepEqual(policies.results[0], {
      return_policy_id: shop * 100 + 21,
      shop_id: shop,
      accepts_returns: true,
      accepts_exchanges: true,
      return_deadline: 30,
    });
    assert.equal(policies.results[1].return_deadline, null);
    const readiness = (await call(token, 'GET', `/shops/${shop}/readiness-state-definitions`)).json();
    assert.deepEqual(readiness.results[1], {
      readiness_state_id: shop * 100 + 12,
      shop_id: shop,
      readiness_state: 'made_to_order',
      min_processing_time: 1,
      max_processing_time: 2,
      processing_time_unit: 'weeks',
    });
  });

  test('they need shops_r and the shop of the token', async () => {
    const noShopsScope = await connect(102, 'listings_r');
    const refused = await call(noShopsScope, 'GET', `/shops/${shopOf(102)}/shipping-profiles`);
    assert.deepEqual([refused.statusCode, refused.json().error], [403, 'insufficient_scope']);
    const other = await call(await connect(102), 'GET', `/shops/${shopOf(103)}/policies/return`);
    assert.equal(other.statusCode, 403);
    assert.equal(typeof other.json().error, 'string');
  });
});

describe("a listing's life", () => {
  const account = 110;
  const shop = shopOf(account);

  test('draft, image, two-property inventory, activate, deactivate, reactivate, delete', async () => {
    const token = await connect(account);
    const created = await createDraft(token, account);
    assert.equal(created.statusCode, 201);
    const listing = created.json();
    assert.deepEqual(
      {
        shop: listing.shop_id,
        user: listing.user_id,
        state: listing.state,
        quantity: listing.quantity,
        price: listing.price,
        variations: listing.has_variations,
        taxonomy: listing.taxonomy_id,
      },
      {
        shop,
        user: 70_000_000 + account,
        state: 'draft',
        quantity: 5,
        price: { amount: 2400, divisor: 100, currency_code: 'USD' },
        variations: false,
        taxonomy: MUGS,
      },
    );
    assert.match(listing.url, new RegExp(`^https://www\\.etsy\\.com/listing/${listing.listing_id}/walnut-coaster-set$`));
    const id: number = listing.listing_id;

    const noImage = await setState(token, account, id, 'active');
    assert.equal(noImage.statusCode, 400);
    assert.match(noImage.json().error, /image/);

    const image = await upload(token, account, id, [
      { name: 'image', value: PNG_640X480, filename: 'mug.png' },
      { name: 'alt_text', value: 'A black mug' },
    ]);
    assert.equal(image.statusCode, 201, image.body);
    assert.deepEqual(
      {
        listing: image.json().listing_id,
        rank: image.json().rank,
        alt: image.json().alt_text,
        size: [image.json().full_width, image.json().full_height],
      },
      { listing: id, rank: 1, alt: 'A black mug', size: [640, 480] },
    );
    for (const url of ['url_75x75', 'url_170x135', 'url_570xN', 'url_fullxfull']) assert.equal(typeof image.json()[url], 'string');

    const inventory = await call(token, 'PUT', `/listings/${id}/inventory`, variedInventory(ids(shop).readiness));
    assert.equal(inventory.statusCode, 200, inventory.body);
    assert.equal(inventory.json().products.length, 4);
    assert.deepEqual(inventory.json().products[1].offerings[0].price, { amount: 2400, divisor: 100, currency_code: 'USD' });
    assert.equal(inventory.json().products[0].property_values[0].property_name, 'Primary color');

    const read = (await call(token, 'GET', `/listings/${id}?includes=Images,Inventory`)).json();
    assert.deepEqual([read.quantity, read.has_variations, read.images.length, read.inventory.products.length], [9, true, 1, 4]);
    assert.deepEqual(read.price, { amount: 2000, divisor: 100, currency_code: 'USD' });

    assert.equal((await setState(token, account, id, 'active')).json().state, 'active');
    // Activating an active listing is no second publish.
    assert.equal((await setState(token, account, id, 'active')).statusCode, 200);
    assert.deepEqual(pick(await inspect(account), id), { state: 'active', publishes: 1, fees: 1 });

    assert.equal((await setState(token, account, id, 'inactive')).json().state, 'inactive');
    assert.equal((await setState(token, account, id, 'active')).json().state, 'active');
    // A reactivation is a publish, but not a fee before the listing expires (the ASSUMPTION of listing-store.ts).
    assert.deepEqual(pick(await inspect(account), id), { state: 'active', publishes: 2, fees: 1 });

    const listed = (await call(token, 'GET', `/shops/${shop}/listings?state=active&includes=Images`)).json();
    assert.ok(listed.results.some((each: { listing_id: number; images: unknown[] }) => each.listing_id === id && each.images.length === 1));

    assert.equal((await call(token, 'DELETE', `/listings/${id}`)).statusCode, 204);
    assert.equal((await call(token, 'GET', `/listings/${id}`)).statusCode, 404);
    assert.equal(pick(await inspect(account), id), undefined);
  });

  test('the shop listing defaults to active listings, newest first, with limit and offset', async () => {
    const token = await connect(111);
    const first = await draft(token, 111);
    const second = await draft(token, 111);
    assert.deepEqual((await call(token, 'GET', `/shops/${shopOf(111)}/listings`)).json(), { count: 0, results: [] });
    const drafts = (await call(token, 'GET', `/shops/${shopOf(111)}/listings?state=draft&limit=1&offset=1`)).json();
    assert.deepEqual([drafts.count, drafts.results.map((l: { listing_id: number }) => l.listing_id)], [2, [first]]);
    assert.ok(second > first);
    for (const query of ['state=sold', 'limit=101', 'limit=0', 'includes=Shop']) {
      assert.equal((await call(token, 'GET', `/shops/${shopOf(111)}/listings?${query}`)).statusCode, 400, query);
    }
  });

  test('updateListing takes form or JSON fields, and refuses price, quantity and unknown states', async () => {
    const token = await connect(112);
    const id = await draft(token, 112);
    const viaForm = await form(token, 'PATCH', `/shops/${shopOf(112)}/listings/${id}`, { title: 'Oak coaster set', tags: 'oak,coaster' });
    assert.deepEqual([viaForm.json().title, viaForm.json().tags], ['Oak coaster set', ['oak', 'coaster']]);
    const viaJson = await call(token, 'PATCH', `/shops/${shopOf(112)}/listings/${id}`, { description: 'Oiled oak', is_supply: true });
    assert.deepEqual([viaJson.json().description, viaJson.json().is_supply], ['Oiled oak', true]);
    for (const fields of [{ price: '10.00' }, { quantity: '2' }, { state: 'draft' }, { state: 'sold_out' }] as Array<
      Record<string, string>
    >) {
      const response = await form(token, 'PATCH', `/shops/${shopOf(112)}/listings/${id}`, fields);
      assert.equal(response.statusCode, 400, JSON.stringify(fields));
      assert.equal(typeof response.json().error, 'string');
    }
  });

  test('a sold-out listing: the API refuses to set no stock, a sale of the last unit makes it sold_out, and activating it renews it with quantity 1 and a fee', async () => {
    const token = await connect(113);
    const id = await draft(token, 113);
    assert.equal((await upload(token, 113, id)).statusCode, 201);
    assert.equal((await setState(token, 113, id, 'active')).statusCode, 200);
    const single = (quantity: number) => ({
      products: [{ sku: 'ONE', property_values: [], offerings: [{ price: 24, quantity, is_enabled: true }] }],
    });
    // orders.md §1, "Inventory": Etsy refuses every offering at 0 (#395, #560).
    const none = await call(token, 'PUT', `/listings/${id}/inventory`, single(0));
    assert.equal(none.statusCode, 400);
    assert.match(none.json().error, /One offering must have quantity greater than 0/);
    assert.equal((await call(token, 'PUT', `/listings/${id}/inventory`, single(1))).statusCode, 200);
    const sale = await t.app.inject({
      method: 'POST',
      url: '/sandbox/etsy/accounts/113/orders',
      payload: { lines: [{ sku: 'ONE', quantity: 1 }] },
    });
    assert.equal(sale.statusCode, 201, sale.body);
    assert.equal((await call(token, 'GET', `/listings/${id}`)).json().state, 'sold_out');
    const renewed = await setState(token, 113, id, 'active');
    assert.deepEqual([renewed.json().state, renewed.json().quantity], ['active', 1]);
    assert.deepEqual(pick(await inspect(113), id), { state: 'active', publishes: 2, fees: 2 });
  });

  test('a listing without a return policy cannot be activated; setting one in the same call can', async () => {
    const token = await connect(114);
    const id = await draft(token, 114, { return_policy_id: undefined });
    assert.equal((await upload(token, 114, id)).statusCode, 201);
    const refused = await setState(token, 114, id, 'active');
    assert.equal(refused.statusCode, 400);
    assert.match(refused.json().error, /return_policy_id/);
    const accepted = await form(token, 'PATCH', `/shops/${shopOf(114)}/listings/${id}`, {
      state: 'active',
      return_policy_id: String(ids(shopOf(114)).returns),
    });
    assert.equal(accepted.json().state, 'active');
  });

  test('a draft cannot be deactivated', async () => {
    const token = await connect(115);
    const id = await draft(token, 115);
    assert.equal((await setState(token, 115, id, 'inactive')).statusCode, 400);
  });
});

describe("a listing's properties", () => {
  const account = 116;
  const shop = shopOf(account);
  const MATERIAL = 507;
  const put = (token: string, id: number, property: number | string, fields: Record<string, string>) =>
    t.app.inject({
      method: 'PUT',
      url: `${BASE}/shops/${shop}/listings/${id}/properties/${property}`,
      headers: { ...headersOf(token), 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(fields).toString(),
    });

  test('set by value_ids (Etsy names the values) or by text, read back, replaced, deleted', async () => {
    const token = await connect(account);
    const id = await draft(token, account);
    const color = await put(token, id, PRIMARY_COLOR, { value_ids: '3' });
    assert.equal(color.statusCode, 200, color.body);
    assert.deepEqual(color.json(), {
      property_id: PRIMARY_COLOR,
      property_name: 'Primary color',
      scale_id: null,
      scale_name: null,
      value_ids: [3],
      values: ['Red'],
    });
    assert.equal((await put(token, id, MATERIAL, { value_ids: '601,603' })).json().values.join(), 'Cotton,Ceramic');
    const capacity = await put(token, id, CAPACITY, { values: '350, give or take', scale_id: '12' });
    assert.deepEqual([capacity.json().values, capacity.json().scale_name], [['350, give or take'], 'Millilitres']);
    assert.equal((await put(token, id, PRIMARY_COLOR, { value_ids: '4' })).statusCode, 200);

    const read = await call(token, 'GET', `/listings/${id}/properties`);
    assert.deepEqual(
      read.json().results.map((p: { property_id: number; values: string[] }) => [p.property_id, p.values]),
      [
        [PRIMARY_COLOR, ['Blue']],
        [MATERIAL, ['Cotton', 'Ceramic']],
        [CAPACITY, ['350, give or take']],
      ],
    );
    assert.equal((await call(token, 'DELETE', `/shops/${shop}/listings/${id}/properties/${CAPACITY}`)).statusCode, 204);
    assert.equal((await call(token, 'DELETE', `/shops/${shop}/listings/${id}/properties/${CAPACITY}`)).statusCode, 404);
    assert.deepEqual(
      (await inspect(account)).find((l: { id: number }) => l.id === id).properties.map((p: { property_id: number }) => p.property_id),
      [PRIMARY_COLOR, MATERIAL],
    );
  });

  test('refusals: a property not of the category, a value not of the property, too many values, a wrong scale', async () => {
    const token = await connect(account);
    const id = await draft(token, account);
    const refusals = [
      await put(token, id, 100, { value_ids: '701' }), // Size: not an attribute of mugs
      await put(token, id, PRIMARY_COLOR, { value_ids: '601' }),
      await put(token, id, PRIMARY_COLOR, { value_ids: '1,2' }),
      await put(token, id, MATERIAL, { value_ids: '601,602,603,604,605,606' }),
      await put(token, id, PRIMARY_COLOR, { values: 'Red' }),
      await put(token, id, CAPACITY, { values: '350', scale_id: '1' }),
      await put(token, id, CAPACITY, {}),
    ];
    assert.deepEqual(
      refusals.map((r) => r.statusCode),
      refusals.map(() => 400),
    );
    assert.ok(refusals.every((r) => typeof r.json().error === 'string'));
    assert.equal((await call(token, 'GET', `/listings/${id}/properties`)).json().count, 0);
    // Another category keeps only the properties it has: canvas totes (1011) have a primary colour but no capacity.
    assert.equal((await put(token, id, PRIMARY_COLOR, { value_ids: '1' })).statusCode, 200);
    assert.equal((await put(token, id, CAPACITY, { values: '350' })).statusCode, 200);
    assert.equal((await form(token, 'PATCH', `/shops/${shop}/listings/${id}`, { taxonomy_id: '1011' })).statusCode, 200);
    assert.deepEqual(
      (await call(token, 'GET', `/listings/${id}/properties`)).json().results.map((p: { property_id: number }) => p.property_id),
      [PRIMARY_COLOR],
    );
  });
});

const pick = (listings: Array<{ id: number; state: string; publishes: number; fees: number }>, id: number) => {
  const found = listings.find((listing) => listing.id === id);
  return found && { state: found.state, publishes: found.publishes, fees: found.fees };
};

describe('createDraftListing refusals, as the [{path, type, message}] array', () => {
  const account = 120;
  const paths = async (overrides: Record<string, string>) => {
    const response = await createDraft(await connect(account), account, overrides);
    assert.equal(response.statusCode, 400, response.body);
    return response.json().map((problem: { path: string }) => problem.path);
  };

  test('every missing required field is named', async () => {
    const response = await form(await connect(account), 'POST', `/shops/${shopOf(account)}/listings`, {});
    assert.equal(response.statusCode, 400);
    const named = response.json().map((problem: { path: string; type: string }) => `${problem.path}:${problem.type}`);
    for (const field of [
      'quantity',
      'title',
      'description',
      'price',
      'who_made',
      'when_made',
      'taxonomy_id',
      'shipping_profile_id',
      'readiness_state_id',
    ])
      assert.ok(named.includes(`/${field}:required`), field);
  });

  test('a price under 0.20 or over 50,000 is refused in Etsy words', async () => {
    const response = await createDraft(await connect(account), account, { price: '0.19' });
    assert.deepEqual(response.json(), [{ path: '/price', type: 'minimum', message: 'must be above min price $0.20 USD' }]);
    assert.deepEqual(await paths({ price: '50000.01' }), ['/price']);
    assert.equal((await createDraft(await connect(account), account, { price: '0.20' })).statusCode, 201);
  });

  test('the title rules: allowed characters, % : & + at most once each, 140 characters', async () => {
    for (const title of ['Mugs & cups & more', 'Price: 5: now', '50% off 10%', 'A $5 mug', 'x'.repeat(141), '   ']) {
      assert.deepEqual(await paths({ title }), ['/title'], title);
    }
    assert.equal(
      (await createDraft(await connect(account), account, { title: 'Mug™ & cup: 100% oak + walnut, "hand-made"' })).statusCode,
      201,
    );
  });

  test('the taxonomy must be a leaf; profiles and policies must be of this shop; quantity positive', async () => {
    assert.deepEqual(await paths({ taxonomy_id: '301' }), ['/taxonomy_id']);
    assert.deepEqual(await paths({ taxonomy_id: '999999' }), ['/taxonomy_id']);
    const other = ids(shopOf(121));
    assert.deepEqual(
      await paths({
        shipping_profile_id: String(other.shipping),
        readiness_state_id: String(other.readiness),
        return_policy_id: String(other.returns),
      }),
      ['/shipping_profile_id', '/readiness_state_id', '/return_policy_id'],
    );
    assert.deepEqual(await paths({ quantity: '0' }), ['/quantity']);
    assert.deepEqual(await paths({ who_made: 'me', when_made: '2020_2022' }), ['/who_made', '/when_made']);
  });

  test('an empty image_ids is the observed array_too_short, and unknown parameters are refused', async () => {
    const response = await createDraft(await connect(account), account, { image_ids: '' });
    assert.deepEqual(response.json(), [{ path: '/images', type: 'array_too_short', message: 'cannot be less than 1 items' }]);
    assert.deepEqual(await paths({ titel: 'typo' }), ['/titel']);
  });
});

describe('inventory refusals', () => {
  const account = 130;
  const shop = shopOf(account);
  const put = async (body: unknown) => {
    const token = await connect(account);
    const id = await draft(token, account);
    return call(token, 'PUT', `/listings/${id}/inventory`, body as object);
  };
  const refusedWith = async (body: unknown, pattern: RegExp) => {
    const response = await put(body);
    assert.equal(response.statusCode, 400, response.body);
    assert.match(response.json().error, pattern);
  };
  const base = () => variedInventory(ids(shop).readiness);

  test('a third variation property', async () => {
    const body = base();
    body.products.forEach((product, i) =>
      product.property_values.push({ property_id: 513, property_name: 'Finish', value_ids: [], values: [`F${i}`] } as never),
    );
    await refusedWith(body, /more than 2 properties/);
  });

  test('two products with the same combination', async () => {
    const body = base();
    body.products[1]!.property_values = body.products[0]!.property_values;
    await refusedWith(body, /unique combination/);
  });

  test('parentheses in a value', async () => {
    const body = base();
    body.products[0]!.property_values[1]!.values = ['12 (large)'];
    await refusedWith(body, /parentheses/);
  });

  test('a price that varies on a property not in price_on_property', async () => {
    await refusedWith({ ...base(), price_on_property: [] }, /price_on_property/);
    await refusedWith({ ...base(), sku_on_property: [CAPACITY] }, /sku_on_property/);
  });

  test('variations with no stock at all', async () => {
    const body = base();
    for (const product of body.products) product.offerings[0]!.quantity = 0;
    await refusedWith(body, /One offering must have quantity greater than 0/);
  });

  test("a price under 0.20, and an offering of another shop's processing profile", async () => {
    const cheap = base();
    cheap.products[0]!.offerings[0]!.price = 0.1;
    cheap.products[2]!.offerings[0]!.price = 0.1;
    await refusedWith(cheap, /min price/);
    const foreign = base();
    foreign.products[0]!.offerings[0]!.readiness_state_id = ids(shopOf(131)).readiness;
    await refusedWith(foreign, /readiness_state_id/);
  });

  test('a property value without value_ids (required by Etsy, even empty for a custom property)', async () => {
    const body = base();
    for (const product of body.products) delete (product.property_values[1] as { value_ids?: number[] }).value_ids;
    await refusedWith(body, /value_ids : is required/);
  });

  test("a value's ids over its text: ids naming another value store that value, empty ids keep the seller's own text (etsy/open-api#343)", async () => {
    const token = await connect(account);
    const id = await draft(token, account);
    const body = base();
    // Black's products sent with Blue's id (4): Etsy refuses neither, and stores Blue; White's with no id: White kept.
    for (const product of body.products.slice(0, 2)) product.property_values[0]!.value_ids = [4];
    for (const product of body.products.slice(2)) product.property_values[0]!.value_ids = [];
    const answer = await call(token, 'PUT', `/listings/${id}/inventory`, body);
    assert.equal(answer.statusCode, 200, answer.body);
    const read = (await call(token, 'GET', `/listings/${id}/inventory`)).json();
    assert.deepEqual(
      read.products.map((product: { property_values: { value_ids: number[]; values: string[] }[] }) => [
        product.property_values[0]!.value_ids,
        product.property_values[0]!.values,
      ]),
      [
        [[4], ['Blue']],
        [[4], ['Blue']],
        [[], ['White']],
        [[], ['White']],
      ],
    );
    // Two texts under one id are one value twice: the combination is no longer unique.
    const twice = base();
    twice.products[2]!.property_values[0]!.value_ids = [1];
    await refusedWith(twice, /unique combination/);
  });

  test('a property the taxonomy does not vary on, and an empty product list', async () => {
    const body = base();
    for (const product of body.products) product.property_values[1]!.property_id = 507;
    await refusedWith(body, /not a variation property/);
    await refusedWith({ products: [] }, /products/);
  });
});

describe('image refusals and removal', () => {
  const account = 140;

  test('bytes that are no image, a long alt text, a body that is not multipart', async () => {
    const token = await connect(account);
    const id = await draft(token, account);
    const text = await upload(token, account, id, [{ name: 'image', value: 'not an image at all', filename: 'a.png' }]);
    assert.deepEqual([text.statusCode, text.json().error], [400, 'The image must be a JPEG, PNG, GIF or WebP file.']);
    const alt = await upload(token, account, id, [
      { name: 'image', value: PNG_640X480, filename: 'a.png' },
      { name: 'alt_text', value: 'a'.repeat(501) },
    ]);
    assert.equal(alt.statusCode, 400);
    const json = await call(token, 'POST', `/shops/${shopOf(account)}/listings/${id}/images`, { image: 'x' });
    assert.equal(json.statusCode, 400);
  });

  test('JPEG, GIF and WebP are accepted; rank inserts; deleting re-ranks', async () => {
    const token = await connect(account);
    const id = await draft(token, account);
    const jpeg = Buffer.from('ffd8ffe000104a464946', 'hex');
    const gif = Buffer.from('474946383961010001000000', 'hex');
    const webp = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 ')]);
    const uploaded = [];
    for (const bytes of [jpeg, gif, webp])
      uploaded.push((await upload(token, account, id, [{ name: 'image', value: bytes, filename: 'x' }])).json());
    const first = await upload(token, account, id, [
      { name: 'image', value: PNG_640X480, filename: 'a.png' },
      { name: 'rank', value: '1' },
    ]);
    assert.equal(first.json().rank, 1);
    const path = `/shops/${shopOf(account)}/listings/${id}/images`;
    const ranks = () => call(token, 'GET', path).then((r) => r.json().results.map((i: { listing_image_id: number }) => i.listing_image_id));
    assert.deepEqual(await ranks(), [first.json().listing_image_id, ...uploaded.map((image) => image.listing_image_id)]);
    assert.equal((await call(token, 'DELETE', `${path}/${uploaded[0].listing_image_id}`)).statusCode, 204);
    assert.deepEqual(await ranks(), [first.json().listing_image_id, uploaded[1].listing_image_id, uploaded[2].listing_image_id]);
    assert.equal((await call(token, 'DELETE', `${path}/${uploaded[0].listing_image_id}`)).statusCode, 404);
  });
});

describe('auth and scopes on the listing routes', () => {
  const account = 150;

  test('writes need listings_w, reads listings_r, deleting listings_d', async () => {
    const token = await connect(account);
    const id = await draft(token, account);
    const readOnly = await connect(account, 'listings_r');
    const refusedCreate = await createDraft(readOnly, account);
    assert.deepEqual([refusedCreate.statusCode, refusedCreate.json().error], [403, 'insufficient_scope']);
    assert.equal((await call(readOnly, 'GET', `/listings/${id}`)).statusCode, 200);
    assert.equal((await call(await connect(account, 'listings_w'), 'GET', `/listings/${id}`)).statusCode, 403);
    const noDelete = await call(await connect(account, 'listings_r listings_w'), 'DELETE', `/listings/${id}`);
    assert.deepEqual([noDelete.statusCode, noDelete.json().error_description], [403, 'Insufficient scope: listings_d is required']);
  });

  test("another shop's path or listing is 403; a missing key 403; a bad bearer 401", async () => {
    const token = await connect(account);
    const id = await draft(token, account);
    const other = await connect(151);
    assert.equal((await createDraft(other, account)).statusCode, 403);
    assert.equal((await call(other, 'GET', `/listings/${id}`)).statusCode, 403);
    assert.equal((await call(other, 'PUT', `/listings/${id}/inventory`, { products: [] })).statusCode, 403);
    const noKey = await t.app.inject({ method: 'GET', url: `${BASE}/listings/${id}`, headers: { authorization: `Bearer ${token}` } });
    assert.equal(noKey.statusCode, 403);
    const badBearer = await call(`${token}x`, 'GET', `/listings/${id}`);
    assert.deepEqual([badBearer.statusCode, badBearer.json().error], [401, 'invalid_token']);
  });

  test('a revoked grant is 401 invalid_token', async () => {
    const token = await connect(152);
    const revoked = await t.app.inject({ method: 'POST', url: '/sandbox/revoke', payload: { track: 'etsy', account: 152 } });
    assert.equal(revoked.statusCode, 204);
    const response = await call(token, 'GET', `/shops/${shopOf(152)}/listings`);
    assert.deepEqual(response.json(), { error: 'invalid_token', error_description: 'access token is revoked' });
    assert.equal(response.statusCode, 401);
  });
});

describe('rate limits', () => {
  const nodes = () => call(null, 'GET', '/seller-taxonomy/nodes');

  test('every answer carries the limit headers, and the per-second budget answers 429 with retry-after', async () => {
    Object.assign(t.deps.sandbox.etsyLimits, { perSecond: 3 });
    t.clock.advance(1000);
    const answers = [await nodes(), await nodes(), await nodes()];
    assert.deepEqual(
      answers.map((response) => [response.headers['x-limit-per-second'], response.headers['x-remaining-this-second']]),
      [
        ['3', '2'],
        ['3', '1'],
        ['3', '0'],
      ],
    );
    assert.equal(answers[0]!.headers['x-limit-per-day'], String(UNLIMITED.perDay));
    const throttled = await nodes();
    assert.deepEqual([throttled.statusCode, throttled.headers['retry-after'], typeof throttled.json().error], [429, '1', 'string']);
    t.clock.advance(1000);
    assert.equal((await nodes()).statusCode, 200);
  });

  test('the per-day budget rolls over a day, and a refused call spends nothing', async () => {
    t.clock.advance(1000);
    const probe = await nodes();
    const used = UNLIMITED.perDay - Number(probe.headers['x-remaining-today']);
    Object.assign(t.deps.sandbox.etsyLimits, { perDay: used + 1 });
    const last = await nodes();
    assert.deepEqual([last.statusCode, last.headers['x-remaining-today']], [200, '0']);
    const refused = await nodes();
    assert.equal(refused.statusCode, 429);
    assert.ok(Number(refused.headers['retry-after']) > 1);
    t.clock.advance(24 * 3600_000);
    assert.equal((await nodes()).statusCode, 200);
  });
});

describe('faults', () => {
  const account = 160;

  test('error, throttled and refused answer in Etsy words on the listing endpoints', async () => {
    const token = await connect(account);
    t.deps.sandbox.faults.set('etsy', 'listings', 'error');
    assert.deepEqual(
      [(await createDraft(token, account)).statusCode, (await createDraft(token, account)).json()],
      [500, { error: 'Server Error' }],
    );
    t.deps.sandbox.faults.set('etsy', 'inventory', 'throttled', { retryAfterSeconds: 7 });
    const throttled = await call(token, 'GET', '/listings/1/inventory');
    assert.deepEqual([throttled.statusCode, throttled.headers['retry-after']], [429, '7']);
    t.deps.sandbox.faults.set('etsy', 'listing', 'refused');
    assert.equal((await call(token, 'GET', '/listings/1')).json().error, 'invalid_token');
    t.deps.sandbox.faults.set('etsy', 'images', 'passing');
    assert.equal((await call(token, 'GET', `/shops/${shopOf(account)}/listings/1/images`)).statusCode, 503);
  });

  test('ghost: the draft is created although the answer is a 500 Server Error', async () => {
    const token = await connect(161);
    const before = (await inspect(161)).length;
    t.deps.sandbox.faults.set('etsy', 'listings', 'ghost');
    const response = await createDraft(token, 161, { title: 'Ghost mug' });
    assert.deepEqual([response.statusCode, response.json()], [500, { error: 'Server Error' }]);
    const held = await inspect(161);
    assert.equal(held.length, before + 1);
    assert.equal(held.at(-1).title, 'Ghost mug');
    t.deps.sandbox.faults.set('etsy', 'listings', null);
    const drafts = (await call(token, 'GET', `/shops/${shopOf(161)}/listings?state=draft`)).json();
    assert.equal(drafts.results[0].title, 'Ghost mug');
  });

  test('the sandbox fault route takes ghost on a listing endpoint and refuses it on the token endpoint', async () => {
    const set = (endpoint: string) =>
      t.app.inject({ method: 'POST', url: '/sandbox/faults', payload: { track: 'etsy', endpoint, fault: 'ghost' } });
    assert.equal((await set('inventory')).statusCode, 204);
    assert.equal((await set('token')).statusCode, 400);
  });
});

describe('the inspection endpoint', () => {
  /** Which variation property each option of a sku is on: the colour by its value id, the capacity by its text. */
  const variationOf = (colorId: number, color: string, capacity: string) => [
    { property_id: PRIMARY_COLOR, value_ids: [colorId], values: [color] },
    { property_id: CAPACITY, value_ids: [], values: [capacity] },
  ];

  test('answers id, title, state, skus with decimal prices, properties, the images (count and order), publishes, and the last change', async () => {
    const token = await connect(170);
    const id = await draft(token, 170);
    assert.equal((await call(token, 'PUT', `/listings/${id}/inventory`, variedInventory(ids(shopOf(170)).readiness))).statusCode, 200);
    const [listing] = await inspect(170);
    assert.deepEqual(listing, {
      id,
      title: 'Walnut coaster set',
      state: 'draft',
      skus: [
        { sku: 'MUG-BK-12', price: '20.00', quantity: 3, variation: variationOf(1, 'Black', '12') },
        { sku: 'MUG-BK-16', price: '24.00', quantity: 2, variation: variationOf(1, 'Black', '16') },
        { sku: 'MUG-WH-12', price: '20.00', quantity: 0, variation: variationOf(2, 'White', '12') },
        { sku: 'MUG-WH-16', price: '24.00', quantity: 4, variation: variationOf(2, 'White', '16') },
      ],
      // The shop's profiles the draft names (the shop's first of each).
      shipping_profile_id: ids(shopOf(170)).shipping,
      return_policy_id: ids(shopOf(170)).returns,
      readiness_state_id: ids(shopOf(170)).readiness,
      images: 0,
      image_ids: [],
      properties: [],
      publishes: 0,
      fees: 0,
      updated_at: t.clock.now().toISOString(),
    });
    assert.deepEqual(await inspect(171), []);
  });
});
