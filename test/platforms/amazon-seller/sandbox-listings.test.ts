/**
 * The Amazon seller simulator's listings (listings.md §3, DESIGN §10 "Sandbox"), driven over real HTTP as an SP-API
 * client would call it, with an access token from the sandbox's Login with Amazon and no adapter code: product type
 * definitions and their schemas, putListingsItem's INVALID/VALID/ACCEPTED and the processing after it, patches,
 * deletes, searches and their 1,000-SKU limit, the All Listings report, usage plans, refusals, faults, stocked
 * accounts, the seller's own edits and the inspection. One test sends the feeds the engine's limit makes (the adapter's
 * FEED_MESSAGES_MAX), so that limit fails here when it drifts from Amazon's.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { feedBatches } from '../../../src/core/listings/offer-feeds.js';
import { FEED_MESSAGES_MAX } from '../../../src/platforms/amazon-seller/listing-feeds.js';
import { FEED_PROCESSING_MS } from '../../../src/sandbox/amazon-seller/listings-feeds.js';
import { setAmazonSellerRateLimit } from '../../../src/sandbox/amazon-seller/listings-rate-limits.js';
import { SANDBOX_CLIENTS } from '../../../src/sandbox/context.js';
import { amazonSellerGrant } from '../../helpers/amazon-sandbox.js';
import { SANDBOX_REVIEW_MS } from '../../helpers/fixtures.js';
import { createTestApp, injectForm, type TestApp } from '../../helpers/test-app.js';

const SELLER = SANDBOX_CLIENTS.amazonSeller;
const US = 'ATVPDKIKX0DER';

let t: TestApp;
let base: string;
before(async () => {
  t = await createTestApp('pglite', { listen: true });
  base = `${t.deps.sandbox.sandboxUrl}/amazon-seller`;
});
after(() => t.close());
beforeEach(() => {
  setAmazonSellerRateLimit(t.deps.sandbox, 1_000_000);
  t.deps.sandbox.faults.clear();
});

interface Seller {
  token: string;
  sellerId: string;
  account: number;
}

/** A seller through Seller Central's consent page and LWA's token endpoint; `listings` stocks the account. */
const connect = (account: number, listings?: 'stocked' | 'stocked-large'): Promise<Seller> =>
  amazonSellerGrant(t, account, listings ? { listings } : {});

/** One SP-API call with the seller's access token. */
async function sp(seller: Seller | null, method: string, path: string, options: { query?: Record<string, string>; body?: unknown } = {}) {
  const query = options.query ? `?${new URLSearchParams(options.query)}` : '';
  const response = await fetch(`${base}${path}${query}`, {
    method,
    headers: { ...(seller ? { 'x-amz-access-token': seller.token } : {}), 'content-type': 'application/json' },
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : null) as any };
}

const item = (seller: Seller, sku: string) => `/listings/2021-08-01/items/${seller.sellerId}/${encodeURIComponent(sku)}`;
const text = (value: string) => [{ value, language_tag: 'en_US', marketplace_id: US }];
const offer = (price: number) => [{ marketplace_id: US, currency: 'USD', our_price: [{ schedule: [{ value_with_tax: price }] }] }];
const stock = (quantity: number) => [{ fulfillment_channel_code: 'DEFAULT', quantity }];

/** A new product's attributes for KITCHEN in the US store. */
const mug = (overrides: Record<string, unknown> = {}) => ({
  item_name: text('Speckled stoneware mug, 350 ml'),
  brand: text('Sandbox Pottery'),
  product_description: text('A hand-thrown mug with a speckled glaze.'),
  bullet_point: [...text('Holds 350 ml'), ...text('Dishwasher safe')],
  condition_type: [{ value: 'new_new', marketplace_id: US }],
  externally_assigned_product_identifier: [{ type: 'upc', value: '012345678905', marketplace_id: US }],
  material: text('Stoneware'),
  purchasable_offer: offer(24),
  fulfillment_availability: stock(7),
  main_product_image_locator: [{ media_location: 'https://cdn.example.com/mug.jpg', marketplace_id: US }],
  ...overrides,
});

const put = (
  seller: Seller,
  sku: string,
  attributes: Record<string, unknown>,
  query: Record<string, string> = {},
  body: Record<string, unknown> = {},
) =>
  sp(seller, 'PUT', item(seller, sku), {
    query: { marketplaceIds: US, ...query },
    body: { productType: 'KITCHEN', requirements: 'LISTING', attributes, ...body },
  });
const get = (seller: Seller, sku: string, includedData = 'summaries,attributes,issues,offers,fulfillmentAvailability') =>
  sp(seller, 'GET', item(seller, sku), { query: { marketplaceIds: US, includedData } });
const inspect = async (account: number) => (await (await fetch(`${base}/accounts/${account}/listings`)).json()) as Record<string, any>[];

