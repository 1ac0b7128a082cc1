/**
 * Amazon's schema rules said in a seller's words (issue 37 item 2): no regular expression, keyword or JSON pointer of
 * Ajv's reaches the message; lengths, counts, bounds and allowed values are said as such.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ruleInWords } from '../../../src/platforms/amazon-seller/listing-rules.js';

describe("Amazon's schema rules in a seller's words", () => {
  test('a pattern or a format is said without the expression', () => {
    for (const keyword of ['pattern', 'format'])
      assert.equal(
        ruleInWords({ keyword, params: { pattern: '^[0-9]{12}$' }, message: 'must match pattern "^[0-9]{12}$"' }),
        'is not written the way Amazon accepts for it',
      );
  });

  test('allowed values are named, the first eight and how many more', () => {
    assert.equal(
      ruleInWords({ keyword: 'enum', params: { allowedValues: ['new_new', 'used_good'] } }),
      'must be one of “new_new”, “used_good”',
    );
    const many = Array.from({ length: 11 }, (_, i) => `v${i}`);
    assert.equal(
      ruleInWords({ keyword: 'enum', params: { allowedValues: many } }),
      'must be one of “v0”, “v1”, “v2”, “v3”, “v4”, “v5”, “v6”, “v7” and 3 more',
    );
  });

  test('lengths, counts and bounds are said with their limit', () => {
    assert.equal(ruleInWords({ keyword: 'maxLength', params: { limit: 50 } }), 'must have at most 50 characters');
    assert.equal(ruleInWords({ keyword: 'minLength', params: { limit: 1 } }), 'must have at least 1 character');
    assert.equal(ruleInWords({ keyword: 'maxItems', params: { limit: 5 } }), 'must have at most 5 values');
    assert.equal(ruleInWords({ keyword: 'minimum', params: { limit: 0 } }), 'must be at least 0');
    assert.equal(ruleInWords({ keyword: 'maximum', params: { limit: 9 } }), 'must be at most 9');
    assert.equal(ruleInWords({ keyword: 'type', params: { type: 'number' } }), 'must be a number');
  });

  test('no message names a keyword, a pointer or an expression', () => {
    for (const keyword of ['pattern', 'format', 'enum', 'type', 'minItems'])
      assert.doesNotMatch(
        ruleInWords({
          keyword,
          params: { pattern: '^x$', type: 'object', limit: 1, allowedValues: [] },
          message: 'must match pattern "^x$"',
        }),
        /\^|\$|\/|pattern|object|keyword/,
      );
  });
});
