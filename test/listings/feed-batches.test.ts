/**
 * A burst of offer changes larger than one feed may carry goes in several (docs/listings.md, "Bulk changes as a feed"):
 * src/core/listings/offer-feeds.ts's `feedBatches` keeps every change, in order, each listing's messages in one feed,
 * no feed over the platform's limit unless one listing alone is, and no more feeds than the limit needs.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { feedBatches } from '../../src/core/listings/offer-feeds.js';

test('a listing per message: 25,001 changes under a limit of 25,000 go in a feed of 25,000 and one of 1', () => {
  const items = Array.from({ length: 25_001 }, (_, i) => i);
  const batches = feedBatches(items, () => 1, 25_000);
  assert.deepEqual(
    batches.map((b) => b.length),
    [25_000, 1],
  );
  assert.equal(batches[1]![0], 25_000);
});

test('a listing whose variants would cross the limit starts the next feed; one larger than the limit goes alone', () => {
  const sizes = [3, 4, 2, 9, 1];
  const batches = feedBatches(
    sizes.map((size, id) => ({ id, size })),
    (item) => item.size,
    8,
  );
  assert.deepEqual(
    batches.map((b) => b.map((item) => item.id)),
    [[0, 1], [2], [3], [4]],
  );
});

test('every change kept in order, each feed within the limit or one listing alone, and none that could join the one before', () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 1, max: 12 }), { maxLength: 60 }), fc.integer({ min: 1, max: 20 }), (sizes, max) => {
      const items = sizes.map((size, id) => ({ id, size }));
      const batches = feedBatches(items, (item) => item.size, max);
      const total = (batch: typeof items) => batch.reduce((sum, item) => sum + item.size, 0);
      assert.deepEqual(batches.flat(), items);
      for (const batch of batches) {
        assert.ok(batch.length > 0);
        assert.ok(total(batch) <= max || batch.length === 1, `a feed of ${total(batch)} messages over ${max}`);
      }
      for (let i = 1; i < batches.length; i++) assert.ok(total(batches[i - 1]!) + batches[i]![0]!.size > max);
    }),
  );
});
