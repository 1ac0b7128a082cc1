/**
 * Files a listing names (a TikTok Shop certificate, docs/listings.md): POST /files takes a PDF (by its `%PDF-` header,
 * at most 20 MB) or an image, stores it once by its hash as the catalogue's images are, and serves it at its URL;
 * anything else is a 422 on `file` that stores nothing.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { databaseKinds, selectRows } from '../helpers/database.js';
import { INVALID, PDF, PNG_640X480 } from '../helpers/fixtures.js';
import { API, createTestApp, errorBody, registerUser, type TestApp } from '../helpers/test-app.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const MB = 1024 * 1024;

/** A multipart/form-data body of one part named `name`. */
function multipart(value: Buffer, options: { name?: string; filename?: string; type?: string } = {}) {
  const boundary = `----storelink${Date.now()}`;
  const { name = 'file', filename = 'certificate.pdf', type = 'application/pdf' } = options;
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`;
  const payload = Buffer.concat([Buffer.from(head), value, Buffer.from(`\r\n--${boundary}--\r\n`)]);
  return { payload, contentType: `multipart/form-data; boundary=${boundary}` };
}

for (const kind of databaseKinds()) {
  describe(`files a listing names [${kind}]`, () => {
    let t: TestApp;
    before(async () => (t = await createTestApp(kind)));
    after(() => t.close());

    async function seller() {
      const user = await registerUser(t);
      return { token: user.session, workspace: user.workspace.id };
    }
    function upload(as: { token: string; workspace: number }, bytes: Buffer, options: Parameters<typeof multipart>[1] = {}) {
      const { payload, contentType } = multipart(bytes, options);
      return t.app.inject({
        method: 'POST',
        url: `${API}/files`,
        headers: { authorization: `Bearer ${as.token}`, 'x-workspace-id': String(as.workspace), 'content-type': contentType },
        payload,
      });
    }
    const mediaRows = async () => (await selectRows<{ n: number }>(t.database, sql`select count(*)::int as n from media`))[0]!.n;

    test('a PDF is stored by its hash, whatever its name says, and served without a token at its url', async () => {
      const as = await seller();
      const response = await upload(as, PDF, { filename: 'report.bin', type: 'application/octet-stream' });
      assert.equal(response.statusCode, 201, response.body);
      const name = `${sha256(PDF)}.pdf`;
      assert.deepEqual(response.json(), {
        success: true,
        data: { name, url: `${t.deps.config.appUrl}/media/${name}`, content_type: 'application/pdf', size_bytes: PDF.length },
      });
      const [stored] = await selectRows<{ width: number | null; height: number | null }>(
        t.database,
        sql`select width, height from media where sha256 = ${sha256(PDF)}`,
      );
      assert.deepEqual(stored, { width: null, height: null });
      const served = await t.app.inject({ method: 'GET', url: `/media/${name}` });
      assert.equal(served.statusCode, 200);
      assert.equal(served.headers['content-type'], 'application/pdf');
      assert.deepEqual(served.rawPayload, PDF);
      // The same bytes again are the same file, stored once.
      const before = await mediaRows();
      assert.equal((await upload(as, PDF)).json().data.name, name);
      assert.equal(await mediaRows(), before);
    });

    test('an image is taken as a product image is: its format read from its bytes', async () => {
      const response = await upload(await seller(), PNG_640X480, { filename: 'certificate.pdf', type: 'application/pdf' });
      assert.equal(response.statusCode, 201, response.body);
      assert.deepEqual([response.json().data.name, response.json().data.content_type], [`${sha256(PNG_640X480)}.png`, 'image/png']);
    });

    test('a file that is neither a PDF nor an image, a PDF over 20 MB, an image over 10 MB or no file is 422 on file, and nothing is stored', async () => {
      const as = await seller();
      const before = await mediaRows();
      const cases: [Buffer, string][] = [
        [Buffer.from('Not a PDF at all, though named one.'), 'The file must be a PDF or a JPEG, PNG, WebP or GIF image.'],
        [Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(20 * MB)]), 'The file must not be greater than 20 MB.'],
        [Buffer.concat([PNG_640X480, Buffer.alloc(10 * MB)]), 'An image must not be greater than 10 MB.'],
        [Buffer.alloc(0), 'The file field is required.'],
      ];
      for (const [bytes, message] of cases) {
        const response = await upload(as, bytes);
        assert.equal(response.statusCode, 422, `${message}: ${response.body}`);
        assert.deepEqual(response.json(), { ...errorBody(422, INVALID), errors: { file: [message] } });
      }
      const misnamed = await upload(as, PDF, { name: 'data' });
      assert.deepEqual(misnamed.json().errors, { file: ['Send the file in a part named file.'] });
      assert.equal(await mediaRows(), before);
    });

    test('an upload needs a signed-in member of the workspace', async () => {
      const { payload, contentType } = multipart(PDF);
      const anonymous = await t.app.inject({ method: 'POST', url: `${API}/files`, headers: { 'content-type': contentType }, payload });
      assert.equal(anonymous.statusCode, 401);
    });
  });
}
