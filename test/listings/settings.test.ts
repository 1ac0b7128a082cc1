/**
 * A site's listing settings (DESIGN §10): GET answers every field of the site's platform with its default or null, PUT
 * replaces them after checking each field against the platform's list, and a refused PUT changes nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connectAmazonSellerSite, connectEtsySite } from '../helpers/connect.js';
import { databaseKinds } from '../helpers/database.js';
import { call, createTestApp, errorBody, registerUser, type TestApp } from '../helpers/test-app.js';

const ETSY_DEFAULTS = {
  price_adjustment_percent: 0,
  stock_buffer: 0,
  exchange_rates: {},
  shipping_profile_id: null,
  return_policy_id: null,
  readiness_state_id: null,
  who_made: null,
  when_made: null,
  is_supply: false,
};

for (const kind of databaseKinds()) {
  describe(`listing settings [${kind}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind, { listen: true });
    });
    after(() => t.close());

    async function seller() {
      const user = await registerUser(t);
      const as = { token: user.session, workspace: user.workspace.id };
      return {
        ...user,
        as,
        get: (path: string) => call(t, 'GET', path, as),
        put: (path: string, body: unknown) => call(t, 'PUT', path, { ...as, body }),
      };
    }

    test('an Etsy site starts with every Etsy field unset and the defaults; PUT replaces them and GET reads them back', async () => {
      const me = await seller();
      const site = await connectEtsySite(t, me);
      assert.deepEqual((await me.get(`/sites/${site}/listing-settings`)).json(), { success: true, data: ETSY_DEFAULTS });
      const settings = {
        price_adjustment_percent: 12.5,
        stock_buffer: 2,
        exchange_rates: { EUR: '1.08', GBP: '1.27' },
        shipping_profile_id: '234107945503',
        return_policy_id: '1',
        readiness_state_id: '6752737961',
        who_made: 'i_did',
        when_made: 'made_to_order',
      };
      const put = await me.put(`/sites/${site}/listing-settings`, settings);
      assert.equal(put.statusCode, 200, put.body);
      assert.deepEqual(put.json().data, { ...settings, is_supply: false });
      assert.deepEqual((await me.get(`/sites/${site}/listing-settings`)).json().data, { ...settings, is_supply: false });
      // PUT is a replacement: what is left out is unset again.
      assert.deepEqual((await me.put(`/sites/${site}/listing-settings`, { stock_buffer: 1 })).json().data, {
        ...ETSY_DEFAULTS,
        stock_buffer: 1,
      });
    });

    test('every bad field is a 422 on that field, all at once, and the settings stay as they were', async () => {
      const me = await seller();
      const site = await connectEtsySite(t, me);
      await me.put(`/sites/${site}/listing-settings`, { stock_buffer: 3 });
      const response = await me.put(`/sites/${site}/listing-settings`, {
        price_adjustment_percent: -91,
        stock_buffer: 1.5,
        shipping_profile_id: 'abc',
        who_made: 'a robot',
        warehouse_id: '1',
        exchange_rates: { EUR: '0', usd: '1.1' },
      });
      assert.equal(response.statusCode, 422, response.body);
      assert.deepEqual(Object.keys(response.json().errors).sort(), [
        'exchange_rates.EUR',
        'exchange_rates.usd',
        'price_adjustment_percent',
        'shipping_profile_id',
        'stock_buffer',
        'warehouse_id',
        'who_made',
      ]);
      assert.deepEqual(response.json().errors.warehouse_id, ['The warehouse id field is not one this request takes.']);
      assert.deepEqual(response.json().errors['exchange_rates.EUR'], [
        'The rate from EUR must be a decimal number above 0 with at most six decimals, like 1.08.',
      ]);
      assert.deepEqual(response.json().errors['exchange_rates.usd'], ['usd is not a currency code: three capital letters, like EUR.']);
      assert.deepEqual((await me.get(`/sites/${site}/listing-settings`)).json().data, { ...ETSY_DEFAULTS, stock_buffer: 3 });
      const notAnObject = await me.put(`/sites/${site}/listing-settings`, ['stock_buffer']);
      assert.equal(notAnObject.statusCode, 422);
    });

    test("an Amazon site has Amazon's fields, condition_type new_new by default", async () => {
      const me = await seller();
      const site = await connectAmazonSellerSite(t, me);
      const { data } = (await me.get(`/sites/${site}/listing-settings`)).json();
      assert.deepEqual(data, {
        price_adjustment_percent: 0,
        stock_buffer: 0,
        exchange_rates: {},
        marketplace_id: null,
        condition_type: 'new_new',
      });
      const put = await me.put(`/sites/${site}/listing-settings`, { marketplace_id: 'ATVPDKIKX0DER' });
      assert.deepEqual(put.json().data, { ...data, marketplace_id: 'ATVPDKIKX0DER' });
      assert.equal((await me.put(`/sites/${site}/listing-settings`, { who_made: 'i_did' })).statusCode, 422);
    });

    test("another workspace's site, or none, is 404 Not found on every settings route", async () => {
      const me = await seller();
      const other = await seller();
      const site = await connectEtsySite(t, other);
      for (const path of [`/sites/${site}/listing-settings`, '/sites/999999/listing-settings']) {
        const read = await me.get(path);
        assert.deepEqual([read.statusCode, read.json()], [404, errorBody(404, 'Not found')]);
        assert.equal((await me.put(path, { stock_buffer: 1 })).statusCode, 404);
      }
      assert.deepEqual((await other.get(`/sites/${site}/listing-settings`)).json().data, ETSY_DEFAULTS);
    });
  });
}
