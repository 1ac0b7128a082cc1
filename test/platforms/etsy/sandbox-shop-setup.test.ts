/**
 * The Etsy simulator's shop setup (src/sandbox/etsy/shop-setup.ts, listings.md §1.3) driven as Etsy's API is, without
 * Storelink: a shop the consent page made empty has no shipping profile, return policy or processing profile; each
 * create takes a form with `shops_w`, refuses what Etsy refuses (400 with `[{path, type, message}]`), answers 409 for
 * a processing profile or return policy the shop holds already, and what it made is listed and usable by a listing.
 * Not a database test: the simulator keeps its state in memory (PGlite only).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SANDBOX_CLIENTS } from '../../../src/sandbox/context.js';
import { PKCE_CHALLENGE, PKCE_VERIFIER } from '../../helpers/fixtures.js';
import { createTestApp, injectForm, type TestApp } from '../../helpers/test-app.js';

const ETSY = SANDBOX_CLIENTS.etsy;
const KEY = `${ETSY.clientId}:${ETSY.sharedSecret}`;
const BASE = '/sandbox/etsy/v3/application';
const shopOf = (account: number) => 80_000_000 + account;

let t: TestApp;
before(async () => {
  t = await createTestApp('pglite');
  Object.assign(t.deps.sandbox.etsyLimits, { perSecond: 1_000_000, perDay: 1_000_000_000 });
});
after(() => t.close());

/** A grant of `scope` on the account's shop, `shop` the consent page's choice; the access token. */
async function connect(account: number, shop: string, scope = 'shops_r shops_w listings_r listings_w'): Promise<string> {
  const consent = await injectForm(t, '/sandbox/etsy/authorize', {
    response_type: 'code',
    client_id: ETSY.clientId,
    redirect_uri: t.deps.sandbox.callbackUrl('etsy'),
    scope,
    state: 'state-1',
    code_challenge: PKCE_CHALLENGE,
    code_challenge_method: 'S256',
    decision: 'allow',
    account: String(account),
    shop,
  });
  const code = new URL(consent.headers.location as string).searchParams.get('code')!;
  const tokens = await injectForm(
    t,
    '/sandbox/etsy/v3/public/oauth/token',
    {
      grant_type: 'authorization_code',
      client_id: ETSY.clientId,
      redirect_uri: t.deps.sandbox.callbackUrl('etsy'),
      code,
      code_verifier: PKCE_VERIFIER,
    },
    { 'x-api-key': KEY },
  );
  assert.equal(tokens.statusCode, 200, tokens.body);
  return tokens.json().access_token;
}

