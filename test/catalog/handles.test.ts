/**
 * A product's handle (DESIGN §9): its key in CSV files, unique in the workspace, made from the title when not given;
 * the import matches rows by sku first, then by handle, and a sku of another product than its handle's is a 422 on
 * its line, never a silent move or rename.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { catalogueUser } from '../helpers/catalogue.js';
import { databaseKinds } from '../helpers/database.js';
import { call, createTestApp, type TestApp } from '../helpers/test-app.js';

for (const kind of databaseKinds()) {
  describe(`product handles [${kind}]`, () => {
    let t: TestApp;
    before(async () => (t = await createTestApp(kind)));
    after(() => t.close());

    const owner = () => catalogueUser(t);
    const plain = (sku: string, title = 'Crème brûlée ramekin, 2 pack') => ({
      title,
      currency: 'EUR',
      variants: [{ sku, price: '9.00', quantity: 3 }],
    });

    test('made from the title when not given, unique in the workspace, refused when taken or malformed', async () => {
      const me = await owner();
      const first = await me.post(plain('RAM-1'));
      assert.equal(first.statusCode, 201, first.body);
      assert.equal(first.json().data.handle, 'creme-brulee-ramekin-2-pack');
      const second = await me.post(plain('RAM-2'));
      assert.equal(second.json().data.handle, 'creme-brulee-ramekin-2-pack-2');
      // Another workspace has handles of its own.
      assert.equal((await (await owner()).post(plain('RAM-1'))).json().data.handle, 'creme-brulee-ramekin-2-pack');

      const taken = await me.post({ ...plain('RAM-3'), handle: 'creme-brulee-ramekin-2-pack' });
      assert.equal(taken.statusCode, 422);
      assert.deepEqual(taken.json().errors, { handle: ['The handle has already been taken.'] });
      const malformed = await me.post({ ...plain('RAM-3'), handle: 'Not A Handle' });
      assert.equal(malformed.statusCode, 422);
      assert.deepEqual(Object.keys(malformed.json().errors), ['handle']);
      const given = await me.post({ ...plain('RAM-3'), handle: 'ramekins' });
      assert.equal(given.json().data.handle, 'ramekins');

      const renamed = await me.patch(first.json().data.id, { handle: 'ramekins' });
      assert.equal(renamed.statusCode, 422);
      assert.deepEqual(renamed.json().errors, { handle: ['The handle has already been taken.'] });
      const free = await me.patch(first.json().data.id, { handle: 'ramekin-pair' });
      assert.equal(free.statusCode, 200, free.body);
      assert.deepEqual([free.json().data.handle, free.json().data.version], ['ramekin-pair', 2]);
      assert.equal((await me.products()).length, 3);
    });

    test('the import matches by sku, then by handle; a sku of another product than its handle names is a 422 on its line', async () => {
      const me = await owner();
      const sized = {
        options: [{ name: 'Size', values: ['S'] }],
        variants: [{ sku: 'MUG-1', option_values: { Size: 'S' }, price: '9.00', quantity: 3 }],
      };
      const mug = (await me.post({ ...plain('MUG-1', 'Stoneware mug'), ...sized, handle: 'mug' })).json().data;
      const bowl = (await me.post({ ...plain('BOWL-1', 'Stoneware bowl'), handle: 'bowl' })).json().data;
      const before = await me.products();

      // BOWL-1 is the bowl's: under the mug's handle it is refused, and nothing is written.
      const moved = await me.importCsv('handle,title,sku,price,quantity\nmug,Stoneware mug,MUG-1,9.00,3\nmug,,BOWL-1,9.00,1\n');
      assert.equal(moved.statusCode, 422, moved.body);
      assert.deepEqual(moved.json().errors['line 3.sku'], [
        "The sku has already been taken by another product than the one line 2's sku belongs to.",
      ]);
      const renamed = await me.importCsv('handle,title,sku,price,quantity\nmug,Bowl renamed,BOWL-1,9.00,1\n');
      assert.equal(renamed.statusCode, 422, renamed.body);
      assert.deepEqual(renamed.json().errors, { 'line 2.sku': ['The sku belongs to another product than the one the handle mug names.'] });
      assert.deepEqual(await me.products(), before);

      // A new sku under a stored handle is a new variant of that product, not a new product.
      const added = await me.importCsv(
        'handle,title,option1_name,option1_value,sku,price,quantity\nmug,Stoneware mug,Size,L,MUG-2,11.00,5\n',
      );
      assert.equal(added.statusCode, 200, added.body);
      assert.deepEqual([added.json().data.created, added.json().data.updated], [0, 1]);
      const after = (await call(t, 'GET', `/products/${mug.id}`, me.as)).json().data;
      assert.deepEqual(
        after.variants.map((v: { sku: string }) => v.sku),
        ['MUG-1', 'MUG-2'],
      );
      // The export writes each product's handle, and reading it back changes nothing.
      const exported = await call(t, 'GET', '/products/export', me.as);
      assert.match(exported.body, /\nmug,Stoneware mug,/);
      assert.match(exported.body, /\nbowl,Stoneware bowl,/);
      const again = await me.importCsv(exported.body);
      assert.deepEqual([again.json().data.updated, again.json().data.unchanged], [0, 2]);
      assert.equal((await call(t, 'GET', `/products/${bowl.id}`, me.as)).json().data.version, 1);
    });
  });
}
