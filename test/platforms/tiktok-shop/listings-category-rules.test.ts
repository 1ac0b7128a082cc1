/**
 * TikTok Shop's category rules in a publish (DESIGN §10, listings.md §2.3, Get Category Rules), end to end against the
 * sandbox over real HTTP: a size chart the category requires, chosen from the seller's templates; the EU's responsible
 * person and manufacturer in a shop of a seller local to Germany, chosen from the seller's own; a certification the
 * category requires left without its file, refused before anything reaches TikTok Shop (listings-certificates.test.ts
 * sends one); an import of a German
 * shop keeps its products' responsible person and manufacturer, so a price change is a price update alone.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { IMPORT_QUEUE } from '../../../src/core/listings/listing-import.js';
import { LISTING_QUEUE } from '../../../src/core/listings/listing-work.js';
import { setTikTokShopRateLimit } from '../../../src/sandbox/tiktok-shop/product-store.js';
import { connectTikTokShopSite } from '../../helpers/connect.js';
import { databaseKinds } from '../../helpers/database.js';
import { PNG_640X480, TIKTOK_CATEGORY } from '../../helpers/fixtures.js';
import { heldListings, mugProduct, tiktokSeller } from '../../helpers/listings.js';
import { call, createTestApp, registerUser, runDueJobs, type TestApp } from '../../helpers/test-app.js';

const PNG = { bytes: PNG_640X480, type: 'image/png', name: 'item.png' };
const { MUGS, BABY_BOTTLES, HOODIES, TOTE_BAGS } = TIKTOK_CATEGORY;
/** Hoodies' required Fabric: Cotton. */
const FABRIC = { 100410: '1002001' };

interface Held {
  id: string;
  title: string;
  size_chart_template_id?: string;
  responsible_person_ids?: string[];
  manufacturer_ids?: string[];
}

interface Attribute {
  name: string;
  label: string;
  required: boolean;
  type: string;
  values: { value: string; label: string }[];
}

