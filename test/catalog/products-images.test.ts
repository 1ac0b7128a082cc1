/** Image uploads (DESIGN §9): checked by their bytes, stored once by hash, served publicly at /media/<sha256>.<ext>. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { databaseKinds, selectRows } from '../helpers/database.js';
import { GIF_1X1, gifSized, mug, PNG_640X480, pngSized } from '../helpers/fixtures.js';
import { API, call, createTestApp, errorBody, registerUser, type TestApp } from '../helpers/test-app.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A multipart/form-data body of the given parts. */
function multipart(parts: { name: string; filename?: string; type?: string; value: Buffer | string }[]) {
  const boundary = `----storelink${Date.now()}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename ? `; filename="${part.filename}"` : ''}`;
    const head = `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${part.type ? `Content-Type: ${part.type}\r\n` : ''}\r\n`;
    chunks.push(Buffer.from(head), Buffer.isBuffer(part.value) ? part.value : Buffer.from(part.value), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

for (const kind of databaseKinds()) {
  describe(`product images [${kind}]`, () => {
    let t: TestApp;
    before(async () => (t = await createTestApp(kind)));
    after(() => t.close());

    async function seller() {
      const user = await registerUser(t);
      const as = { token: user.session, workspace: user.workspace.id };
      const created = await call(t, 'POST', '/products', {
        ...as,
        body: mug(`MUG-${user.user.id}`),
      });
      return { ...user, as, product: created.json().data };
    }

    function upload(as: { token: string; workspace: number }, productId: number, parts: Parameters<typeof multipart>[0]) {
      const { payload, contentType } = multipart(parts);
      return t.app.inject({
        method: 'POST',
        url: `${API}/products/${productId}/images`,
        headers: { authorization: `Bearer ${as.token}`, 'x-workspace-id': String(as.workspace), 'content-type': contentType },
        payload,
      });
    }

    const mediaRows = async () => (await selectRows<{ n: number }>(t.database, sql`select count(*)::int as n from media`))[0]!.n;
    const version = async (as: { token: string; workspace: number }, id: number) =>
      (await call(t, 'GET', `/products/${id}`, as)).json().data.version;

    test('an uploaded PNG is stored by its hash, added to the product, and served without a token for a year', async () => {
      const me = await seller();
      const bytes = PNG_640X480;
      const response = await upload(me.as, me.product.id, [
        { name: 'file', filename: 'photo.bin', type: 'application/octet-stream', value: bytes },
        { name: 'alt', value: 'A mug on a table' },
      ]);
      assert.equal(response.statusCode, 201, response.body);
      const image = response.json().data;
      const path = `/media/${sha256(bytes)}.png`;
      assert.deepEqual(image, {
        id: image.id,
        url: `${t.deps.config.appUrl}${path}`,
        position: 0,
        alt: 'A mug on a table',
        uploaded: true,
      });
      const product = (await call(t, 'GET', `/products/${me.product.id}`, me.as)).json().data;
      assert.equal(product.version, 2);
      assert.deepEqual(product.images, [image]);
      // An image given by URL, even Storelink's own, is not a file Storelink holds: the editor marks it.
      const given = await call(t, 'PATCH', `/products/${me.product.id}`, {
        ...me.as,
        body: { images: [{ id: image.id }, { url: image.url }] },
      });
      assert.equal(given.statusCode, 200, given.body);
      assert.deepEqual(
        given.json().data.images.map((i: { uploaded: boolean }) => i.uploaded),
        [true, false],
      );
      const [stored] = await selectRows<{ width: number; height: number; size_bytes: number }>(
        t.database,
        sql`select width, height, size_bytes from media where sha256 = ${sha256(bytes)}`,
      );
      assert.deepEqual(stored, { width: 640, height: 480, size_bytes: bytes.length });

      const served = await t.app.inject({ method: 'GET', url: path });
      assert.equal(served.statusCode, 200);
      assert.equal(served.headers['content-type'], 'image/png');
      assert.equal(served.headers['cache-control'], 'public, max-age=31536000, immutable');
      assert.equal(served.headers['cross-origin-resource-policy'], 'cross-origin');
      assert.deepEqual(served.rawPayload, bytes);
      const again = await t.app.inject({ method: 'GET', url: path, headers: { 'if-none-match': served.headers.etag as string } });
      assert.equal(again.statusCode, 304);
    });

    test('the same bytes uploaded twice, to two products, are stored once', async () => {
      const me = await seller();
      const other = await seller();
      const before = await mediaRows();
      const first = (await upload(me.as, me.product.id, [{ name: 'file', filename: 'a.gif', value: GIF_1X1 }])).json().data;
      const second = (await upload(other.as, other.product.id, [{ name: 'file', filename: 'b.gif', value: GIF_1X1 }])).json().data;
      assert.equal(first.url, second.url);
      assert.ok(first.url.endsWith(`/media/${sha256(GIF_1X1)}.gif`));
      assert.equal(await mediaRows(), before + 1);
    });

    test('anything but a JPEG, PNG, WebP or GIF image of at most 10 MB is 422 on file, and nothing changes', async () => {
      const me = await seller();
      const before = await mediaRows();
      const cases: [Parameters<typeof multipart>[0], string][] = [
        [
          [{ name: 'file', filename: 'fake.png', type: 'image/png', value: 'not an image at all' }],
          'The file must be a JPEG, PNG, WebP or GIF image.',
        ],
        [
          [
            {
              name: 'file',
              filename: 'a.svg',
              type: 'image/svg+xml',
              value: '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>',
            },
          ],
          'The file must be a JPEG, PNG, WebP or GIF image.',
        ],
        [
          [{ name: 'file', filename: 'big.png', value: Buffer.concat([pngSized(1, 1), Buffer.alloc(10 * 1024 * 1024)]) }],
          'The file must not be greater than 10 MB.',
        ],
        [[{ name: 'alt', value: 'only an alt' }], 'The file field is required.'],
        [[{ name: 'photo', filename: 'a.png', value: pngSized(1, 1) }], 'Send the image in a part named file.'],
      ];
      for (const [parts, message] of cases) {
        const response = await upload(me.as, me.product.id, parts);
        assert.equal(response.statusCode, 422, `${message}: ${response.body}`);
        assert.deepEqual(response.json(), { ...errorBody(422, 'The given data was invalid.'), errors: { file: [message] } });
      }
      const json = await call(t, 'POST', `/products/${me.product.id}/images`, { ...me.as, body: { url: 'https://example.com/a.png' } });
      assert.equal(json.statusCode, 422);
      assert.deepEqual(Object.keys(json.json().errors), ['file']);
      assert.equal(await mediaRows(), before);
      assert.equal(await version(me.as, me.product.id), 1);
    });

    test('a pixel flood (an image whose header claims more than 10,000 px a side or 50 megapixels) is 422 on file, and nothing is stored', async () => {
      const me = await seller();
      const before = await mediaRows();
      const floods: [string, Buffer, string][] = [
        ['a 400-megapixel PNG', pngSized(20_000, 20_000), '20,000 x 20,000'],
        ["a PNG claiming PNG's largest side", pngSized(2 ** 31 - 1, 2 ** 31 - 1), '2,147,483,647 x 2,147,483,647'],
        ["a PNG claiming a side past PNG's limit", pngSized(2 ** 31, 1), '2,147,483,648 x 1'],
        ['a 42-byte GIF claiming 65,535 x 65,535', gifSized(65_535, 65_535), '65,535 x 65,535'],
        ['one pixel past the side', pngSized(10_001, 1), '10,001 x 1'],
        ['sides within the cap, pixels past it', pngSized(7_072, 7_072), '7,072 x 7,072'],
      ];
      for (const [name, bytes, found] of floods) {
        const response = await upload(me.as, me.product.id, [{ name: 'file', filename: 'huge.png', value: bytes }]);
        assert.equal(response.statusCode, 422, `${name}: ${response.body}`);
        assert.deepEqual(response.json(), {
          ...errorBody(422, 'The given data was invalid.'),
          errors: { file: [`The image must be at most 10,000 pixels a side and 50 megapixels in all; this one is ${found} pixels.`] },
        });
      }
      assert.equal(await mediaRows(), before);
      assert.equal(await version(me.as, me.product.id), 1);
    });

    test('an image of exactly 10,000 px a side or 50 megapixels is taken', async () => {
      const me = await seller();
      for (const [width, height] of [
        [10_000, 5_000],
        [2_000, 10_000],
      ]) {
        const response = await upload(me.as, me.product.id, [{ name: 'file', filename: 'big.png', value: pngSized(width!, height!) }]);
        assert.equal(response.statusCode, 201, response.body);
      }
      assert.equal(await version(me.as, me.product.id), 3);
    });

    test('an alt with a NUL character is 422 on alt, not a 500, and nothing changes', async () => {
      const me = await seller();
      const before = await mediaRows();
      const response = await upload(me.as, me.product.id, [
        { name: 'file', filename: 'a.gif', value: GIF_1X1 },
        { name: 'alt', value: 'a\u0000b' },
      ]);
      assert.equal(response.statusCode, 422, response.body);
      assert.deepEqual(response.json(), {
        ...errorBody(422, 'The given data was invalid.'),
        errors: { alt: ['The alt field must not contain a NUL character.'] },
      });
      assert.equal(await mediaRows(), before);
      assert.equal(await version(me.as, me.product.id), 1);
    });

    test('a product holds at most 10 images; another workspace cannot upload to it', async () => {
      const me = await seller();
      const stranger = await seller();
      const ten = Array.from({ length: 10 }, (_, i) => ({ url: `https://example.com/${i}.jpg` }));
      await call(t, 'PATCH', `/products/${me.product.id}`, { ...me.as, body: { images: ten } });
      const full = await upload(me.as, me.product.id, [{ name: 'file', filename: 'a.png', value: pngSized(2, 2) }]);
      assert.deepEqual(full.json().errors, { file: ['A product has at most 10 images.'] });
      const foreign = await upload(stranger.as, me.product.id, [{ name: 'file', filename: 'a.png', value: pngSized(3, 3) }]);
      assert.deepEqual(foreign.json(), errorBody(404, 'Not found'));
    });

    test('only the upload takes multipart bodies: POST /products with one is 415', async () => {
      const me = await seller();
      const { payload, contentType } = multipart([{ name: 'title', value: 'Mug' }]);
      const response = await t.app.inject({
        method: 'POST',
        url: `${API}/products`,
        headers: { authorization: `Bearer ${me.as.token}`, 'x-workspace-id': String(me.as.workspace), 'content-type': contentType },
        payload,
      });
      assert.equal(response.statusCode, 415);
      assert.equal(response.json().code, 415);
    });

    test('/media/ answers 404 in the error shape for unknown or malformed names', async () => {
      for (const name of [
        `${'0'.repeat(64)}.png`,
        'abc.png',
        `${sha256(GIF_1X1)}.png`,
        `${sha256(GIF_1X1)}.exe`,
        '..%2f..%2fetc%2fpasswd',
      ]) {
        const response = await t.app.inject({ method: 'GET', url: `/media/${name}` });
        assert.equal(response.statusCode, 404, name);
        assert.deepEqual(response.json(), errorBody(404, 'Not found'));
      }
    });
  });
}
