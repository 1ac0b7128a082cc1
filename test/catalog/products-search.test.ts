/** GET /products?q=: what a search finds, whatever the text's length or characters, and a meta.total that stays exact. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { databaseKinds } from '../helpers/database.js';
import { mug } from '../helpers/fixtures.js';
import { API, call, createTestApp, registerUser, type TestApp } from '../helpers/test-app.js';

for (const kind of databaseKinds()) {
  describe(`product search [${kind}]`, () => {
    let t: TestApp;
    before(async () => (t = await createTestApp(kind)));
    after(() => t.close());

    async function owner() {
      const user = await registerUser(t);
      const as = { token: user.session, workspace: user.workspace.id };
      return {
        workspaceId: user.workspace.id,
        async post(sku: string, title: string): Promise<number> {
          const response = await call(t, 'POST', '/products', { ...as, body: mug(sku, { title }) });
          assert.equal(response.statusCode, 201, response.body);
          return response.json().data.id;
        },
        patch: (id: number, body: unknown) => call(t, 'PATCH', `/products/${id}`, { ...as, body }),
        remove: (id: number) => call(t, 'DELETE', `/products/${id}`, as),
        importCsv: (csv: string) =>
          t.app.inject({
            method: 'POST',
            url: `${API}/products/import`,
            headers: { authorization: `Bearer ${user.session}`, 'x-workspace-id': String(user.workspace.id), 'content-type': 'text/csv' },
            payload: csv,
          }),
        async search(q: string, query = '') {
          const response = await call(t, 'GET', `/products?q=${encodeURIComponent(q)}${query}`, as);
          assert.equal(response.statusCode, 200, response.body);
          const { data, meta } = response.json();
          return { ids: data.map((p: { id: number }) => p.id) as number[], meta };
        },
        ids: async (q: string) =>
          (await call(t, 'GET', `/products?q=${encodeURIComponent(q)}&per_page=100`, as)).json().data.map((p: { id: number }) => p.id),
      };
    }

    test('q finds its text at the start, in the middle or at the end of a title or a sku, in any case', async () => {
      const me = await owner();
      const lamp = await me.post('LMP-0042-OAK', 'Brass Desk Lamp');
      const vase = await me.post('VS-77', 'Tall ceramic VASE');
      for (const q of ['brass', 'BRASS', 'desk', 'sK lA', 'lamp', 'lmp-', '0042', 'Oak', 'lmp-0042-oak']) {
        assert.deepEqual(await me.ids(q), [lamp], q);
      }
      for (const q of ['tall', 'Ceramic', 'vase', 'vs-7', '77']) assert.deepEqual(await me.ids(q), [vase], q);
      assert.deepEqual(await me.ids('a'), [lamp, vase]);
      assert.deepEqual(await me.ids('lamp vase'), []);
      // A title and a sku are separate texts: a search does not match across the two.
      assert.deepEqual(await me.ids('lamp lmp'), []);
    });

    test('%, _ and \\ in q are matched as themselves, not as wildcards', async () => {
      const me = await owner();
      const percent = await me.post('PCT-1', '100% linen');
      const underscore = await me.post('US_1', 'Plain tote');
      const backslash = await me.post('BS-1', 'Back\\slash mug');
      await me.post('PLAIN-1', '100 percent linen');
      assert.deepEqual(await me.ids('%'), [percent]);
      assert.deepEqual(await me.ids('0% l'), [percent]);
      assert.deepEqual(await me.ids('_'), [underscore]);
      assert.deepEqual(await me.ids('us_1'), [underscore]);
      assert.deepEqual(await me.ids('s_1'), [underscore]);
      assert.deepEqual(await me.ids('\\'), [backslash]);
      assert.deepEqual(await me.ids('k\\s'), [backslash]);
      assert.deepEqual(await me.ids('%%'), []);
      assert.deepEqual(await me.ids('__'), []);
    });

    test('a q of one or two characters finds every title or sku holding it, in any case', async () => {
      const me = await owner();
      const ox = await me.post('OX-1', 'Ox bowl');
      const fox = await me.post('F-2', 'Red fox print');
      const box = await me.post('B-3', 'Gift BOX');
      await me.post('C-4', 'Cup');
      assert.deepEqual(await me.ids('x'), [ox, fox, box]);
      assert.deepEqual(await me.ids('X'), [ox, fox, box]);
      assert.deepEqual(await me.ids('ox'), [ox, fox, box]);
      assert.deepEqual(await me.ids('-2'), [fox]);
      assert.deepEqual(await me.ids('z'), []);
    });

    test('meta.total counts every match on the first page, on a page in the middle and past the end', async () => {
      const me = await owner();
      const mugs: number[] = [];
      for (let i = 0; i < 7; i++) {
        mugs.push(await me.post(`M-${i}`, `Mug ${i}`));
        await me.post(`T-${i}`, `Tote ${i}`);
      }
      // Past the end first, before any page of the search was asked for.
      assert.deepEqual(await me.search('mug', '&page=5&per_page=3'), { ids: [], meta: { page: 5, per_page: 3, total: 7 } });
      assert.deepEqual(await me.search('mug', '&per_page=3'), { ids: mugs.slice(0, 3), meta: { page: 1, per_page: 3, total: 7 } });
      assert.deepEqual(await me.search('MUG', '&page=2&per_page=3'), { ids: mugs.slice(3, 6), meta: { page: 2, per_page: 3, total: 7 } });
      assert.deepEqual(await me.search('mug', '&page=3&per_page=3'), { ids: mugs.slice(6), meta: { page: 3, per_page: 3, total: 7 } });
      assert.deepEqual(await me.search('mug', '&page=4&per_page=3'), { ids: [], meta: { page: 4, per_page: 3, total: 7 } });
      assert.deepEqual((await me.search('m', '&per_page=3')).meta.total, 7);
      assert.deepEqual((await me.search('t', '&per_page=3')).meta.total, 7);
    });

    test('meta.total follows every change to the catalogue at once: a product made, renamed, given another sku, deleted', async () => {
      const me = await owner();
      const first = await me.post('CUP-1', 'Espresso cup');
      await me.post('CUP-2', 'Espresso cup');
      const total = async (q: string, page = 1) => (await me.search(q, `&page=${page}&per_page=1`)).meta.total;
      assert.equal(await total('espresso'), 2);
      assert.equal(await total('espresso', 9), 2);
      const third = await me.post('CUP-3', 'Espresso cup');
      assert.equal(await total('espresso'), 3);
      assert.equal(await total('espresso', 9), 3);
      assert.equal((await me.patch(first, { title: 'Latte bowl' })).statusCode, 200);
      assert.equal(await total('espresso'), 2);
      assert.equal(await total('latte'), 1);
      assert.equal(await total('cup-'), 3);
      assert.equal((await me.patch(third, { variants: [{ sku: 'MUG-3', price: '12.00', quantity: 4 }] })).statusCode, 200);
      assert.equal(await total('cup-'), 2);
      assert.equal(await total('mug-3'), 1);
      assert.equal((await me.remove(first)).statusCode, 204);
      assert.equal(await total('cup-'), 1);
      assert.equal(await total('cup-', 9), 1);
      assert.equal(await total(''), 2);
    });

    test('meta.total follows a CSV import that adds and renames products', async () => {
      const me = await owner();
      await me.post('IMP-0', 'Walnut board');
      const total = async (q: string) => (await me.search(q, '&per_page=1')).meta.total;
      assert.equal(await total('walnut'), 1);
      const csv = (titles: string[]) =>
        `handle,title,currency,sku,price,quantity\n${titles.map((title, i) => `w${i + 1},${title},EUR,IMP-${i + 1},9.99,1`).join('\n')}\n`;
      const made = await me.importCsv(csv(['Walnut spoon', 'Walnut bowl', 'Oak board']));
      assert.equal(made.statusCode, 200, made.body);
      assert.equal(await total('walnut'), 3);
      assert.equal(await total('board'), 2);
      const renamed = await me.importCsv(csv(['Cherry spoon', 'Walnut bowl', 'Oak board']));
      assert.equal(renamed.statusCode, 200, renamed.body);
      assert.equal(await total('walnut'), 2);
      assert.equal(await total('cherry'), 1);
    });

    // PostgreSQL only: PGlite has one connection, so a change and a search never overlap there.
    if (kind === 'postgres')
      test('a search counted while another connection adds a match keeps no total that misses it', async () => {
        const me = await owner();
        await me.post('K-1', 'Kettle');
        await me.post('K-2', 'Kettle');
        const writer = new pg.Client({ connectionString: t.database.url! });
        await writer.connect();
        try {
          await writer.query('begin');
          await writer.query(
            `insert into products (workspace_id, title, handle, currency, search) values ($1, 'Kettle', 'kettle-3', 'EUR', 'kettle')`,
            [me.workspaceId],
          );
          // The first count of this search, while the insert is not committed yet.
          const during = me.search('kettle', '&per_page=1');
          await new Promise((resolve) => setTimeout(resolve, 300));
          await writer.query('commit');
          assert.ok([2, 3].includes((await during).meta.total));
        } finally {
          await writer.end();
        }
        assert.equal((await me.search('kettle', '&per_page=1')).meta.total, 3);
        assert.equal((await me.search('kettle', '&page=7&per_page=1')).meta.total, 3);
      });

    test("one workspace's changes and searches leave another's totals exact", async () => {
      const me = await owner();
      const other = await owner();
      await me.post('A-1', 'Teapot');
      await me.post('A-2', 'Teapot');
      await other.post('B-1', 'Teapot');
      await other.post('B-2', 'Teapot');
      await other.post('B-3', 'Teapot');
      assert.equal((await me.search('teapot', '&per_page=1')).meta.total, 2);
      assert.equal((await other.search('teapot', '&per_page=1')).meta.total, 3);
      await other.post('B-4', 'Teapot');
      assert.equal((await me.search('teapot', '&per_page=1')).meta.total, 2);
      assert.equal((await other.search('teapot', '&per_page=1')).meta.total, 4);
    });
  });
}
