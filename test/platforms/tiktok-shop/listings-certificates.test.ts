/**
 * TikTok Shop certificates (issue 36 item 8c, docs/listings.md "How Storelink lists on TikTok Shop"), end to end
 * against the sandbox over real HTTP: a category's certification is a file attribute (`certification:<id>`) naming a
 * file uploaded with POST /files; the adapter uploads it to TikTok once (a PDF by Upload Product File, an image at
 * CERTIFICATION_IMAGE) and sends it in the create and every content edit; a required one without a file is a 422 on
 * its attribute saying how to attach one.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import { LISTING_QUEUE } from '../../../src/core/listings/listing-work.js';
import { setTikTokShopRateLimit } from '../../../src/sandbox/tiktok-shop/product-store.js';
import { databaseKinds } from '../../helpers/database.js';
import { PDF, PNG_640X480, SANDBOX_REVIEW_MS, TIKTOK_CATEGORY } from '../../helpers/fixtures.js';
import { heldListings, mugProduct, tiktokSeller } from '../../helpers/listings.js';
import { API, call, createTestApp, runDueJobs, type TestApp } from '../../helpers/test-app.js';

const PNG = { bytes: PNG_640X480, type: 'image/png', name: 'item.png' };
const { MUGS, BABY_BOTTLES } = TIKTOK_CATEGORY;
/** Baby bottles' certification, always required (the sandbox's rules). */
const REPORT = 'certification:700102';
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

interface Held {
  id: string;
  title: string;
  certifications?: { id: string; images: { uri: string }[]; files: { id: string; name: string; format: string }[] }[];
}

