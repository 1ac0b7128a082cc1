import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createJwtCodec, type JwtError } from '../../src/core/auth/jwt.js';
import { createKeyring, deriveSigningKey } from '../../src/core/auth/keys.js';
import { createManualClock } from '../helpers/clock.js';

const SECRET = 'a-secret-that-is-at-least-32-characters-long';
const OTHER = 'another-secret-that-is-at-least-32-characters';

test('the same secret derives the same key id, and another secret another one', () => {
  assert.equal(deriveSigningKey(SECRET).kid, deriveSigningKey(SECRET).kid);
  assert.notEqual(deriveSigningKey(SECRET).kid, deriveSigningKey(OTHER).kid);
});

test('a keyring finds the current and previous keys by kid, and nothing for an unknown kid', () => {
  const keyring = createKeyring(OTHER, [SECRET]);
  assert.ok(keyring.find(deriveSigningKey(OTHER).kid));
  assert.ok(keyring.find(deriveSigningKey(SECRET).kid));
  assert.equal(keyring.find('unknown'), undefined);
  assert.equal(keyring.find(undefined), undefined);
});

test('a token verifies only as the kind it was signed as', async () => {
  const jwt = createJwtCodec(createKeyring(SECRET), createManualClock());
  const token = await jwt.sign('pat', { sub: '1', jti: 'abc' }, null);
  assert.equal(jwt.claimedKind(token), 'pat');
  assert.equal((await jwt.verify('pat', token)).jti, 'abc');
  await assert.rejects(jwt.verify('session', token), (e: JwtError) => e.reason === 'invalid');
  await assert.rejects(jwt.verify('oauth-state', token), (e: JwtError) => e.reason === 'invalid');
});

test('an expired token is told apart from a forged one', async () => {
  const clock = createManualClock(new Date('2026-01-01T00:00:00Z'));
  const jwt = createJwtCodec(createKeyring(SECRET), clock);
  const token = await jwt.sign('session', { sub: '1', jti: 'abc' }, new Date('2026-01-01T00:10:00Z'));
  clock.advance(10 * 60 * 1000);
  await assert.rejects(jwt.verify('session', token), (e: JwtError) => e.reason === 'expired');
  const forged = createJwtCodec(createKeyring(OTHER), clock);
  await assert.rejects(forged.verify('session', token), (e: JwtError) => e.reason === 'invalid');
});

test('claimedKind is null for text that is not a JWT or names no kind of ours', () => {
  const jwt = createJwtCodec(createKeyring(SECRET), createManualClock());
  assert.equal(jwt.claimedKind('not a jwt'), null);
  const header = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
  assert.equal(jwt.claimedKind(`${header}.e30.sig`), null);
});
