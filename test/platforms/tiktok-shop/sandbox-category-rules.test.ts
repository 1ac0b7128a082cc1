/**
 * The TikTok Shop simulator's category rules beyond attributes (listings.md §2.3, Get Category Rules) and the seller's
 * own lists behind them, driven over real HTTP as a platform client would call them: a certification always required
 * (baby bottles) or by a condition (a leather tote bag), a size chart required (hoodies), the EU's responsible person
 * and manufacturer required in a shop of a seller local to Germany; Search Responsible Persons, Search Manufacturers
 * and Search Size Charts at their documented paths and fields, signed, without a `shop_cipher`, paced; Create Product
 * and Check Product Listing refusing a body without what the rules require, in TikTok's codes.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { SANDBOX_CLIENTS } from '../../../src/sandbox/context.js';
import { setTikTokShopRateLimit } from '../../../src/sandbox/tiktok-shop/product-store.js';
import { TIKTOK_CATEGORY } from '../../helpers/fixtures.js';
import { createTestApp, injectForm, type TestApp } from '../../helpers/test-app.js';
import { type SandboxShop, sandboxShopsOf, signedCall, uploadImage } from '../../helpers/tiktok-sandbox.js';

const { MUGS, BABY_BOTTLES, HOODIES, TOTE_BAGS } = TIKTOK_CATEGORY;
const RP_SEARCH = '/product/202501/compliance/responsible_persons/search';
const MANUFACTURER_SEARCH = '/product/202501/compliance/manufacturers/search';
const SIZE_CHART_SEARCH = '/product/202407/sizecharts/search';

let t: TestApp;
before(async () => {
  t = await createTestApp('pglite', { listen: true });
});
after(() => t.close());
beforeEach(() => setTikTokShopRateLimit(t.deps.sandbox, 1_000_000));

const call = (shop: SandboxShop, method: string, path: string, payload?: object, query?: Record<string, string>) =>
  signedCall(t, shop, method, path, payload, query ? { query } : {});
/** A seller's own call: no `shop_cipher`. */
const sellerCall = (shop: SandboxShop, path: string, payload: object, query: Record<string, string> = { page_size: '100' }) =>
  signedCall(t, { token: shop.token, cipher: null }, 'POST', path, payload, { query });
const localShop = async (account: number, market = 'DE') => (await sandboxShopsOf(t, account, { market }))[0]!;
const rules = async (shop: SandboxShop, category: string) =>
  (await call(shop, 'GET', `/product/202309/categories/${category}/rules`)).body.data as Record<string, any>;

/** A product body for the shop in `category`, with one hosted image, priced in its market's currency. */
async function body(shop: SandboxShop, category: string, overrides: Record<string, unknown> = {}) {
  const currency = shop.region === 'GB' ? 'GBP' : 'EUR';
  return {
    title: 'A sandbox product with a long enough title',
    description: '<p>A product.</p>',
    category_id: category,
    main_images: [{ uri: await uploadImage(t, shop) }],
    skus: [{ seller_sku: 'ITEM-1', price: { amount: '24.00', currency }, inventory: [{ warehouse_id: `${shop.id}001`, quantity: 7 }] }],
    package_weight: { value: '0.4', unit: 'KILOGRAM' },
    package_dimensions: { length: '12', width: '12', height: '10', unit: 'CENTIMETER' },
    product_attributes: category === MUGS ? [{ id: '100392', values: [{ id: '1001533' }] }] : [],
    ...overrides,
  };
}

const create = async (shop: SandboxShop, payload: object) => (await call(shop, 'POST', '/product/202309/products', payload)).body;

