import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_SCRYPT_PARAMS, hashPassword, verifyPassword } from '../../src/core/auth/passwords.js';

test('a password hashed with the production parameters verifies, and a wrong one does not', async () => {
  const stored = await hashPassword('correct horse battery staple');
  assert.match(stored, new RegExp(`^scrypt\\$${DEFAULT_SCRYPT_PARAMS.N}\\$8\\$5\\$`));
  assert.equal(await verifyPassword('correct horse battery staple', stored), true);
  assert.equal(await verifyPassword('correct horse battery stapl', stored), false);
});

test('two hashes of the same password differ by their salt', async () => {
  const params = { N: 1024, r: 8, p: 1 };
  assert.notEqual(await hashPassword('same password', params), await hashPassword('same password', params));
});

test('a hash verifies with the parameters stored in it, so parameters can be raised later', async () => {
  const stored = await hashPassword('old parameters', { N: 1024, r: 8, p: 1 });
  assert.equal(await verifyPassword('old parameters', stored), true);
});

test('an unreadable stored hash never verifies', async () => {
  assert.equal(await verifyPassword('x', 'plaintext'), false);
  assert.equal(await verifyPassword('x', 'bcrypt$1$2$3$4$5'), false);
});
