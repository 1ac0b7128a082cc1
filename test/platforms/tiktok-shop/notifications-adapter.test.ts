/**
 * TikTok Shop's webhooks as the notifications capability: the signature is TikTok's (computed here as TikTok documents
 * it, not by Storelink's code), and each type Storelink acts on reads as its platform-neutral kind.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import { createTikTokShopNotificationsAdapter } from '../../../src/platforms/tiktok-shop/notifications.js';

const APP = { appKey: 'app-key-1', appSecret: 'app-secret-1' };
const adapter = createTikTokShopNotificationsAdapter(APP);
const sign = (body: string) =>
  createHmac('sha256', APP.appSecret)
    .update(APP.appKey + body)
    .digest('hex');

test("a body signed with the app's key and secret verifies; an unsigned, altered or array header does not", () => {
  const body = JSON.stringify({ type: 6, shop_id: '7001', data: {} });
  assert.equal(adapter.verify({ authorization: sign(body) }, body), true);
  assert.equal(adapter.verify({ authorization: sign(body).toUpperCase() }, body), true);
  assert.equal(adapter.verify({}, body), false);
  assert.equal(adapter.verify({ authorization: sign(body) }, `${body} `), false);
  assert.equal(adapter.verify({ authorization: [sign(body)] }, body), false);
});

test('a seller deauthorization reads as deauthorized, with TikTok Shop’s message where it gave one', () => {
  assert.deepEqual(adapter.parse(JSON.stringify({ type: 6, shop_id: '7001', data: { message: 'Gone.' } })), {
    kind: 'deauthorized',
    accountId: '7001',
    message: 'Gone.',
  });
  assert.deepEqual(adapter.parse(JSON.stringify({ type: 6, shop_id: '7001' })), { kind: 'deauthorized', accountId: '7001', message: null });
});

test('a product status change reads as listing_changed, naming the product only by its id as text', () => {
  const change = (productId: unknown) => adapter.parse(JSON.stringify({ type: 5, shop_id: '7001', data: { product_id: productId } }));
  assert.deepEqual(change('1729382256910270000'), { kind: 'listing_changed', accountId: '7001', externalListingId: '1729382256910270000' });
  assert.deepEqual(change(1729382256910270000), { kind: 'listing_changed', accountId: '7001', externalListingId: null });
  assert.deepEqual(change('12a'), { kind: 'listing_changed', accountId: '7001', externalListingId: null });
});

test('a product audit status change (type 37: pre-approved, or released for sale) reads as listing_changed too', () => {
  const body = {
    type: 37,
    shop_id: '7001',
    data: { product_id: '1729382256910270000', audit: { status: 'PRE_APPROVED', pre_approved_reasons: ['KYC_PENDING'] } },
  };
  assert.deepEqual(adapter.parse(JSON.stringify(body)), {
    kind: 'listing_changed',
    accountId: '7001',
    externalListingId: '1729382256910270000',
  });
});

test('another type reads as other; a body without a shop, or not JSON, is no notification', () => {
  assert.deepEqual(adapter.parse(JSON.stringify({ type: 16, shop_id: '7001' })), { kind: 'other', accountId: '7001' });
  assert.equal(adapter.parse(JSON.stringify({ type: 6, data: {} })), null);
  assert.equal(adapter.parse('not json'), null);
});

test('the delivery is the body’s tts_notification_id and timestamp (seconds); without either there is none', () => {
  const body = (fields: object) => JSON.stringify({ type: 6, shop_id: '7001', ...fields });
  assert.deepEqual(adapter.delivery(body({ tts_notification_id: '7327112393057371910', timestamp: 1_700_000_000 })), {
    id: '7327112393057371910',
    sentAt: new Date(1_700_000_000_000),
  });
  for (const fields of [{ timestamp: 1_700_000_000 }, { tts_notification_id: '1' }, { tts_notification_id: '', timestamp: 1 }])
    assert.equal(adapter.delivery(body(fields)), null, JSON.stringify(fields));
  assert.equal(adapter.delivery(body({ tts_notification_id: '1', timestamp: 2 ** 53 - 1 })), null, 'a time past any date');
  assert.equal(adapter.delivery('not json'), null);
});