describe('the category rules a shop is given', () => {
  test("a Germany-local seller's shop: one LOCAL DE shop whose rules require a responsible person and a manufacturer", async () => {
    const shops = await sandboxShopsOf(t, 501, { market: 'DE' });
    assert.deepEqual(
      shops.map((shop) => [shop.region, shop.seller_type]),
      [['DE', 'LOCAL']],
    );
    const de = await rules(shops[0]!, MUGS);
    assert.deepEqual([de.responsible_person, de.manufacturer], [{ is_required: true }, { is_required: true }]);
    const gb = await rules((await sandboxShopsOf(t, 501))[0]!, MUGS);
    assert.deepEqual([gb.responsible_person, gb.manufacturer], [{ is_required: false }, { is_required: false }]);
  });

  test("a cross-border seller's German shop requires neither (the EU's rules are for local sellers)", async () => {
    const shops = await sandboxShopsOf(t, 502, { shops: '3' });
    const de = shops.find((shop) => shop.region === 'DE')!;
    assert.equal(de.seller_type, 'CROSS_BORDER');
    assert.equal((await rules(de, MUGS)).responsible_person.is_required, false);
  });

  test('hoodies require a size chart, baby bottles a certification always, tote bags one for leather', async () => {
    const shop = (await sandboxShopsOf(t, 503))[0]!;
    assert.deepEqual((await rules(shop, HOODIES)).size_chart, { is_supported: true, is_required: true });
    assert.deepEqual((await rules(shop, MUGS)).size_chart, { is_supported: false, is_required: false });
    const [bottle] = (await rules(shop, BABY_BOTTLES)).product_certifications;
    assert.deepEqual([bottle.id, bottle.name, bottle.is_required], ['700102', 'Baby feeding product safety test report', true]);
    const [leather] = (await rules(shop, TOTE_BAGS)).product_certifications;
    assert.equal(leather.is_required, false);
    assert.deepEqual(leather.requirement_conditions, [
      { condition_type: 'VALUE_ID_MATCH', attribute_id: '100392', attribute_value_id: '1001539' },
    ]);
  });

  test('the consent page refuses a market it does not offer, and a local seller with more than one shop', async () => {
    for (const choices of [{ market: 'XX' }, { market: 'DE', shops: '2' }] as Record<string, string>[]) {
      const response = await injectForm(t, '/sandbox/tiktok-shop/authorize', {
        service_id: SANDBOX_CLIENTS.tiktokShop.serviceId,
        decision: 'allow',
        account: '504',
        ...choices,
      });
      assert.equal(response.statusCode, 400, JSON.stringify(choices));
    }
  });
});