const headers = (token: string) => ({ 'x-api-key': KEY, authorization: `Bearer ${token}` });
const list = async (token: string, account: number, path: string) => {
  const answer = await t.app.inject({ method: 'GET', url: `${BASE}/shops/${shopOf(account)}/${path}`, headers: headers(token) });
  assert.equal(answer.statusCode, 200, answer.body);
  return answer.json().results as Record<string, unknown>[];
};
const create = (token: string, account: number, path: string, fields: Record<string, string>) =>
  t.app.inject({
    method: 'POST',
    url: `${BASE}/shops/${shopOf(account)}/${path}`,
    headers: { ...headers(token), 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  });
const paths = (body: { path: string }[]) => body.map((p) => p.path);

const SHIPPING = {
  title: 'Standard',
  origin_country_iso: 'US',
  origin_postal_code: '10001',
  primary_cost: '4.50',
  secondary_cost: '1.00',
  destination_country_iso: 'US',
  min_delivery_days: '3',
  max_delivery_days: '7',
};

describe('the Etsy simulator: a new shop and its prerequisites', () => {
  test('an empty shop lists none of them; an ordinary one lists two of each; getShop says where each is', async () => {
    const empty = await connect(3701, 'empty');
    for (const path of ['shipping-profiles', 'policies/return', 'readiness-state-definitions'])
      assert.deepEqual(await list(empty, 3701, path), [], path);
    const stocked = await connect(3702, '');
    for (const path of ['shipping-profiles', 'policies/return', 'readiness-state-definitions'])
      assert.equal((await list(stocked, 3702, path)).length, 2, path);
    await connect(3703, 'empty-eu');
    const shop = await t.app.inject({ method: 'GET', url: `${BASE}/shops/${shopOf(3703)}`, headers: { 'x-api-key': KEY } });
    assert.equal(shop.json().shop_location_country_iso, 'DE');
  });

  test('createShopShippingProfile: Etsy checks, then 201 with the profile, listed after', async () => {
    const token = await connect(3704, 'empty');
    const refusals: [Record<string, string>, string][] = [
      [{ ...SHIPPING, title: ' ' }, '/title'],
      [{ ...SHIPPING, origin_postal_code: '' }, '/origin_postal_code'],
      [{ ...SHIPPING, destination_region: 'eu' }, '/destination_country_iso'],
      [{ ...SHIPPING, destination_country_iso: '' }, '/destination_country_iso'],
      [{ ...SHIPPING, primary_cost: 'free' }, '/primary_cost'],
      [{ ...SHIPPING, min_delivery_days: '9' }, '/min_delivery_days'],
      [{ ...SHIPPING, shipping_carrier_id: '1' }, '/mail_class'],
      [{ ...SHIPPING, color: 'red' }, '/color'],
    ];
    for (const [fields, path] of refusals) {
      const body = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== ''));
      const refused = await create(token, 3704, 'shipping-profiles', body);
      assert.equal(refused.statusCode, 400, `${path}: ${refused.body}`);
      assert.ok(paths(refused.json()).includes(path), `${path} in ${refused.body}`);
    }
    assert.deepEqual(await list(token, 3704, 'shipping-profiles'), [], 'nothing made by a refused create');
    const { destination_country_iso: _, ...toEu } = SHIPPING;
    const made = await create(token, 3704, 'shipping-profiles', {
      ...toEu,
      origin_country_iso: 'DE',
      origin_postal_code: '10115',
      destination_region: 'eu',
    });
    assert.equal(made.statusCode, 201, made.body);
    assert.equal(made.json().origin_country_iso, 'DE');
    assert.deepEqual(
      (await list(token, 3704, 'shipping-profiles')).map((p) => p.shipping_profile_id),
      [made.json().shipping_profile_id],
    );
    // A JSON body is not Etsy's form.
    const json = await t.app.inject({
      method: 'POST',
      url: `${BASE}/shops/${shopOf(3704)}/shipping-profiles`,
      headers: headers(token),
      payload: SHIPPING,
    });
    assert.equal(json.statusCode, 400);
  });

  test('createShopReturnPolicy: a deadline of the list when either is accepted; a duplicate is a 409', async () => {
    const token = await connect(3705, 'empty');
    const cases: [Record<string, string>, string][] = [
      [{ accepts_returns: 'true', accepts_exchanges: 'false' }, '/return_deadline'],
      [{ accepts_returns: 'true', accepts_exchanges: 'true', return_deadline: '25' }, '/return_deadline'],
      [{ accepts_exchanges: 'true', return_deadline: '30' }, '/accepts_returns'],
      [{ accepts_returns: 'yes', accepts_exchanges: 'true', return_deadline: '30' }, '/accepts_returns'],
    ];
    for (const [fields, path] of cases) {
      const refused = await create(token, 3705, 'policies/return', fields);
      assert.equal(refused.statusCode, 400, refused.body);
      assert.ok(paths(refused.json()).includes(path), `${path} in ${refused.body}`);
    }
    const made = await create(token, 3705, 'policies/return', {
      accepts_returns: 'true',
      accepts_exchanges: 'true',
      return_deadline: '30',
    });
    assert.equal(made.statusCode, 201, made.body);
    assert.deepEqual([made.json().accepts_returns, made.json().accepts_exchanges, made.json().return_deadline], [true, true, 30]);
    const again = await create(token, 3705, 'policies/return', {
      accepts_returns: 'true',
      accepts_exchanges: 'true',
      return_deadline: '30',
    });
    assert.equal(again.statusCode, 409);
    const none = await create(token, 3705, 'policies/return', { accepts_returns: 'false', accepts_exchanges: 'false' });
    assert.equal(none.statusCode, 201);
    assert.equal(none.json().return_deadline, null);
    assert.equal((await list(token, 3705, 'policies/return')).length, 2);
  });

  test('createShopReadinessStateDefinition: times 1 to 10; an identical one is a 409 pointing at it', async () => {
    const token = await connect(3706, 'empty');
    const fields = { readiness_state: 'ready_to_ship', min_processing_time: '1', max_processing_time: '3' };
    for (const [bad, path] of [
      [{ ...fields, readiness_state: 'soon' }, '/readiness_state'],
      [{ ...fields, max_processing_time: '11' }, '/max_processing_time'],
      [{ ...fields, min_processing_time: '4' }, '/min_processing_time'],
      [{ ...fields, processing_time_unit: 'months' }, '/processing_time_unit'],
    ] as const) {
      const refused = await create(token, 3706, 'readiness-state-definitions', bad);
      assert.equal(refused.statusCode, 400, refused.body);
      assert.ok(paths(refused.json()).includes(path), `${path} in ${refused.body}`);
    }
    const made = await create(token, 3706, 'readiness-state-definitions', fields);
    assert.equal(made.statusCode, 201, made.body);
    assert.equal(made.json().processing_time_unit, 'days', "Etsy's default unit");
    const again = await create(token, 3706, 'readiness-state-definitions', { ...fields, processing_time_unit: 'days' });
    assert.equal(again.statusCode, 409);
    const location = again.headers['content-location'] as string;
    assert.equal(location, `/v3/application/shops/${shopOf(3706)}/readiness-state-definitions/${made.json().readiness_state_id}`);
    const pointed = await t.app.inject({ method: 'GET', url: `/sandbox/etsy${location}`, headers: headers(token) });
    assert.equal(pointed.json().readiness_state_id, made.json().readiness_state_id);
  });

  test('a create needs shops_w and the token’s own shop; a listing can name what was made', async () => {
    const readOnly = await connect(3707, 'empty', 'shops_r listings_r listings_w');
    const refused = await create(readOnly, 3707, 'readiness-state-definitions', {
      readiness_state: 'ready_to_ship',
      min_processing_time: '1',
      max_processing_time: '3',
    });
    assert.deepEqual([refused.statusCode, refused.json().error], [403, 'insufficient_scope']);
    const other = await connect(3708, 'empty');
    assert.equal((await create(other, 3707, 'policies/return', { accepts_returns: 'false', accepts_exchanges: 'false' })).statusCode, 403);

    // A draft listing naming a shipping profile the shop does not have is refused; one it made is taken.
    const shipping = (await create(other, 3708, 'shipping-profiles', SHIPPING)).json().shipping_profile_id as number;
    const readiness = (
      await create(other, 3708, 'readiness-state-definitions', {
        readiness_state: 'made_to_order',
        min_processing_time: '1',
        max_processing_time: '2',
      })
    ).json().readiness_state_id as number;
    const draft = (shippingProfileId: number) =>
      create(other, 3708, 'listings', {
        quantity: '1',
        title: 'Mug',
        description: 'A mug',
        price: '18.00',
        who_made: 'i_did',
        when_made: 'made_to_order',
        taxonomy_id: '1071',
        shipping_profile_id: String(shippingProfileId),
        readiness_state_id: String(readiness),
      });
    assert.equal((await draft(shopOf(3708) * 100 + 1)).statusCode, 400, "an ordinary shop's id is not this empty shop's");
    const made = await draft(shipping);
    assert.equal(made.statusCode, 201, made.body);
  });
});