describe('Amazon Product Type Definitions API', () => {
  test('a search finds product types by keyword or by an item name, and every one without either', async () => {
    const seller = await connect(401);
    const search = (query: Record<string, string>) =>
      sp(seller, 'GET', '/definitions/2020-09-01/productTypes', { query: { marketplaceIds: US, ...query } });
    const byKeyword = await search({ keywords: 'mug' });
    assert.equal(byKeyword.status, 200);
    assert.deepEqual(byKeyword.body.productTypes, [{ name: 'KITCHEN', displayName: 'Kitchen', marketplaceIds: [US] }]);
    assert.match(byKeyword.body.productTypeVersion, /^U.{11}=$/);
    const byName = await search({ itemName: 'Organic cotton T-shirt, black' });
    assert.deepEqual(
      byName.body.productTypes.map((type: { name: string }) => type.name),
      ['SHIRT'],
    );
    const all = await search({});
    assert.deepEqual(
      all.body.productTypes.map((type: { name: string }) => type.name),
      ['PRODUCT', 'HOME', 'KITCHEN', 'SHIRT', 'LUGGAGE'],
    );
    assert.equal((await search({ keywords: 'mug', itemName: 'mug' })).body.errors[0].code, 'InvalidInput');
  });

  test('a definition links a JSON Schema the sandbox serves, its checksum the Base64 MD5 of the text, usable by Ajv', async () => {
    const seller = await connect(402);
    const definition = await sp(seller, 'GET', '/definitions/2020-09-01/productTypes/KITCHEN', {
      query: { marketplaceIds: US, requirements: 'LISTING', locale: 'DEFAULT' },
    });
    assert.equal(definition.status, 200, JSON.stringify(definition.body));
    const body = definition.body;
    assert.deepEqual(
      [body.productType, body.displayName, body.requirements, body.requirementsEnforced, body.locale, body.marketplaceIds],
      ['KITCHEN', 'Kitchen', 'LISTING', 'ENFORCED', 'en_US', [US]],
    );
    assert.deepEqual(body.productTypeVersion, { version: body.productTypeVersion.version, latest: true, releaseCandidate: false });
    assert.equal(body.schema.link.verb, 'GET');
    assert.ok(body.propertyGroups.offer.propertyNames.includes('purchasable_offer'));
    const schemaText = await (await fetch(body.schema.link.resource)).text();
    assert.equal(createHash('md5').update(schemaText).digest('base64'), body.schema.checksum);
    const schema = JSON.parse(schemaText);
    // The sales terms are required of every SKU but a family's parent: an `allOf` rule, as Amazon's schemas hold them.
    assert.deepEqual(schema.required, ['item_name', 'brand', 'product_description', 'main_product_image_locator']);
    assert.deepEqual(schema.properties.item_name.selectors, ['marketplace_id', 'language_tag']);
    assert.ok(schema.properties.material.items.properties.value.enum.includes('Stoneware'));
    const validate = new Ajv2019({ strict: false }).compile(schema);
    assert.equal(validate(mug()), true, JSON.stringify(validate.errors));
    assert.equal(validate(mug({ externally_assigned_product_identifier: undefined })), false, 'a barcode or an ASIN is required');
    assert.equal(validate(mug({ purchasable_offer: undefined })), false, 'a SKU that is no parent needs its offer');
    const meta = await fetch(body.metaSchema.link.resource);
    assert.equal(
      createHash('md5')
        .update(await meta.text())
        .digest('base64'),
      body.metaSchema.checksum,
    );
  });

  test("SHIRT's schema has enum attributes, and LISTING_OFFER_ONLY requires the sales terms and an ASIN only", async () => {
    const seller = await connect(403);
    const schemaOf = async (type: string, requirements: string) => {
      const definition = await sp(seller, 'GET', `/definitions/2020-09-01/productTypes/${type}`, {
        query: { marketplaceIds: US, requirements },
      });
      return (await (await fetch(definition.body.schema.link.resource)).json()) as Record<string, any>;
    };
    const shirt = await schemaOf('SHIRT', 'LISTING');
    assert.deepEqual(shirt.properties.size.items.properties.value.enum, ['X-Small', 'Small', 'Medium', 'Large', 'X-Large', 'XX-Large']);
    // Size and colour are what SHIRT's themes vary on: required of every SKU but a family's parent.
    assert.ok(
      shirt.allOf.some((rule: { if?: unknown; then?: { required?: string[] } }) =>
        ['size', 'color'].every((name) => rule.then?.required?.includes(name)),
      ),
    );
    const offerOnly = await schemaOf('PRODUCT', 'LISTING_OFFER_ONLY');
    assert.deepEqual(offerOnly.required, ['merchant_suggested_asin', 'condition_type', 'purchasable_offer', 'fulfillment_availability']);
    const missing = await sp(seller, 'GET', '/definitions/2020-09-01/productTypes/TOASTER', { query: { marketplaceIds: US } });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.errors[0].code, 'NOT_FOUND');
  });
});