describe("the seller's own lists", () => {
  test('Search Responsible Persons answers the documented fields, a page at a time, filtered by ids', async () => {
    const shop = await localShop(511);
    const all = await sellerCall(shop, RP_SEARCH, {});
    assert.equal(all.body.code, 0, JSON.stringify(all.body));
    const persons = all.body.data.responsible_persons as Record<string, any>[];
    assert.equal(all.body.data.total_count, 2);
    for (const person of persons) {
      assert.match(person.id, /^[0-9a-f]{24}$/);
      const [profile] = person.regional_profiles;
      assert.equal(profile.locale, 'de-DE', "the seller's own locale when none is asked");
      assert.deepEqual(Object.keys(profile).sort(), ['address', 'email', 'locale', 'name', 'phone_number']);
      assert.deepEqual(Object.keys(profile.phone_number).sort(), ['country_code', 'local_number']);
      assert.equal(profile.address.country, 'DE');
    }
    const first = await sellerCall(shop, RP_SEARCH, {}, { page_size: '1' });
    assert.deepEqual(
      (first.body.data.responsible_persons as { id: string }[]).map((p) => p.id),
      [persons[0]!.id],
    );
    const token = first.body.data.next_page_token as string;
    assert.notEqual(token, '');
    const second = await sellerCall(shop, RP_SEARCH, {}, { page_size: '1', page_token: token });
    assert.deepEqual(
      (second.body.data.responsible_persons as { id: string }[]).map((p) => p.id),
      [persons[1]!.id],
    );
    assert.equal(second.body.data.next_page_token, '');
    const one = await sellerCall(shop, RP_SEARCH, { responsible_person_ids: [persons[1]!.id], locales: ['en-IE'] });
    const [found] = one.body.data.responsible_persons as Record<string, any>[];
    assert.deepEqual([found!.id, found!.regional_profiles[0].locale], [persons[1]!.id, 'en-IE']);
  });

  test('Search Manufacturers answers the documented fields', async () => {
    const shop = await localShop(512);
    const answer = await sellerCall(shop, MANUFACTURER_SEARCH, { keyword: 'ceramics' });
    assert.equal(answer.body.code, 0);
    const [maker] = answer.body.data.manufacturers as Record<string, any>[];
    assert.match(maker!.id, /^[0-9a-f]{24}$/);
    assert.deepEqual(Object.keys(maker!.regional_profiles[0]).sort(), [
      'address',
      'email',
      'locale',
      'name',
      'phone_number',
      'registered_trade_name',
    ]);
    assert.equal(maker!.regional_profiles[0].name, 'Sandbox Ceramics Manufacturing GmbH');
  });

  test('Search Size Charts answers the seller’s templates: template_id, template_name, images', async () => {
    const shop = (await sandboxShopsOf(t, 513))[0]!;
    const answer = await sellerCall(shop, SIZE_CHART_SEARCH, {});
    assert.equal(answer.body.code, 0);
    const charts = answer.body.data.size_chart as Record<string, any>[];
    assert.deepEqual(
      charts.map((chart) => chart.template_name),
      ['Unisex tops', "Women's tops"],
    );
    assert.match(charts[0]!.template_id, /^[0-9]{19}$/);
    assert.deepEqual(Object.keys(charts[0]!.images[0]).sort(), ['locale', 'uri', 'url']);
  });

  test("the searches are the seller's: a shop_cipher is TikTok's unexpected identifier, a wrong signature 106001", async () => {
    const shop = await localShop(514);
    for (const path of [RP_SEARCH, MANUFACTURER_SEARCH, SIZE_CHART_SEARCH]) {
      const withCipher = await call(shop, 'POST', path, {}, { page_size: '10' });
      assert.deepEqual(
        [withCipher.body.code, withCipher.body.message],
        [36009004, 'Unexpected identifier. The `shop_cipher` query parameter is not required for this request.'],
        path,
      );
      const forged = await signedCall(
        t,
        { token: shop.token, cipher: null },
        'POST',
        path,
        {},
        { badSign: true, query: { page_size: '10' } },
      );
      assert.equal(forged.body.code, 106001, path);
    }
  });

  test('page_size is required (38023047, 12019109); a cross-border seller is refused the EU searches (38023050)', async () => {
    const shop = await localShop(515);
    assert.equal((await sellerCall(shop, RP_SEARCH, {}, {})).body.code, 38023047);
    assert.equal((await sellerCall(shop, SIZE_CHART_SEARCH, {}, { page_size: '0' })).body.code, 12019109);
    const [crossBorder] = await sandboxShopsOf(t, 515, { shops: '2' });
    const refused = await sellerCall(crossBorder!, MANUFACTURER_SEARCH, {});
    assert.deepEqual([refused.body.code, refused.body.message], [38023050, 'Operation is not supported for global seller']);
  });

  test('a spent budget answers 429 with 36009002, per seller and API', async () => {
    const shop = await localShop(516);
    setTikTokShopRateLimit(t.deps.sandbox, 1);
    const answers = [
      await sellerCall(shop, RP_SEARCH, {}),
      await sellerCall(shop, RP_SEARCH, {}),
      await sellerCall(shop, SIZE_CHART_SEARCH, {}),
    ];
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [200, 429, 200],
    );
    assert.equal(answers[1]!.body.code, 36009002);
  });
});

