/** The listed price and quantity (DESIGN §10): exact cents, rounded half up, and a stock buffer never below zero. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { listedPrice, listedQuantity } from '../../src/core/listings/pricing.js';

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