describe('Amazon Listings Items API', () => {
  test('a PUT missing a required attribute is INVALID with 90220 and stores nothing', async () => {
    const seller = await connect(411);
    const { condition_type: _, ...attributes } = mug();
    const answer = await put(seller, 'MUG-1', attributes);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.status, 'INVALID');
    assert.deepEqual(answer.body.issues, [
      {
        code: '90220',
        message: "'condition_type' is required but not supplied.",
        severity: 'ERROR',
        attributeNames: ['condition_type'],
        categories: ['MISSING_ATTRIBUTE'],
      },
    ]);
    assert.equal((await get(seller, 'MUG-1')).status, 404);
    const neither = await put(seller, 'MUG-1', mug({ externally_assigned_product_identifier: undefined }));
    assert.deepEqual(neither.body.issues.map((issue: { attributeNames: string[] }) => issue.attributeNames[0]).sort(), [
      'externally_assigned_product_identifier',
      'merchant_suggested_asin',
    ]);
    const wrong = await put(seller, 'MUG-1', mug({ material: text('Granite') }));
    assert.deepEqual(wrong.body.issues[0], {
      code: '4000001',
      message: "The provided value for 'Material' is invalid.",
      severity: 'ERROR',
      attributeNames: ['material'],
      categories: ['INVALID_ATTRIBUTE'],
    });
  });

  test('VALIDATION_PREVIEW answers VALID and stores nothing', async () => {
    const seller = await connect(412);
    const answer = await put(seller, 'MUG-1', mug(), { mode: 'VALIDATION_PREVIEW' });
    assert.equal(answer.body.status, 'VALID');
    assert.deepEqual(answer.body.issues, []);
    assert.equal((await get(seller, 'MUG-1')).status, 404);
    assert.deepEqual(await inspect(412), []);
  });

  test('an ACCEPTED listing is BUYABLE and DISCOVERABLE once the review time has passed', async () => {
    const seller = await connect(413);
    const answer = await put(seller, 'MUG-1', mug(), { includedData: 'identifiers,issues' });
    assert.equal(answer.body.status, 'ACCEPTED');
    assert.match(answer.body.submissionId, /^[0-9a-f]{32}$/);
    const asin = answer.body.identifiers[0].asin as string;
    assert.match(asin, /^B0[0-9A-Z]{8}$/);
    assert.equal(answer.headers.get('x-amzn-ratelimit-limit'), '5000000.0');
    const early = await get(seller, 'MUG-1');
    assert.deepEqual(early.body.summaries[0].status, []);
    t.clock.advance(SANDBOX_REVIEW_MS);
    const live = await get(seller, 'MUG-1');
    assert.equal(live.status, 200);
    const { createdDate, lastUpdatedDate, ...summary } = live.body.summaries[0];
    assert.ok(Date.parse(createdDate) && Date.parse(lastUpdatedDate));
    assert.deepEqual(summary, {
      marketplaceId: US,
      asin,
      productType: 'KITCHEN',
      conditionType: 'new_new',
      status: ['BUYABLE', 'DISCOVERABLE'],
      itemName: 'Speckled stoneware mug, 350 ml',
      mainImage: { link: 'https://cdn.example.com/mug.jpg', height: 1000, width: 1000 },
    });
    assert.deepEqual(live.body.offers, [
      {
        marketplaceId: US,
        offerType: 'B2C',
        price: { currencyCode: 'USD', amount: '24.00' },
        audience: { value: 'ALL', displayName: 'Sell on Amazon' },
      },
    ]);
    assert.deepEqual(live.body.fulfillmentAvailability, [{ fulfillmentChannelCode: 'DEFAULT', quantity: 7 }]);
    assert.deepEqual(live.body.issues, []);
    assert.equal(live.body.attributes.purchasable_offer[0].audience, 'ALL', "the schema's default selector is filled in");
    const [inspected] = await inspect(413);
    assert.deepEqual(
      { id: inspected!.id, state: inspected!.state, skus: inspected!.skus, marketplace_id: inspected!.marketplace_id },
      { id: 'MUG-1', state: 'active', skus: [{ sku: 'MUG-1', price: '24.00', quantity: 7 }], marketplace_id: US },
    );
  });

  test('an item name with the word prohibited is suppressed with an issue after processing', async () => {
    const seller = await connect(414);
    assert.equal((await put(seller, 'MUG-1', mug({ item_name: text('Prohibited mug') }))).body.status, 'ACCEPTED');
    t.clock.advance(SANDBOX_REVIEW_MS);
    const suppressed = await get(seller, 'MUG-1');
    assert.deepEqual(suppressed.body.summaries[0].status, []);
    assert.equal(suppressed.body.issues[0].severity, 'ERROR');
    assert.deepEqual(suppressed.body.issues[0].enforcements, {
      actions: [{ action: 'LISTING_SUPPRESSED' }],
      exemption: { status: 'NOT_EXEMPT' },
    });
    assert.deepEqual(suppressed.body.issues[0].attributeNames, ['item_name']);
    const [inspected] = await inspect(414);
    assert.equal(inspected!.state, 'rejected');
    assert.equal(inspected!.issues.length, 1);
  });

  test('a PATCH of price and quantity shows on GET and the inspection; quantity 0 leaves it DISCOVERABLE only', async () => {
    const seller = await connect(415);
    await put(seller, 'MUG-1', mug());
    t.clock.advance(SANDBOX_REVIEW_MS);
    const patch = (patches: unknown[], query: Record<string, string> = {}) =>
      sp(seller, 'PATCH', item(seller, 'MUG-1'), { query: { marketplaceIds: US, ...query }, body: { productType: 'PRODUCT', patches } });
    const preview = await patch([{ op: 'replace', path: '/attributes/purchasable_offer', value: offer(1) }], {
      mode: 'VALIDATION_PREVIEW',
    });
    assert.equal(preview.body.status, 'VALID', JSON.stringify(preview.body));
    const changed = await patch([
      { op: 'replace', path: '/attributes/purchasable_offer', value: offer(19) },
      { op: 'merge', path: '/attributes/fulfillment_availability', value: [{ fulfillment_channel_code: 'DEFAULT', quantity: 3 }] },
    ]);
    assert.equal(changed.body.status, 'ACCEPTED', JSON.stringify(changed.body));
    const read = await get(seller, 'MUG-1');
    assert.equal(read.body.offers[0].price.amount, '19.00');
    assert.deepEqual(read.body.fulfillmentAvailability, [{ fulfillmentChannelCode: 'DEFAULT', quantity: 3 }]);
    assert.deepEqual(
      read.body.summaries[0].status,
      ['BUYABLE', 'DISCOVERABLE'],
      'buyers see the live listing while the change is processed',
    );
    assert.deepEqual((await inspect(415))[0]!.skus, [{ sku: 'MUG-1', price: '19.00', quantity: 3 }]);
    await patch([
      { op: 'merge', path: '/attributes/fulfillment_availability', value: [{ fulfillment_channel_code: 'DEFAULT', quantity: 0 }] },
    ]);
    t.clock.advance(SANDBOX_REVIEW_MS);
    assert.deepEqual((await get(seller, 'MUG-1')).body.summaries[0].status, ['DISCOVERABLE']);
    assert.equal((await inspect(415))[0]!.state, 'inactive');
  });

  test('a PATCH breaking the schema is INVALID, and one below the top level is refused', async () => {
    const seller = await connect(416);
    await put(seller, 'MUG-1', mug());
    const patch = (patches: unknown[]) =>
      sp(seller, 'PATCH', item(seller, 'MUG-1'), { query: { marketplaceIds: US }, body: { productType: 'KITCHEN', patches } });
    const negative = await patch([{ op: 'replace', path: '/attributes/purchasable_offer', value: offer(-1) }]);
    assert.equal(negative.body.status, 'INVALID');
    assert.equal(negative.body.issues[0].code, '4000001');
    // NOT_ENFORCED: removing a required attribute is not checked on a patch.
    assert.equal((await patch([{ op: 'delete', path: '/attributes/bullet_point' }])).body.status, 'ACCEPTED');
    const nested = await patch([{ op: 'replace', path: '/attributes/item_name/0/value', value: ['x'] }]);
    assert.equal(nested.status, 400);
    assert.equal(nested.body.errors[0].code, 'InvalidInput');
    assert.equal((await patch([])).status, 400);
  });

  test('a DELETE is ACCEPTED and the SKU is then 404 NOT_FOUND', async () => {
    const seller = await connect(417);
    await put(seller, 'MUG-1', mug());
    const removed = await sp(seller, 'DELETE', item(seller, 'MUG-1'), { query: { marketplaceIds: US } });
    assert.deepEqual(
      { ...removed.body, submissionId: undefined },
      { sku: 'MUG-1', status: 'ACCEPTED', submissionId: undefined, issues: [] },
    );
    const gone = await get(seller, 'MUG-1');
    assert.equal(gone.status, 404);
    assert.deepEqual(gone.body, { errors: [{ code: 'NOT_FOUND', message: `SKU 'MUG-1' not found in marketplace ${US}`, details: '' }] });
    assert.deepEqual(await inspect(417), []);
  });

  test('an offer-only listing takes a catalogue ASIN, and an unknown ASIN is INVALID', async () => {
    const seller = await connect(418);
    const terms = (asin: string) => ({
      merchant_suggested_asin: [{ value: asin, marketplace_id: US }],
      condition_type: [{ value: 'new_new', marketplace_id: US }],
      purchasable_offer: offer(12.5),
      fulfillment_availability: stock(4),
    });
    const offered = await put(seller, 'CANDLE-1', terms('B0CATAL003'), {}, { productType: 'PRODUCT', requirements: 'LISTING_OFFER_ONLY' });
    assert.equal(offered.body.status, 'ACCEPTED');
    t.clock.advance(SANDBOX_REVIEW_MS);
    const summary = (await get(seller, 'CANDLE-1')).body.summaries[0];
    assert.deepEqual(
      [summary.asin, summary.itemName, summary.status],
      ['B0CATAL003', 'Scented soy candle, lavender, 200 g', ['BUYABLE', 'DISCOVERABLE']],
    );
    const unknown = await put(seller, 'CANDLE-2', terms('B0ZZZZZZZZ'), {}, { productType: 'PRODUCT', requirements: 'LISTING_OFFER_ONLY' });
    assert.equal(unknown.body.status, 'INVALID');
    assert.deepEqual(unknown.body.issues[0].attributeNames, ['merchant_suggested_asin']);
  });

  test('each region serves its own marketplaces: an EU seller lists in the UK store in pounds', async () => {
    const seller = await amazonSellerGrant(t, 423, {}, 'EU');
    const UK = 'A1F83G8C2ARO7P';
    const ukText = (value: string) => [{ value, language_tag: 'en_GB', marketplace_id: UK }];
    const attributes = {
      ...mug(),
      item_name: ukText('Speckled mug'),
      brand: ukText('Sandbox Pottery'),
      product_description: ukText('A mug.'),
      bullet_point: ukText('Holds 350 ml'),
      material: ukText('Stoneware'),
      condition_type: [{ value: 'new_new', marketplace_id: UK }],
      externally_assigned_product_identifier: [{ type: 'ean', value: '4006381333931', marketplace_id: UK }],
      purchasable_offer: [{ marketplace_id: UK, currency: 'GBP', our_price: [{ schedule: [{ value_with_tax: 18 }] }] }],
      main_product_image_locator: [{ media_location: 'https://cdn.example.com/mug.jpg', marketplace_id: UK }],
    };
    const eu = (method: string, query: Record<string, string>, body?: unknown) =>
      fetch(`${base}/eu/listings/2021-08-01/items/${seller.sellerId}/MUG-UK?${new URLSearchParams(query)}`, {
        method,
        headers: { 'x-amz-access-token': seller.token, 'content-type': 'application/json' },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    const accepted = await eu('PUT', { marketplaceIds: UK }, { productType: 'KITCHEN', attributes });
    assert.equal(((await accepted.json()) as { status: string }).status, 'ACCEPTED');
    const dollars = await eu(
      'PUT',
      { marketplaceIds: UK },
      { productType: 'KITCHEN', attributes: { ...attributes, purchasable_offer: offer(18) } },
    );
    assert.equal(((await dollars.json()) as { status: string }).status, 'INVALID', 'the UK store takes pounds, for its own marketplace');
    assert.equal((await eu('GET', { marketplaceIds: US })).status, 400, 'the US store is not served by the EU endpoint');
    const na = await sp(seller, 'GET', item(seller, 'MUG-UK'), { query: { marketplaceIds: UK } });
    assert.equal(na.status, 403, 'an EU token is refused by the NA endpoint');
    assert.deepEqual(
      (await inspect(423)).map((listing) => [listing.id, listing.marketplace_id, listing.skus[0].price]),
      [['MUG-UK', UK, '18.00']],
    );
  });

  test('the token, the seller in the path and the marketplaces are checked', async () => {
    const seller = await connect(419);
    const other = await connect(420);
    const foreign = await sp(seller, 'GET', item(other, 'MUG-1'), { query: { marketplaceIds: US } });
    assert.equal(foreign.status, 403);
    assert.deepEqual(foreign.body, { errors: [{ code: 'Unauthorized', message: 'Access to requested resource is denied.', details: '' }] });
    assert.equal((await sp(null, 'GET', item(seller, 'MUG-1'), { query: { marketplaceIds: US } })).status, 403);
    for (const marketplaceIds of ['A1F83G8C2ARO7P', 'NOTAMARKET', '']) {
      const refused = await sp(seller, 'GET', item(seller, 'MUG-1'), { query: { marketplaceIds } });
      assert.equal(refused.status, 400, marketplaceIds);
      assert.equal(refused.body.errors[0].code, 'InvalidInput');
    }
    const twice = await put(seller, 'MUG-1', mug(), { marketplaceIds: `${US},A2EUQ1WTGCTBG2` });
    assert.equal(twice.status, 400, 'putListingsItem takes one marketplace');
  });

  test("a revoked or expired access token is 403 'Access to requested resource is denied.' with the reason in details", async () => {
    const seller = await connect(425);
    const denied = (details: string) => ({
      errors: [{ code: 'Unauthorized', message: 'Access to requested resource is denied.', details }],
    });
    const revoked = await t.app.inject({ method: 'POST', url: '/sandbox/revoke', payload: { track: 'amazon-seller', account: 425 } });
    assert.equal(revoked.statusCode, 204);
    const refused = await get(seller, 'MUG-1');
    assert.deepEqual([refused.status, refused.body], [403, denied('The access token you provided is revoked, malformed or invalid.')]);

    const later = await connect(426);
    t.clock.advance(2 * 3600_000);
    const expired = await get(later, 'MUG-1');
    assert.deepEqual([expired.status, expired.body], [403, denied('The access token you provided has expired.')]);
    const participations = await sp(later, 'GET', '/sellers/v1/marketplaceParticipations');
    assert.deepEqual([participations.status, participations.body], [403, denied('The access token you provided has expired.')]);
  });

  test('a spent usage plan answers 429 QuotaExceeded with x-amzn-RateLimit-Limit, and refills with time', async () => {
    const seller = await connect(421);
    setAmazonSellerRateLimit(t.deps.sandbox, 1);
    const calls = async () => (await (await fetch(`${t.deps.sandbox.sandboxUrl}/calls`)).json()) as Record<string, number>;
    const before = await calls();
    const answers = [];
    for (let i = 0; i < 11; i++) answers.push(await get(seller, 'MUG-1'));
    assert.deepEqual(
      answers.map((each) => each.status),
      [...Array(10).fill(404), 429],
    );
    // The sandbox counts the 429, and the route that answered it.
    const after = await calls();
    const route = 'amazon-seller:throttled GET /listings/2021-08-01/items/:sellerId/:sku';
    assert.deepEqual(
      [after['amazon-seller:throttled']! - (before['amazon-seller:throttled'] ?? 0), after[route]! - (before[route] ?? 0)],
      [1, 1],
    );
    const throttled = answers[10]!;
    assert.equal(throttled.headers.get('x-amzn-ratelimit-limit'), '5.0');
    assert.deepEqual(throttled.body, {
      errors: [{ code: 'QuotaExceeded', message: 'You exceeded your quota for the requested resource.', details: '' }],
    });
    t.clock.advance(1_000);
    const refilled = [];
    for (let i = 0; i < 6; i++) refilled.push((await get(seller, 'MUG-1')).status);
    assert.deepEqual(refilled, [404, 404, 404, 404, 404, 429], 'five tokens a second');
    const patches = [];
    for (let i = 0; i < 6; i++)
      patches.push(
        (await sp(seller, 'PATCH', item(seller, 'MUG-1'), { query: { marketplaceIds: US }, body: { productType: 'PRODUCT', patches: [] } }))
          .status,
      );
    assert.deepEqual(patches, [400, 400, 400, 400, 400, 429], "patchListingsItem's burst is 5");
    const limits = await t.app.inject({ method: 'POST', url: '/sandbox/amazon-seller/limits', payload: { multiplier: 0 } });
    assert.equal(limits.statusCode, 400);
  });

  test('faults set on the listing endpoints answer in SP-API words; ghost writes and answers 500', async () => {
    const seller = await connect(422);
    const fault = (endpoint: string, value: string) =>
      t.app.inject({ method: 'POST', url: '/sandbox/faults', payload: { track: 'amazon-seller', endpoint, fault: value, retry_after: 3 } });
    assert.equal((await fault('listing', 'throttled')).statusCode, 204);
    const throttled = await put(seller, 'MUG-1', mug());
    assert.equal(throttled.status, 429);
    assert.equal(throttled.headers.get('retry-after'), '3');
    assert.equal(throttled.body.errors[0].code, 'QuotaExceeded');
    await fault('listing', 'ghost');
    const ghost = await put(seller, 'MUG-1', mug());
    assert.equal(ghost.status, 500);
    assert.equal(ghost.body.errors[0].code, 'InternalFailure');
    await fault('listing', 'none');
    assert.equal((await get(seller, 'MUG-1')).status, 200, 'the ghost write happened');
    await fault('listings', 'passing');
    const search = await sp(seller, 'GET', `/listings/2021-08-01/items/${seller.sellerId}`, { query: { marketplaceIds: US } });
    assert.equal(search.status, 503);
    const calls = (await (await fetch(`${t.deps.sandbox.sandboxUrl}/calls`)).json()) as Record<string, number>;
    assert.ok((calls['amazon-seller:putListingsItem'] ?? 0) >= 2);
  });
});

describe('Amazon listings already on the account', () => {
  test("Seller Central's consent page offers existing listings, and refuses an unknown choice", async () => {
    const params = new URLSearchParams({
      application_id: SELLER.appId,
      state: 's',
      redirect_uri: t.deps.sandbox.callbackUrl('amazon-seller'),
    });
    const page = await t.app.inject({ method: 'GET', url: `/sandbox/amazon-seller/apps/authorize/consent?${params}` });
    assert.match(page.body, /<select id="listings" name="listings">/);
    assert.match(page.body, /value="stocked-large">1206 listings/);
    const refused = await injectForm(t, '/sandbox/amazon-seller/apps/authorize/consent', {
      ...Object.fromEntries(params),
      decision: 'allow',
      account: '430',
      listings: 'lots',
    });
    assert.equal(refused.statusCode, 400);
  });

  test('a stocked account holds six listings with real attributes, in their states, that round-trip through PUT', async () => {
    const seller = await connect(431, 'stocked');
    const listings = await inspect(431);
    assert.deepEqual(
      listings.map((listing) => [listing.id, listing.state]),
      [
        ['MUG-SPECKLE', 'active'],
        ['TEE-BLACK-M', 'active'],
        ['CANDLE-CEDAR', 'inactive'],
        ['BOTTLE-OFFER', 'active'],
        ['SIGN-TIN', 'rejected'],
        ['BAG-WEEKENDER', 'active'],
      ],
    );
    const mugListing = await get(seller, 'MUG-SPECKLE');
    const attributes = mugListing.body.attributes;
    assert.equal(attributes.item_name[0].value, 'Stoneware mug with a speckled glaze, 350 ml');
    assert.match(attributes.product_description[0].value, /Stoneware mug/);
    const image = attributes.main_product_image_locator[0].media_location as string;
    assert.ok(image.startsWith(`${base}/images/`));
    assert.equal((await fetch(image)).headers.get('content-type'), 'image/png');
    const again = await put(seller, 'MUG-SPECKLE', attributes, { mode: 'VALIDATION_PREVIEW' });
    assert.equal(again.body.status, 'VALID', JSON.stringify(again.body.issues));
    // Consenting again does not stock twice.
    await connect(431, 'stocked');
    assert.equal((await inspect(431)).length, 6);
  });

  test("the seller's own edit changes the listing at once, as GET and the inspection show", async () => {
    const seller = await connect(432, 'stocked');
    const edit = await t.app.inject({
      method: 'PATCH',
      url: '/sandbox/amazon-seller/accounts/432/listings/MUG-SPECKLE',
      payload: { price: '30.00', quantity: 2, title: 'Speckled mug, large' },
    });
    assert.equal(edit.statusCode, 200, edit.body);
    assert.deepEqual(edit.json().skus, [{ sku: 'MUG-SPECKLE', price: '30.00', quantity: 2 }]);
    const read = await get(seller, 'MUG-SPECKLE');
    assert.equal(read.body.summaries[0].itemName, 'Speckled mug, large');
    assert.equal(read.body.offers[0].price.amount, '30.00');
    assert.deepEqual(read.body.summaries[0].status, ['BUYABLE', 'DISCOVERABLE']);
    const bad = await t.app.inject({
      method: 'PATCH',
      url: '/sandbox/amazon-seller/accounts/432/listings/MUG-SPECKLE',
      payload: { price: 'free' },
    });
    assert.equal(bad.statusCode, 400);
  });

  test('a search pages 20 at a time through at most 1,000 of 1,206 SKUs; the All Listings report has them all', async () => {
    const seller = await connect(433, 'stocked-large');
    const search = (query: Record<string, string>) =>
      sp(seller, 'GET', `/listings/2021-08-01/items/${seller.sellerId}`, {
        query: { marketplaceIds: US, pageSize: '20', sortBy: 'sku', sortOrder: 'ASC', ...query },
      });
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await search(token ? { pageToken: token } : {});
      assert.equal(page.status, 200, JSON.stringify(page.body));
      assert.equal(page.body.numberOfResults, 1206);
      seen.push(...page.body.items.map((each: { sku: string }) => each.sku));
      token = page.body.pagination?.nextToken;
      pages += 1;
    } while (token);
    assert.equal(pages, 50);
    assert.equal(seen.length, 1000);
    assert.equal(new Set(seen).size, 1000);
    assert.equal(seen[0], 'BAG-WEEKENDER');
    const past = await search({ pageToken: Buffer.from(JSON.stringify({ o: 1000, b: 'x' })).toString('base64url') });
    assert.equal(past.status, 400);
    const first = await search({});
    const mismatched = await search({ pageToken: first.body.pagination.nextToken, sortOrder: 'DESC' });
    assert.equal(mismatched.status, 400);
    assert.equal(mismatched.body.errors[0].message, "Search parameters do not match the provided 'pageToken'.");
    assert.equal((await search({ pageSize: '21' })).status, 400);
    const buyable = await search({ withStatus: 'BUYABLE', identifiers: 'ITEM-0007,MUG-SPECKLE,CANDLE-CEDAR', identifiersType: 'SKU' });
    assert.deepEqual(
      buyable.body.items.map((each: { sku: string }) => each.sku),
      ['ITEM-0007', 'MUG-SPECKLE'],
    );

    const created = await sp(seller, 'POST', '/reports/2021-06-30/reports', {
      body: { reportType: 'GET_MERCHANT_LISTINGS_ALL_DATA', marketplaceIds: [US] },
    });
    assert.equal(created.status, 202);
    const report = await sp(seller, 'GET', `/reports/2021-06-30/reports/${created.body.reportId}`);
    assert.equal(report.body.processingStatus, 'DONE');
    const document = await sp(seller, 'GET', `/reports/2021-06-30/documents/${report.body.reportDocumentId}`);
    const rows = (await (await fetch(document.body.url)).text()).trimEnd().split('\n');
    const header = rows[0]!.split('\t');
    assert.deepEqual(header.slice(0, 7), ['item-name', 'item-description', 'listing-id', 'seller-sku', 'price', 'quantity', 'open-date']);
    assert.equal(header.at(-1), 'status');
    assert.equal(rows.length, 1 + 1206);
    const mugRow = Object.fromEntries(header.map((name, i) => [name, rows[1]!.split('\t')[i]]));
    assert.deepEqual(
      [mugRow['seller-sku'], mugRow.price, mugRow.quantity, mugRow.status, mugRow['product-id-type']],
      ['MUG-SPECKLE', '28.00', '12', 'Active', '3'],
    );
    assert.match(mugRow.asin1!, /^B0[0-9A-Z]{8}$/);
    t.clock.advance(5 * 60_000 + 1);
    assert.equal((await fetch(document.body.url)).status, 403, 'the document URL lasts 5 minutes');
  });
});

