import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { createCredentialsCipher, keyIdOf } from '../../src/lib/credentials-cipher.js';

const key = randomBytes(32);

test('sealed credentials open with the same key and context, and the ciphertext does not contain them', () => {
  const cipher = createCredentialsCipher(key);
  const sealed = cipher.seal('{"access_token":"Atza|secret"}', 'site:1:seller');
  assert.equal(sealed.keyId, keyIdOf(key));
  assert.ok(!Buffer.from(sealed.ciphertext, 'base64url').toString('latin1').includes('Atza|secret'));
  assert.equal(cipher.open(sealed, 'site:1:seller'), '{"access_token":"Atza|secret"}');
});

test('a ciphertext moved to another row, tampered with, or sealed under an unknown key does not open', () => {
  const cipher = createCredentialsCipher(key);
  const sealed = cipher.seal('token', 'site:1:seller');
  assert.throws(() => cipher.open(sealed, 'site:2:seller'));
  const raw = Buffer.from(sealed.ciphertext, 'base64url');
  raw[raw.length - 1]! ^= 1;
  assert.throws(() => cipher.open({ ...sealed, ciphertext: raw.toString('base64url') }, 'site:1:seller'));
  assert.throws(() => createCredentialsCipher(randomBytes(32)).open(sealed, 'site:1:seller'));
});

test('after a key rotation, credentials sealed under the previous key still open', () => {
  const sealed = createCredentialsCipher(key).seal('token', 'ctx');
  const rotated = createCredentialsCipher(randomBytes(32), [key]);
  assert.equal(rotated.open(sealed, 'ctx'), 'token');
  assert.notEqual(rotated.seal('token', 'ctx').keyId, sealed.keyId);
});
