/**
 * A new Etsy shop, with no shipping profile, return policy or processing profile, can publish (issue 36, item 6):
 * Storelink creates them on Etsy (scope `shops_w`) from the site's listing settings, `PUT
 * /sites/{site_id}/listing-settings` with `new_shipping_profile`, `new_return_policy` and `new_processing_profile`,
 * each made on the shop and its id stored in its setting. What the simulated shop holds is read back through the
 * settings' choices (the shop's own lists) and its inspection. Bad input is a 422 on its field that changes nothing
 * here or on Etsy; an EU shop is not asked for a return policy, which Etsy does not require of it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { LISTING_QUEUE } from '../../../src/core/listings/listing-work.js';
import { databaseKinds, selectRows } from '../../helpers/database.js';
import { etsySeller, leafCategory, mugProduct } from '../../helpers/listings.js';
import { call, createTestApp, runDueJobs, type TestApp } from '../../helpers/test-app.js';

type Seller = Awaited<ReturnType<typeof etsySeller>>;

/** What the dashboard's form offers a new US shop (docs/listings.md, "A new Etsy shop"). */
const SHIPPING = {
  title: 'Standard shipping',
  origin_country_iso: 'US',
  origin_postal_code: '10001',
  primary_cost: '4.50',
  secondary_cost: '1.00',
  destination_country_iso: 'US',
  min_delivery_days: 3,
  max_delivery_days: 7,
};
const RETURNS = { accepts_returns: true, accepts_exchanges: true, return_deadline: 30 };
const PROCESSING = { readiness_state: 'ready_to_ship', min_processing_time: 1, max_processing_time: 3, processing_time_unit: 'days' };
const MADE = { who_made: 'i_did', when_made: 'made_to_order' };

interface ShopListing {
  id: number;
  state: string;
  shipping_profile_id: number;
  return_policy_id: number | null;
  readiness_state_id: number;
}