for (const kind of databaseKinds()) {
  describe(`TikTok Shop certificates [${kind}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind, { listen: true });
    });
    after(() => t.close());
    beforeEach(() => setTikTokShopRateLimit(t.deps.sandbox, 1_000_000));

    type Seller = Awaited<ReturnType<typeof tiktokSeller>>;
    const shop = (account: string) => heldListings<Held>(t, 'tiktok-shop', account);
    const calls = (operation: string) => t.deps.sandbox.calls.get(`tiktok-shop:${operation}`) ?? 0;
    const post = (me: Seller, body: Record<string, unknown>) => call(t, 'POST', `/sites/${me.site}/listings`, { ...me.as, body });
    const listing = async (me: Seller, id: number) => (await call(t, 'GET', `/listings/${id}`, me.as)).json().data;

    /** The seller's file uploaded with POST /files: its name, what a listing attribute gives. */
    async function uploadFile(me: Seller, bytes: Buffer, type: string): Promise<string> {
      const form = new FormData();
      form.set('file', new Blob([new Uint8Array(bytes)], { type }), 'certificate');
      const response = await fetch(`${t.deps.config.appUrl}${API}/files`, {
        method: 'POST',
        headers: { authorization: `Bearer ${me.session}`, 'x-workspace-id': String(me.workspace.id) },
        body: form,
      });
      assert.equal(response.status, 201, await response.clone().text());
      return ((await response.json()) as { data: { name: string } }).data.name;
    }

    /** A baby bottle published with `attributes`, its work run: the listing. */
    async function publishBottle(me: Seller, sku: string, attributes: Record<string, unknown>) {
      const productId = await mugProduct(t, me, sku, { image: PNG, packaged: true, currency: 'GBP', title: 'Glass baby bottle' });
      const published = await post(me, { product_id: productId, category_id: BABY_BOTTLES, attributes });
      assert.equal(published.statusCode, 202, published.body);
      await runDueJobs(t, LISTING_QUEUE);
      return { productId, id: published.json().data.id as number };
    }

    test("the form offers each of the category's certifications as a file: the baby bottle's required, the mug's optional", async () => {
      const me = await tiktokSeller(t, '481');
      const attributes = async (category: string) =>
        (await call(t, 'GET', `/sites/${me.site}/categories/${category}/attributes`, me.as)).json().data as {
          name: string;
          required: boolean;
          type: string;
        }[];
      assert.deepEqual(
        (await attributes(BABY_BOTTLES)).find((a) => a.name === REPORT),
        {
          name: REPORT,
          label: 'Baby feeding product safety test report',
          required: true,
          type: 'file',
          values: [],
        },
      );
      const food = (await attributes(MUGS)).find((a) => a.name === 'certification:700101');
      assert.deepEqual([food?.required, food?.type], [false, 'file']);
    });

    test('a baby bottle with a PDF certificate reaches TikTok Shop holding it: uploaded once by Upload Product File', async () => {
      const me = await tiktokSeller(t, '482');
      const name = await uploadFile(me, PDF, 'application/pdf');
      const [files, images] = [calls('upload_file'), calls('upload_image')];
      const { id } = await publishBottle(me, 'C1', { [REPORT]: name });
      const listed = await listing(me, id);
      assert.equal(listed.status, 'in_review', JSON.stringify(listed));
      const [held] = await shop(me.account);
      const [file] = held!.certifications![0]!.files;
      assert.deepEqual(held!.certifications, [
        { id: '700102', images: [], files: [{ id: file!.id, name: `certificate-${sha256(PDF).slice(0, 16)}.pdf`, format: 'PDF' }] },
      ]);
      // One file upload; the one image upload is the product's main image.
      assert.deepEqual([calls('upload_file') - files, calls('upload_image') - images], [1, 1]);
    });

    test('an image certificate reaches TikTok Shop as a CERTIFICATION_IMAGE upload', async () => {
      const me = await tiktokSeller(t, '483');
      const name = await uploadFile(me, PNG_640X480, 'image/png');
      const [files, images] = [calls('upload_file'), calls('upload_image')];
      const { id } = await publishBottle(me, 'C2', { [REPORT]: name });
      assert.equal((await listing(me, id)).status, 'in_review');
      const [held] = await shop(me.account);
      const [certification] = held!.certifications!;
      assert.equal(certification!.id, '700102');
      assert.deepEqual(certification!.files, []);
      assert.equal(certification!.images.length, 1);
      // The sandbox takes a certification's image only from a CERTIFICATION_IMAGE upload: the main image's is another.
      assert.deepEqual([calls('upload_file') - files, calls('upload_image') - images], [0, 2]);
    });

    test('the certificate is uploaded once across a create sent again and later edits; a new file is uploaded and sent in the edit', async () => {
      const me = await tiktokSeller(t, '484');
      const name = await uploadFile(me, PDF, 'application/pdf');
      const files = calls('upload_file');
      // The create is made, and its answer lost (500): sent again a minute later with its key, one product.
      t.deps.sandbox.faults.set('tiktok-shop', 'listings', 'ghost');
      const { productId, id } = await publishBottle(me, 'C3', { [REPORT]: name });
      t.deps.sandbox.faults.set('tiktok-shop', 'listings', null);
      t.clock.advance(60_000);
      await runDueJobs(t, LISTING_QUEUE);
      assert.equal((await listing(me, id)).status, 'in_review');
      assert.equal((await shop(me.account)).length, 1);
      assert.equal(calls('upload_file') - files, 1);

      // A content edit names the same file again, without uploading it.
      const edits = calls('partial_edit_product');
      const renamed = await call(t, 'PATCH', `/products/${productId}`, { ...me.as, body: { title: 'Glass baby bottle, 240 ml' } });
      assert.equal(renamed.statusCode, 200, renamed.body);
      await runDueJobs(t, LISTING_QUEUE);
      assert.deepEqual([calls('partial_edit_product') - edits, calls('upload_file') - files], [1, 1]);
      // The product went live meanwhile: the edit is reviewed before the shop shows it.
      t.clock.advance(SANDBOX_REVIEW_MS);
      const [held] = await shop(me.account);
      assert.equal(held!.title, 'Glass baby bottle, 240 ml');
      const first = held!.certifications![0]!.files[0]!.id;

      // Another certificate: uploaded once, and the edit sends it in place of the first.
      const other = Buffer.concat([PDF, Buffer.from('% second issue\n')]);
      const next = await uploadFile(me, other, 'application/pdf');
      const changed = await call(t, 'PATCH', `/listings/${id}`, { ...me.as, body: { attributes: { [REPORT]: next } } });
      assert.equal(changed.statusCode, 202, changed.body);
      await runDueJobs(t, LISTING_QUEUE);
      assert.deepEqual([calls('partial_edit_product') - edits, calls('upload_file') - files], [2, 2]);
      t.clock.advance(SANDBOX_REVIEW_MS);
      const [edited] = await shop(me.account);
      const sent = edited!.certifications![0]!.files[0]!;
      assert.notEqual(sent.id, first);
      assert.equal(sent.name, `certificate-${sha256(other).slice(0, 16)}.pdf`);
    });

    test('a required certificate without a file is a 422 on its attribute saying how to attach one, and nothing reaches TikTok Shop', async () => {
      const me = await tiktokSeller(t, '485');
      const productId = await mugProduct(t, me, 'C4', { image: PNG, packaged: true, currency: 'GBP', title: 'Glass baby bottle' });
      const [creates, images] = [calls('create_product'), calls('upload_image')];
      const validated = await post(me, { product_id: productId, category_id: BABY_BOTTLES, attributes: {}, mode: 'validate' });
      assert.equal(validated.json().data.valid, false);
      const refused = await post(me, { product_id: productId, category_id: BABY_BOTTLES, attributes: {} });
      assert.equal(refused.statusCode, 422, refused.body);
      // One message on the attribute's key, in a seller's words: no second "is required", no API path or field key.
      const [how, ...more] = refused.json().errors[`attributes.${REPORT}`];
      assert.deepEqual(more, []);
      assert.match(
        how,
        /^TikTok Shop needs the certificate "Baby feeding product safety test report" for a product in this category\. Upload it/,
      );
      assert.doesNotMatch(how, /POST|\/files|certification:/);
      // A name that is no file's, or names no file Storelink holds, is refused as well.
      for (const [value, message] of [
        ['report.pdf', /must be a file uploaded in the publish form \(a PDF or an image\)/],
        [`${'0'.repeat(64)}.pdf`, /is no file Storelink holds: upload it again in the publish form/],
      ] as const) {
        const answer = await post(me, { product_id: productId, category_id: BABY_BOTTLES, attributes: { [REPORT]: value } });
        assert.equal(answer.statusCode, 422, answer.body);
        assert.match(answer.json().errors[`attributes.${REPORT}`].join(' '), message);
      }
      assert.deepEqual(await shop(me.account), []);
      assert.deepEqual([calls('create_product'), calls('upload_image')], [creates, images]);
    });

    test('a baby bottle with its certificate passes the dry run (Check Product Listing is sent without it)', async () => {
      const me = await tiktokSeller(t, '486');
      const name = await uploadFile(me, PDF, 'application/pdf');
      const productId = await mugProduct(t, me, 'C5', { image: PNG, packaged: true, currency: 'GBP', title: 'Glass baby bottle' });
      const files = calls('upload_file');
      const body = { product_id: productId, category_id: BABY_BOTTLES, attributes: { [REPORT]: name }, mode: 'validate' };
      const validated = await post(me, body);
      assert.equal(validated.json().data.valid, true, validated.body);
      assert.equal(calls('upload_file'), files);
    });
  });
}