for (const kind of databaseKinds()) {
  describe(`TikTok Shop's category rules in a publish [${kind}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind, { listen: true });
    });
    after(() => t.close());
    beforeEach(() => setTikTokShopRateLimit(t.deps.sandbox, 1_000_000));

    type Seller = Awaited<ReturnType<typeof tiktokSeller>>;
    /** What the sandbox shops of the account hold (its inspection endpoint). */
    const shop = (account: string) => heldListings<Held>(t, 'tiktok-shop', account);
    const attributesOf = async (me: Seller, category: string): Promise<Attribute[]> => {
      const response = await call(t, 'GET', `/sites/${me.site}/categories/${category}/attributes`, me.as);
      assert.equal(response.statusCode, 200, response.body);
      return response.json().data;
    };
    const post = (me: Seller, body: Record<string, unknown>) => call(t, 'POST', `/sites/${me.site}/listings`, { ...me.as, body });
    const calls = (operation: string) => t.deps.sandbox.calls.get(`tiktok-shop:${operation}`) ?? 0;

    /** A seller local to Germany (the consent page's market=DE, and its other `consent` choices), its warehouse the default. */
    async function germanSeller(account: string, consent: Record<string, string> = {}): Promise<Seller> {
      const user = await registerUser(t);
      const as = { token: user.session, workspace: user.workspace.id };
      const site = await connectTikTokShopSite(t, user, account, { market: 'DE', ...consent });
      const options = (await call(t, 'GET', `/sites/${site}/listing-options`, as)).json().data;
      const body = { warehouse_id: options.warehouse_id[0].value };
      assert.equal((await call(t, 'PUT', `/sites/${site}/listing-settings`, { ...as, body })).statusCode, 200);
      return { ...user, as, site, account };
    }

    test("hoodies require a size chart: the form offers the seller's templates, and a publish without one is a 422 on attributes.size_chart", async () => {
      const me = await tiktokSeller(t, '451');
      const chart = (await attributesOf(me, HOODIES)).find((a) => a.name === 'size_chart');
      assert.deepEqual(
        { ...chart, values: chart?.values.map((v) => v.label) },
        { name: 'size_chart', label: 'Size chart', required: true, type: 'select', values: ['Unisex tops', "Women's tops"] },
      );
      // T-shirts take one without requiring it; mugs take none.
      assert.equal((await attributesOf(me, '601011')).find((a) => a.name === 'size_chart')?.required, false);
      assert.equal(
        (await attributesOf(me, MUGS)).find((a) => a.name === 'size_chart'),
        undefined,
      );

      const productId = await mugProduct(t, me, 'H1', { image: PNG, packaged: true, currency: 'GBP', title: 'Fleece hoodie' });
      const body = { product_id: productId, category_id: HOODIES, attributes: FABRIC };
      const validated = await post(me, { ...body, mode: 'validate' });
      assert.equal(validated.statusCode, 200, validated.body);
      assert.equal(validated.json().data.valid, false);
      assert.deepEqual(
        validated
          .json()
          .data.issues.filter((i: { severity: string }) => i.severity === 'error')
          .map((i: { field: string }) => i.field),
        ['attributes.size_chart'],
      );
      const refused = await post(me, body);
      assert.equal(refused.statusCode, 422, refused.body);
      assert.deepEqual(refused.json().errors['attributes.size_chart'], ['Size chart is required in this category.']);
      assert.deepEqual(await shop(me.account), []);
    });

    test('a hoodie with a template is created, and TikTok Shop holds that template', async () => {
      const me = await tiktokSeller(t, '452');
      const chart = (await attributesOf(me, HOODIES)).find((a) => a.name === 'size_chart')!;
      const template = chart.values.find((v) => v.label === "Women's tops")!.value;
      const productId = await mugProduct(t, me, 'H2', { image: PNG, packaged: true, currency: 'GBP', title: 'Fleece hoodie' });
      const published = await post(me, { product_id: productId, category_id: HOODIES, attributes: { ...FABRIC, size_chart: template } });
      assert.equal(published.statusCode, 202, published.body);
      await runDueJobs(t, LISTING_QUEUE);
      const listing = (await call(t, 'GET', `/listings/${published.json().data.id}`, me.as)).json().data;
      assert.equal(listing.status, 'in_review', JSON.stringify(listing));
      const [held] = await shop(me.account);
      assert.deepEqual([held!.id, held!.size_chart_template_id], [listing.external_id, template]);
    });

    test('in a shop local to Germany, the responsible person and manufacturer are required, chosen from the seller’s own', async () => {
      const me = await germanSeller('453');
      const attributes = await attributesOf(me, MUGS);
      const person = attributes.find((a) => a.name === 'responsible_person_ids')!;
      const maker = attributes.find((a) => a.name === 'manufacturer_ids')!;
      assert.deepEqual(
        [person, maker].map((a) => [a.label, a.required, a.type, a.values.length]),
        [
          ['EU responsible person', true, 'multiselect', 2],
          ['Manufacturer', true, 'multiselect', 2],
        ],
      );
      assert.match(person.values[0]!.label, /^Sandbox Compliance GmbH \(compliance-453@sandbox\.example\)$/);
      assert.equal(maker.values[0]!.label.startsWith('Sandbox Ceramics Manufacturing GmbH'), true);

      const productId = await mugProduct(t, me, 'E1', { image: PNG, packaged: true, currency: 'EUR' });
      const refused = await post(me, { product_id: productId, category_id: MUGS, attributes: { 100392: '1001533' } });
      assert.equal(refused.statusCode, 422, refused.body);
      assert.deepEqual(refused.json().errors['attributes.responsible_person_ids'], ['EU responsible person is required in this category.']);
      assert.deepEqual(refused.json().errors['attributes.manufacturer_ids'], ['Manufacturer is required in this category.']);
      assert.deepEqual(await shop(me.account), []);
    });

    test('the responsible person and manufacturer chosen reach TikTok Shop with the product', async () => {
      const me = await germanSeller('454');
      const attributes = await attributesOf(me, MUGS);
      const persons = attributes.find((a) => a.name === 'responsible_person_ids')!.values.map((v) => v.value);
      const makers = attributes.find((a) => a.name === 'manufacturer_ids')!.values.map((v) => v.value);
      const productId = await mugProduct(t, me, 'E2', { image: PNG, packaged: true, currency: 'EUR' });
      const chosen = { 100392: '1001533', responsible_person_ids: [persons[1]!], manufacturer_ids: makers };
      const validated = await post(me, { product_id: productId, category_id: MUGS, attributes: chosen, mode: 'validate' });
      assert.equal(validated.json().data.valid, true, validated.body);
      const published = await post(me, { product_id: productId, category_id: MUGS, attributes: chosen });
      assert.equal(published.statusCode, 202, published.body);
      await runDueJobs(t, LISTING_QUEUE);
      const listing = (await call(t, 'GET', `/listings/${published.json().data.id}`, me.as)).json().data;
      assert.equal(listing.status, 'in_review', JSON.stringify(listing));
      const [held] = await shop(me.account);
      assert.deepEqual([held!.responsible_person_ids, held!.manufacturer_ids], [[persons[1]], makers]);
    });

    test('a category that requires a certificate is a 422 on its attribute saying how to attach one, and nothing reaches TikTok Shop', async () => {
      const me = await tiktokSeller(t, '455');
      const productId = await mugProduct(t, me, 'B1', { image: PNG, packaged: true, currency: 'GBP', title: 'Glass baby bottle' });
      const [creates, uploads] = [calls('create_product'), calls('upload_image')];
      const validated = await post(me, { product_id: productId, category_id: BABY_BOTTLES, attributes: {}, mode: 'validate' });
      const [issue] = validated.json().data.issues;
      assert.deepEqual([validated.json().data.valid, issue.field, issue.severity], [false, 'attributes.certification:700102', 'error']);
      const refused = await post(me, { product_id: productId, category_id: BABY_BOTTLES, attributes: {} });
      assert.equal(refused.statusCode, 422, refused.body);
      const messages = refused.json().errors['attributes.certification:700102'];
      assert.equal(messages.length, 1, 'said once, without a second "is required"');
      assert.match(messages[0], /"Baby feeding product safety test report"/);
      assert.match(
        messages[0],
        /Upload it \(a PDF of at most 20 MB, or an image\) as “Baby feeding product safety test report” in the publish form\./,
      );
      assert.deepEqual(await shop(me.account), []);
      assert.deepEqual([calls('create_product'), calls('upload_image')], [creates, uploads]);
    });

    test('a certificate required by a condition is asked only when the attribute meets it: a leather tote bag, not a canvas one', async () => {
      const me = await tiktokSeller(t, '456');
      const productId = await mugProduct(t, me, 'L1', { image: PNG, packaged: true, currency: 'GBP', title: 'Market tote bag' });
      const leather = await post(me, { product_id: productId, category_id: TOTE_BAGS, attributes: { 100392: 'Leather' } });
      assert.equal(leather.statusCode, 422, leather.body);
      assert.match(
        leather.json().errors['attributes.certification:700103'][0],
        /"Leather REACH declaration" for a product in this category when Material is Leather\. Upload it/,
      );
      const canvas = await post(me, { product_id: productId, category_id: TOTE_BAGS, attributes: { 100392: 'Canvas' }, mode: 'validate' });
      assert.equal(canvas.json().data.valid, true, canvas.body);
      assert.deepEqual(await shop(me.account), []);
    });

    test("an import of a German shop keeps each product's responsible person and manufacturer: a price change is a price update alone", async () => {
      const me = await germanSeller('457', { shop: 'stocked' });
      assert.equal((await call(t, 'POST', `/sites/${me.site}/listings/import`, me.as)).statusCode, 202);
      await runDueJobs(t, IMPORT_QUEUE);
      const held = (await shop(me.account)).find((p) => p.title === 'Jute market bag')!;
      const listings = (await call(t, 'GET', `/sites/${me.site}/listings`, me.as)).json().data;
      const listing = listings.find((l: { external_id: string }) => l.external_id === held.id);
      assert.deepEqual(
        [listing.attributes.responsible_person_ids, listing.attributes.manufacturer_ids],
        [held.responsible_person_ids, held.manufacturer_ids],
      );
      assert.equal(held.responsible_person_ids?.length, 1);

      const product = (await call(t, 'GET', `/products/${listing.product_id}`, me.as)).json().data;
      const variants = product.variants.map((v: { price: string }) => ({ ...v, price: '21.00' }));
      assert.equal((await call(t, 'PATCH', `/products/${listing.product_id}`, { ...me.as, body: { variants } })).statusCode, 200);
      const [edits, prices] = [calls('partial_edit_product'), calls('update_prices')];
      await runDueJobs(t, LISTING_QUEUE);
      assert.deepEqual([calls('partial_edit_product') - edits, calls('update_prices') - prices], [0, 1]);
    });
  });
}