describe('Amazon variation families (DESIGN §15)', () => {
  /** A family's parent: the product's facts, `parentage_level: parent` and the theme; no barcode, no offer. */
  const parent = (theme = 'COLOR') => {
    const {
      externally_assigned_product_identifier: _,
      purchasable_offer: __,
      fulfillment_availability: ___,
      condition_type: ____,
      ...facts
    } = mug();
    return { ...facts, parentage_level: [{ value: 'parent', marketplace_id: US }], variation_theme: [{ name: theme }] };
  };
  /** A child of `parentSku` varying on its colour (Amazon's own example of a child: issue 5166). */
  const child = (parentSku: string, color: string, overrides: Record<string, unknown> = {}) =>
    mug({
      parentage_level: [{ value: 'child', marketplace_id: US }],
      child_parent_sku_relationship: [{ child_relationship_type: 'variation', parent_sku: parentSku, marketplace_id: US }],
      variation_theme: [{ name: 'COLOR' }],
      color: text(color),
      ...overrides,
    });

  test("a product type's schema names its variation themes, and a definition groups the family's attributes", async () => {
    const seller = await connect(440);
    const definition = await sp(seller, 'GET', '/definitions/2020-09-01/productTypes/KITCHEN', {
      query: { marketplaceIds: US, requirements: 'LISTING' },
    });
    assert.deepEqual(definition.body.propertyGroups.variations.propertyNames, [
      'parentage_level',
      'child_parent_sku_relationship',
      'variation_theme',
    ]);
    const schema = (await (await fetch(definition.body.schema.link.resource)).json()) as Record<string, any>;
    assert.deepEqual(schema.properties.variation_theme.items.properties.name.enum, ['COLOR', 'SIZE', 'SIZE/COLOR']);
    const product = await sp(seller, 'GET', '/definitions/2020-09-01/productTypes/PRODUCT', { query: { marketplaceIds: US } });
    const generic = (await (await fetch(product.body.schema.link.resource)).json()) as Record<string, any>;
    assert.equal(generic.properties.variation_theme, undefined, 'PRODUCT has no variations');
  });

  test('a parent put first takes its children; the inspection and getListingsItem show the family', async () => {
    const seller = await connect(441);
    const made = await put(seller, 'MUG-PARENT', parent());
    assert.equal(made.body.status, 'ACCEPTED', JSON.stringify(made.body));
    for (const [sku, color] of [
      ['MUG-W', 'White'],
      ['MUG-B', 'Blue'],
    ] as const)
      assert.equal((await put(seller, sku, child('MUG-PARENT', color))).body.status, 'ACCEPTED');
    t.clock.advance(SANDBOX_REVIEW_MS);
    const held = await inspect(441);
    assert.deepEqual(
      held.map((each) => [each.id, each.state, each.parent_sku ?? null, each.variation_theme ?? null, each.skus[0].price]),
      [
        // A parent is never buyable: once discoverable it is as live as a parent gets.
        ['MUG-PARENT', 'active', null, 'COLOR', null],
        ['MUG-W', 'active', 'MUG-PARENT', null, '24.00'],
        ['MUG-B', 'active', 'MUG-PARENT', null, '24.00'],
      ],
    );
    const relationships = 'summaries,relationships';
    const top = await get(seller, 'MUG-PARENT', relationships);
    assert.deepEqual(top.body.summaries[0].status, ['DISCOVERABLE'], 'a parent has no offer: it is never buyable');
    assert.deepEqual(top.body.relationships, [
      {
        marketplaceId: US,
        relationships: [{ type: 'VARIATION', childSkus: ['MUG-W', 'MUG-B'], variationTheme: { attributes: ['color'], theme: 'COLOR' } }],
      },
    ]);
    const white = await get(seller, 'MUG-W', relationships);
    assert.deepEqual(white.body.relationships[0].relationships, [
      { type: 'VARIATION', parentSkus: ['MUG-PARENT'], variationTheme: { attributes: ['color'], theme: 'COLOR' } },
    ]);
    const search = await sp(seller, 'GET', `/listings/2021-08-01/items/${seller.sellerId}`, {
      query: { marketplaceIds: US, variationParentSku: 'MUG-PARENT', sortBy: 'sku', sortOrder: 'ASC' },
    });
    assert.deepEqual(
      search.body.items.map((each: { sku: string }) => each.sku),
      ['MUG-B', 'MUG-W'],
    );
  });

  test('a child whose parent SKU Amazon does not hold is INVALID, and nothing is stored', async () => {
    const seller = await connect(442);
    const answer = await put(seller, 'MUG-W', child('NO-SUCH-PARENT', 'White'));
    assert.equal(answer.body.status, 'INVALID');
    assert.deepEqual(answer.body.issues[0].attributeNames, ['child_parent_sku_relationship']);
    assert.match(answer.body.issues[0].message, /NO-SUCH-PARENT/);
    assert.equal((await get(seller, 'MUG-W')).status, 404);
    // A standalone SKU is no parent either.
    assert.equal((await put(seller, 'MUG-1', mug())).body.status, 'ACCEPTED');
    assert.equal((await put(seller, 'MUG-W', child('MUG-1', 'White'))).body.status, 'INVALID');
  });

  test("a child with another theme than its parent's, or without the attribute its theme varies on, is INVALID", async () => {
    const seller = await connect(443);
    assert.equal((await put(seller, 'MUG-PARENT', parent('COLOR'))).body.status, 'ACCEPTED');
    const sized = await put(seller, 'MUG-S', child('MUG-PARENT', 'White', { variation_theme: [{ name: 'SIZE' }], size: text('S') }));
    assert.equal(sized.body.status, 'INVALID');
    assert.deepEqual(sized.body.issues[0].attributeNames, ['variation_theme']);
    const colourless = await put(seller, 'MUG-W', child('MUG-PARENT', 'White', { color: undefined }));
    assert.equal(colourless.body.status, 'INVALID');
    assert.deepEqual(
      colourless.body.issues.map((issue: { code: string; attributeNames: string[] }) => [issue.code, issue.attributeNames[0]]),
      [['90220', 'color']],
    );
    const unknownTheme = await put(seller, 'MUG-X', child('MUG-PARENT', 'White', { variation_theme: [{ name: 'FLAVOR' }] }));
    assert.equal(unknownTheme.body.status, 'INVALID', 'a theme the product type does not offer');
    assert.deepEqual(unknownTheme.body.issues[0].attributeNames, ['variation_theme']);
  });

  test('a parent without its theme is INVALID; a SKU that is no parent still needs its offer and a barcode or an ASIN', async () => {
    const seller = await connect(444);
    const themeless = await put(seller, 'MUG-PARENT', { ...parent(), variation_theme: undefined });
    assert.equal(themeless.body.status, 'INVALID');
    assert.deepEqual(themeless.body.issues[0].attributeNames, ['variation_theme']);
    const { parentage_level: _, variation_theme: __, ...plain } = parent();
    const offerless = await put(seller, 'MUG-1', plain);
    assert.equal(offerless.body.status, 'INVALID');
    assert.deepEqual(offerless.body.issues.map((issue: { attributeNames: string[] }) => issue.attributeNames[0]).sort(), [
      'condition_type',
      'externally_assigned_product_identifier',
      'fulfillment_availability',
      'merchant_suggested_asin',
      'purchasable_offer',
    ]);
  });
});