for (const kind of databaseKinds()) {
  describe(`a new Etsy shop's prerequisites [${kind}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind, { listen: true });
      Object.assign(t.deps.sandbox.etsyLimits, { perSecond: 1_000_000, perDay: 1_000_000_000 });
    });
    after(() => t.close());

    const options = async (me: Seller) => (await call(t, 'GET', `/sites/${me.site}/listing-options`, me.as)).json().data;
    const settings = async (me: Seller) => (await call(t, 'GET', `/sites/${me.site}/listing-settings`, me.as)).json().data;
    const put = (me: Seller, body: Record<string, unknown>) => call(t, 'PUT', `/sites/${me.site}/listing-settings`, { ...me.as, body });
    const calls = (operation: string) => t.deps.sandbox.calls.get(`etsy:${operation}`) ?? 0;
    const creates = () =>
      calls('createShopShippingProfile') + calls('createShopReturnPolicy') + calls('createShopReadinessStateDefinition');
    const shop = async (account: string): Promise<ShopListing[]> => {
      const response = await fetch(`${t.deps.config.appUrl}/sandbox/etsy/accounts/${account}/listings`);
      assert.equal(response.status, 200);
      return response.json() as Promise<ShopListing[]>;
    };
    const publish = async (me: Seller, sku: string) => {
      const productId = await mugProduct(t, me, sku);
      const { id: categoryId, attributes } = await leafCategory(t, me, 'mug');
      return call(t, 'POST', `/sites/${me.site}/listings`, {
        ...me.as,
        body: { product_id: productId, category_id: categoryId, attributes },
      });
    };
    const stored = async (me: Seller) =>
      (
        await selectRows<{ listing_settings: Record<string, unknown> }>(
          t.database,
          sql`select listing_settings from sites where id = ${me.site}`,
        )
      )[0]!.listing_settings;

    test('an empty shop creates its shipping profile, return policy and processing profile from the settings, then publishes', async () => {
      const me = await etsySeller(t, '3601', { shop: 'empty', settings: false });
      const before = await options(me);
      assert.deepEqual([before.shipping_profile_id, before.return_policy_id, before.readiness_state_id], [[], [], []]);
      // Nothing to choose, so nothing publishes yet: the missing settings are named.
      const refused = await publish(me, 'NEW1');
      assert.equal(refused.statusCode, 422, refused.body);
      for (const field of ['shipping_profile_id', 'return_policy_id', 'readiness_state_id'])
        assert.ok(refused.json().errors[`settings.${field}`], `${field} is named: ${refused.body}`);

      const made = await put(me, {
        ...MADE,
        new_shipping_profile: SHIPPING,
        new_return_policy: RETURNS,
        new_processing_profile: PROCESSING,
      });
      assert.equal(made.statusCode, 200, made.body);
      const saved = made.json().data;
      // The shop now holds one of each, and the settings name them; the creates themselves are not stored.
      const after = await options(me);
      assert.deepEqual(after.shipping_profile_id, [{ value: saved.shipping_profile_id, label: 'Standard shipping' }]);
      assert.deepEqual(after.return_policy_id, [{ value: saved.return_policy_id, label: 'Returns and exchanges within 30 days' }]);
      assert.deepEqual(after.readiness_state_id, [{ value: saved.readiness_state_id, label: 'Ready to ship in 1–3 days' }]);
      assert.deepEqual(await settings(me), { ...saved });
      assert.deepEqual(Object.keys(await stored(me)).sort(), [
        'readiness_state_id',
        'return_policy_id',
        'shipping_profile_id',
        'when_made',
        'who_made',
      ]);

      const published = await publish(me, 'NEW2');
      assert.equal(published.statusCode, 202, published.body);
      await runDueJobs(t, LISTING_QUEUE);
      const listing = (await call(t, 'GET', `/listings/${published.json().data.id}`, me.as)).json().data;
      assert.equal(listing.status, 'active', JSON.stringify(listing.issues));
      const [held] = await shop(me.account);
      assert.deepEqual(
        [held!.state, String(held!.shipping_profile_id), String(held!.return_policy_id), String(held!.readiness_state_id)],
        ['active', saved.shipping_profile_id, saved.return_policy_id, saved.readiness_state_id],
      );
    });

    test('the same return policy or processing profile asked for twice is the one the shop holds, not a second', async () => {
      const me = await etsySeller(t, '3602', { shop: 'empty', settings: false });
      const first = (await put(me, { new_return_policy: RETURNS, new_processing_profile: PROCESSING })).json().data;
      const again = await put(me, {
        new_return_policy: RETURNS,
        new_processing_profile: { ...PROCESSING, processing_time_unit: undefined },
      });
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.json().data.return_policy_id, first.return_policy_id);
      assert.equal(again.json().data.readiness_state_id, first.readiness_state_id, "Etsy's unit defaults to days: the same profile");
      const held = await options(me);
      assert.equal(held.return_policy_id.length, 1);
      assert.equal(held.readiness_state_id.length, 1);
    });

    test('bad input is a 422 on its field, and nothing is created on Etsy or stored here', async () => {
      const me = await etsySeller(t, '3603', { shop: 'empty', settings: false });
      assert.equal((await put(me, MADE)).statusCode, 200);
      const before = await stored(me);
      const cases: [Record<string, unknown>, string, RegExp][] = [
        [{ new_return_policy: { ...RETURNS, return_deadline: 25 } }, 'new_return_policy.return_deadline', /./],
        [
          { new_return_policy: { accepts_returns: true, accepts_exchanges: false } },
          'new_return_policy.return_deadline',
          /needs a deadline/,
        ],
        [{ new_processing_profile: { ...PROCESSING, max_processing_time: 11 } }, 'new_processing_profile.max_processing_time', /./],
        [
          { new_processing_profile: { ...PROCESSING, min_processing_time: 5 } },
          'new_processing_profile.min_processing_time',
          /cannot be more/,
        ],
        [
          { new_shipping_profile: { ...SHIPPING, destination_region: 'eu' } },
          'new_shipping_profile.destination_country_iso',
          /one destination/,
        ],
        [{ new_shipping_profile: { ...SHIPPING, primary_cost: '-1' } }, 'new_shipping_profile.primary_cost', /./],
        [{ new_shipping_profile: { ...SHIPPING, origin_country_iso: 'usa' } }, 'new_shipping_profile.origin_country_iso', /./],
        [{ new_shipping_profile: { ...SHIPPING, carrier: 'UPS' } }, 'new_shipping_profile', /./],
      ];
      const sent = creates();
      for (const [body, field, message] of cases) {
        const answer = await put(me, { ...MADE, ...body });
        assert.equal(answer.statusCode, 422, `${JSON.stringify(body)}: ${answer.body}`);
        assert.equal(answer.json().success, false);
        const errors = answer.json().errors as Record<string, string[]>;
        const found = Object.entries(errors).find(([name]) => name === field || name.startsWith(`${field}.`));
        assert.ok(found, `${field} in ${answer.body}`);
        assert.match(found[1][0]!, message);
      }
      assert.equal(creates(), sent, 'nothing was sent to Etsy');

      // Etsy's own refusal (a US origin needs its postcode) reaches the field in Etsy's words, and stores nothing.
      const { origin_postal_code: _, ...noPostcode } = SHIPPING;
      const etsyRefused = await put(me, { ...MADE, new_processing_profile: PROCESSING, new_shipping_profile: noPostcode });
      assert.equal(etsyRefused.statusCode, 422, etsyRefused.body);
      assert.deepEqual(etsyRefused.json().errors, {
        'new_shipping_profile.origin_postal_code': ['is required for origin_country_iso US'],
      });
      assert.deepEqual(await stored(me), before);
      assert.deepEqual((await options(me)).shipping_profile_id, []);
    });

    test('a site connected without shops_w is told to connect again, and nothing is sent', async () => {
      const me = await etsySeller(t, '3606', { shop: 'empty', settings: false });
      await t.database.db.execute(
        sql`update sites set granted_scopes = '["shops_r", "listings_r", "listings_w"]'::jsonb where id = ${me.site}`,
      );
      const sent = creates();
      const refused = await put(me, { ...MADE, new_processing_profile: PROCESSING });
      assert.equal(refused.statusCode, 422, refused.body);
      assert.match(refused.json().errors.new_processing_profile[0], /shops_w permission.*connect the site again/);
      assert.equal(creates(), sent);
      assert.equal((await call(t, 'GET', `/sites/${me.site}`, me.as)).json().data.status, 'connected');
    });

    test('an EU shop is not asked for a return policy: it creates the other two and publishes without one', async () => {
      const me = await etsySeller(t, '3604', { shop: 'empty-eu', settings: false });
      const shipping = {
        ...SHIPPING,
        origin_country_iso: 'DE',
        origin_postal_code: '10115',
        destination_country_iso: undefined,
        destination_region: 'eu',
      };
      const made = await put(me, { ...MADE, new_shipping_profile: shipping, new_processing_profile: PROCESSING });
      assert.equal(made.statusCode, 200, made.body);
      assert.equal(made.json().data.return_policy_id, null);
      const published = await publish(me, 'EU1');
      assert.equal(published.statusCode, 202, published.body);
      await runDueJobs(t, LISTING_QUEUE);
      const listing = (await call(t, 'GET', `/listings/${published.json().data.id}`, me.as)).json().data;
      assert.equal(listing.status, 'active', JSON.stringify(listing.issues));
      const [held] = await shop(me.account);
      assert.deepEqual([held!.state, held!.return_policy_id], ['active', null]);

      // A US shop without one is still refused before anything is sent: Etsy requires it there.
      const us = await etsySeller(t, '3605', { shop: 'empty', settings: false });
      assert.equal((await put(us, { ...MADE, new_shipping_profile: SHIPPING, new_processing_profile: PROCESSING })).statusCode, 200);
      const refused = await publish(us, 'US1');
      assert.equal(refused.statusCode, 422, refused.body);
      assert.deepEqual(Object.keys(refused.json().errors), ['settings.return_policy_id']);
    });
  });
}
