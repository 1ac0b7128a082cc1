import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseBearer, parseWorkspaceId } from '../../src/core/auth/tokens.service.js';

test('parseBearer takes the token of a Bearer header in any case of the scheme', () => {
  assert.equal(parseBearer('Bearer abc.def.ghi'), 'abc.def.ghi');
  assert.equal(parseBearer('bearer abc.def.ghi'), 'abc.def.ghi');
});

test('parseBearer refuses other schemes, an empty token and characters a token cannot have', () => {
  for (const header of [undefined, '', 'Bearer', 'Bearer ', 'Basic abc', 'Bearer a b', 'Bearer a,b', 'Tokenabc']) {
    assert.equal(parseBearer(header), null, String(header));
  }
});

test('parseWorkspaceId accepts positive 32-bit integers only', () => {
  assert.equal(parseWorkspaceId('1'), 1);
  assert.equal(parseWorkspaceId('2147483647'), 2147483647);
  for (const header of [undefined, '', '0', '-1', '01', '1.5', '1e3', 'abc', '2147483648', '99999999999999999999', '1,2']) {
    assert.equal(parseWorkspaceId(header), null, String(header));
  }
});