/** A JSON_LISTINGS_FEED of the messages through the Feeds API: a document asked for, uploaded, the feed created and processed. */
async function processedFeed(seller: Seller, messages: readonly Record<string, unknown>[]) {
  const made = await sp(seller, 'POST', '/feeds/2021-06-30/documents', { body: { contentType: 'application/json; charset=UTF-8' } });
  assert.equal(made.status, 201);
  const document = JSON.stringify({ header: { sellerId: seller.sellerId, version: '2.0' }, messages });
  const uploaded = await fetch(made.body.url, {
    method: 'PUT',
    headers: { 'content-type': 'application/json; charset=UTF-8' },
    body: document,
  });
  assert.equal(uploaded.status, 200, await uploaded.text());
  const feed = await sp(seller, 'POST', '/feeds/2021-06-30/feeds', {
    body: { feedType: 'JSON_LISTINGS_FEED', marketplaceIds: [US], inputFeedDocumentId: made.body.feedDocumentId },
  });
  assert.equal(feed.status, 202, JSON.stringify(feed.body));
  t.clock.advance(FEED_PROCESSING_MS + 1);
  const read = await sp(seller, 'GET', `/feeds/2021-06-30/feeds/${feed.body.feedId}`);
  return { bytes: document.length, feed: read.body as { processingStatus: string; resultFeedDocumentId?: string } };
}