describe('Create Product and Check Product Listing hold a body to the rules', () => {
  test('a hoodie without a size chart is refused (12052673), one of an unknown template too (12052128), one of the seller’s is kept', async () => {
    const shop = (await sandboxShopsOf(t, 521))[0]!;
    const fabric = { product_attributes: [{ id: '100410', values: [{ id: '1002001' }] }] };
    const without = await create(shop, await body(shop, HOODIES, fabric));
    assert.deepEqual([without.code, without.message], [12052673, 'Product sizechart image is required']);
    const unknown = await create(shop, await body(shop, HOODIES, { ...fabric, size_chart: { template: { id: '7362027385800000099' } } }));
    assert.deepEqual([unknown.code, unknown.message], [12052128, 'Size chart not found']);
    const charts = (await sellerCall(shop, SIZE_CHART_SEARCH, {})).body.data.size_chart as { template_id: string }[];
    const templateId = charts[1]!.template_id;
    const created = await create(shop, await body(shop, HOODIES, { ...fabric, size_chart: { template: { id: templateId } } }));
    assert.equal(created.code, 0, JSON.stringify(created));
    const product = (await call(shop, 'GET', `/product/202309/products/${created.data.product_id}`)).body.data;
    assert.deepEqual(product.size_chart, { template: { id: templateId } });
    const inspected = (await (await fetch(`${t.deps.sandbox.sandboxUrl}/tiktok-shop/accounts/521/listings`)).json()) as Record<
      string,
      unknown
    >[];
    assert.equal(inspected[0]!.size_chart_template_id, templateId);
  });

  test('a baby bottle without its certificate is refused with 12052105 naming it, at creation and in the listing check', async () => {
    const shop = (await sandboxShopsOf(t, 522))[0]!;
    const payload = await body(shop, BABY_BOTTLES);
    const refused = await create(shop, payload);
    assert.deepEqual(
      [refused.code, refused.message],
      [12052105, 'Required qualification missing: Baby feeding product safety test report.'],
    );
    const checked = (await call(shop, 'POST', '/product/202309/products/listing_check', payload)).body.data;
    assert.equal(checked.check_result, 'FAILED');
    assert.deepEqual(checked.fail_reasons, [
      { code: 12052105, message: 'Required qualification missing: Baby feeding product safety test report.' },
    ]);
    // A certificate's image is uploaded as one (use_case CERTIFICATION_IMAGE): a main image's URI is no certificate.
    const image = await uploadImage(t, shop, 'CERTIFICATION_IMAGE');
    const certified = await create(shop, { ...payload, certifications: [{ id: '700102', images: [{ uri: image }] }] });
    assert.equal(certified.code, 0, JSON.stringify(certified));
  });

  test('a tote bag needs its certificate only when leather (a VALUE_ID_MATCH condition)', async () => {
    const shop = (await sandboxShopsOf(t, 523))[0]!;
    const material = (id: string) => ({ product_attributes: [{ id: '100392', values: [{ id }] }], package_dimensions: undefined });
    assert.equal((await create(shop, await body(shop, TOTE_BAGS, material('1001536')))).code, 0);
    const leather = await create(shop, await body(shop, TOTE_BAGS, material('1001539')));
    assert.deepEqual([leather.code, leather.message], [12052105, 'Required qualification missing: Leather REACH declaration.']);
  });

  test('in a Germany-local shop, a product without a responsible person (12052287) or manufacturer (12052282) is refused', async () => {
    const shop = await localShop(524);
    const persons = (await sellerCall(shop, RP_SEARCH, {})).body.data.responsible_persons as { id: string }[];
    const makers = (await sellerCall(shop, MANUFACTURER_SEARCH, {})).body.data.manufacturers as { id: string }[];
    const neither = await create(shop, await body(shop, MUGS));
    assert.deepEqual([neither.code, neither.message], [12052287, 'Product responsible person is required']);
    const noMaker = await create(shop, await body(shop, MUGS, { responsible_person_ids: [persons[0]!.id] }));
    assert.deepEqual([noMaker.code, noMaker.message], [12052282, 'Product manufacturer is required.']);
    const stranger = await create(
      shop,
      await body(shop, MUGS, { responsible_person_ids: ['66d3cbe4d9c8b09d99999999'], manufacturer_ids: [makers[0]!.id] }),
    );
    assert.deepEqual([stranger.code, stranger.message], [12052289, 'Responsible person ID 66d3cbe4d9c8b09d99999999 is not found']);
    const ids = { responsible_person_ids: [persons[0]!.id], manufacturer_ids: [makers[1]!.id] };
    const created = await create(shop, await body(shop, MUGS, ids));
    assert.equal(created.code, 0, JSON.stringify(created));
    const product = (await call(shop, 'GET', `/product/202309/products/${created.data.product_id}`)).body.data;
    assert.deepEqual([product.responsible_person_ids, product.manufacturer_ids], [ids.responsible_person_ids, ids.manufacturer_ids]);
  });
});
