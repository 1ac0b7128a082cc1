/**
 * The listed price and quantity (DESIGN §10, §15): exact cents, converted by the site's rate, rounded half up once, and
 * a stock buffer never below zero.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { cataloguePrice, listedPrice, listedQuantity, pricingOf } from '../../src/core/listings/pricing.js';

const price = fc.integer({ min: 1, max: 99_999_999 }).map((cents) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`);
const percent = fc.integer({ min: -9_000, max: 50_000 }).map((hundredths) => hundredths / 100);

test('examples: a rise, a cut, half a cent up, and the catalogue price unchanged at 0 %', () => {
  assert.equal(listedPrice('19.99', 0), '19.99');
  assert.equal(listedPrice('19.9', 0), '19.90');
  assert.equal(listedPrice('10', 12.5), '11.25');
  assert.equal(listedPrice('24.00', -90), '2.40');
  assert.equal(listedPrice('0.05', 10), '0.06');
  assert.equal(listedPrice('0.01', -90), '0.00');
  assert.equal(listedPrice('999999.99', 500), '5999999.94');
});

test('the listed price is within half a cent of the exact adjusted price, for any price and percentage', () => {
  fc.assert(
    fc.property(price, percent, (p, pct) => {
      const exact = (Number(p) * (100 + pct)) / 100;
      return Math.abs(Number(listedPrice(p, pct)) - exact) <= 0.005 + 1e-6;
    }),
  );
});

test('a higher percentage never lists lower, and 100 % doubles the price', () => {
  fc.assert(
    fc.property(price, percent, percent, (p, a, b) => {
      const [low, high] = a <= b ? [a, b] : [b, a];
      return Number(listedPrice(p, low)) <= Number(listedPrice(p, high));
    }),
  );
  fc.assert(fc.property(price, (p) => listedPrice(p, 100) === listedPrice(String((Number(p) * 2).toFixed(2)), 0)));
});

test('the listed quantity is the stock less the buffer, never below 0', () => {
  assert.equal(listedQuantity(10, 0), 10);
  assert.equal(listedQuantity(10, 3), 7);
  assert.equal(listedQuantity(2, 5), 0);
  fc.assert(fc.property(fc.nat(999_999), fc.nat(999_999), (q, b) => listedQuantity(q, b) === Math.max(0, q - b)));
});

test('a rate converts before the adjustment, rounded once at the end', () => {
  assert.equal(listedPrice('19.99', 0, '0.79'), '15.79'); // 15.7921
  assert.equal(listedPrice('10.00', 0, '1.5'), '15.00');
  assert.equal(listedPrice('10.00', 10, '0.5'), '5.50');
  assert.equal(listedPrice('0.01', 0, '0.5'), '0.01'); // half a cent, up
  assert.equal(listedPrice('19.99', 0, '1'), '19.99');
  // One rounding: 3 cents × 0.333333 + 50 % is 1.4999985 cents, a cent; rounding after the rate (1 cent) and again
  // after the adjustment (1.5 cents) would say 2.
  assert.equal(listedPrice('0.03', 50, '0.333333'), '0.01');
});

test('the converted price is the exact product within half a cent, for any price, rate and adjustment', () => {
  const rate = fc
    .integer({ min: 1, max: 999_999_999 })
    .map((millionths) => `${Math.floor(millionths / 1e6)}.${String(millionths % 1e6).padStart(6, '0')}`);
  fc.assert(
    fc.property(price, percent, rate, (p, pct, r) => {
      const exact = Number(p) * Number(r) * (1 + pct / 100);
      return Math.abs(Number(listedPrice(p, pct, r)) - exact) <= 0.005 + exact * 1e-12 + 1e-6;
    }),
  );
});

test('the catalogue price of a listed one lists at it again, when one does', () => {
  fc.assert(
    fc.property(price, fc.constantFrom('0.79', '1.17', '150.5', '0.012345'), fc.constantFrom(0, 10, -33), (p, r, pct) => {
      const listed = listedPrice(p, pct, r);
      const back = cataloguePrice(listed, pct, r);
      // A rate far below 1 lists many prices alike (any of them will do); above it some listed cents have no price.
      return listed === '0.00' || listedPrice(back, pct, r) === listed || Number(r) * (1 + pct / 100) > 1;
    }),
  );
});

test('the pricing names both currencies when there is no rate, and never converts without one', () => {
  const none = pricingOf('EUR', 'USD', {});
  assert.equal(none.issue?.field, 'exchange_rates');
  assert.match(none.issue!.message, /EUR.*USD/);
  assert.equal(none.pricing.rate, null);
  const given = pricingOf('EUR', 'USD', { exchange_rates: { EUR: '1.08' }, price_adjustment_percent: 5, stock_buffer: 1 });
  assert.deepEqual(given, { pricing: { currency: 'USD', rate: '1.08', percent: 5, buffer: 1 }, issue: null });
  // A rate for another currency is not one for this product's.
  assert.equal(pricingOf('EUR', 'USD', { exchange_rates: { GBP: '1.27' } }).issue?.code, 'exchange_rate_missing');
  assert.deepEqual(pricingOf('USD', 'USD', { exchange_rates: { USD: '2' } }), {
    pricing: { currency: 'USD', rate: null, percent: 0, buffer: 0 },
    issue: null,
  });
  assert.equal(pricingOf('USD', null, {}).issue?.code, 'currency_unknown');
});