/** The processing report's summary of a processed feed. */
async function summaryOf(seller: Seller, feed: { resultFeedDocumentId?: string }) {
  const report = await sp(seller, 'GET', `/feeds/2021-06-30/documents/${feed.resultFeedDocumentId}`);
  return ((await (await fetch(report.body.url)).json()) as { summary: { messagesProcessed: number } }).summary;
}

test('a feed document larger than a request to the API may be (64 KB) uploads whole, as S3 takes it, and its feed is processed', async () => {
  const seller = await connect(41);
  // A price change of 3,000 SKUs: about 700 KB, as a catalogue-wide change of Storelink's makes.
  const messages = Array.from({ length: 3_000 }, (_, i) => ({
    messageId: i + 1,
    sku: `BULK-${i}`,
    operationType: 'PATCH',
    productType: 'KITCHEN',
    patches: [{ op: 'replace', path: '/attributes/purchasable_offer', value: offer(25) }],
  }));
  const { bytes, feed } = await processedFeed(seller, messages);
  assert.ok(bytes > 10 * t.deps.config.bodyLimitBytes, `${bytes} bytes`);
  assert.equal(feed.processingStatus, 'DONE', JSON.stringify(feed));
  assert.equal((await summaryOf(seller, feed)).messagesProcessed, 3_000);
});

test("a feed of 25,001 messages ends FATAL; Storelink's feeds of that burst, at its adapter's limit, are each processed", async () => {
  const seller = await connect(42);
  // Deletes of SKUs the seller does not have: the cheapest message the sandbox processes, as the limit counts messages.
  const messages = Array.from({ length: 25_001 }, (_, i) => ({
    messageId: i + 1,
    sku: `GONE-${i}`,
    operationType: 'DELETE',
    productType: 'KITCHEN',
  }));
  assert.equal((await processedFeed(seller, messages)).feed.processingStatus, 'FATAL');
  const batches = feedBatches(messages, () => 1, FEED_MESSAGES_MAX);
  const processed: number[] = [];
  for (const batch of batches) {
    const { feed } = await processedFeed(
      seller,
      batch.map((message, i) => ({ ...message, messageId: i + 1 })),
    );
    assert.equal(feed.processingStatus, 'DONE', JSON.stringify(feed));
    processed.push((await summaryOf(seller, feed)).messagesProcessed);
  }
  assert.deepEqual(processed, [25_000, 1]);
});
