import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { createAuthCache, parseAuthChange } from '../../src/core/auth/auth-cache.js';
import type { Principal } from '../../src/core/auth/principal.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const LATER = new Date(NOW + 3_600_000);

function principal(userId: number, workspaceId: number | null = null): Principal {
  return {
    kind: 'pat',
    tokenId: userId,
    jti: `jti-${userId}`,
    user: { id: userId, email: `u${userId}@example.com`, name: `User ${userId}` },
    workspace: workspaceId === null ? null : { id: workspaceId, name: 'W', role: 'owner' },
  };
}

function liveCache(maxEntries = 10) {
  const cache = createAuthCache({ maxEntries });
  cache.activate();
  return cache;
}

describe('auth cache', () => {
  test('keeps nothing until the change feed is live', () => {
    const cache = createAuthCache({ maxEntries: 10 });
    cache.set('a', null, principal(1), null, cache.generation());
    assert.equal(cache.get('a', null, NOW), undefined);
  });

  test('answers a cached bearer until its token expires', () => {
    const cache = liveCache();
    cache.set('a', null, principal(1), LATER, cache.generation());
    assert.equal(cache.get('a', null, NOW)?.user.id, 1);
    assert.equal(cache.get('a', null, LATER.getTime()), undefined);
  });

  test('does not store a read that raced with a change', () => {
    const cache = liveCache();
    const generation = cache.generation();
    cache.invalidate({ userId: 99 });
    cache.set('a', null, principal(1), null, generation);
    assert.equal(cache.get('a', null, NOW), undefined);
  });

  test('a user change drops only that user, a workspace change only that workspace', () => {
    const cache = liveCache();
    cache.set('u1', null, principal(1), null, cache.generation());
    cache.set('u2', '7', principal(2, 7), null, cache.generation());
    cache.set('u3', '8', principal(3, 8), null, cache.generation());
    cache.invalidate({ userId: 1 });
    cache.invalidate({ workspaceId: 7 });
    assert.deepEqual(
      [cache.get('u1', null, NOW), cache.get('u2', '7', NOW), cache.get('u3', '8', NOW)].map((p) => p?.user.id),
      [undefined, undefined, 3],
    );
  });

  test('losing the feed empties the cache and stops caching; reconnecting starts empty', () => {
    const cache = liveCache();
    cache.set('a', null, principal(1), null, cache.generation());
    cache.deactivate();
    assert.equal(cache.get('a', null, NOW), undefined);
    cache.set('b', null, principal(2), null, cache.generation());
    assert.equal(cache.size, 0);
    cache.activate();
    assert.equal(cache.size, 0);
  });

  test('holds at most maxEntries, dropping the oldest', () => {
    const cache = liveCache(2);
    for (const key of ['a', 'b', 'c']) cache.set(key, null, principal(1), null, cache.generation());
    assert.equal(cache.size, 2);
    assert.equal(cache.get('a', null, NOW), undefined);
    assert.ok(cache.get('c', null, NOW));
  });

  test('answers only the exact headers it was given: bearers ending alike, or another workspace header, are misses', () => {
    const cache = liveCache();
    const signature = 'S'.repeat(43);
    cache.set(`Bearer aaa.bbb.${signature}`, '7', principal(1, 7), null, cache.generation());
    assert.equal(cache.get(`Bearer aaa.bbb.${signature}`, '7', NOW)?.user.id, 1);
    assert.equal(cache.get(`Bearer aaa.ccc.${signature}`, '7', NOW), undefined);
    assert.equal(cache.get(`Bearer aaa.bbb.${signature}`, '8', NOW), undefined);
    assert.equal(cache.get(`Bearer aaa.bbb.${signature}`, null, NOW), undefined);
    // The other bearer takes the shared slot; the first is then a miss, never the other's principal.
    cache.set(`Bearer aaa.ccc.${signature}`, '7', principal(2, 7), null, cache.generation());
    assert.equal(cache.get(`Bearer aaa.ccc.${signature}`, '7', NOW)?.user.id, 2);
    assert.equal(cache.get(`Bearer aaa.bbb.${signature}`, '7', NOW), undefined);
  });

  test('keeps a thousand bearers apart, each with its workspaces, and mixes nothing up', () => {
    const cache = liveCache(10_000);
    // Signatures as a JWT's are: 43 characters of base64url. Each bearer is used with two workspaces written with the
    // same digits (12 and 21) and on a route that needs none.
    const bearers = Array.from({ length: 1_000 }, (_, i) => `Bearer h.p.${createHash('sha256').update(String(i)).digest('base64url')}`);
    bearers.forEach((bearer, i) => {
      cache.set(bearer, '12', principal(i, 12), null, cache.generation());
      cache.set(bearer, '21', principal(i, 21), null, cache.generation());
      cache.set(bearer, null, principal(i), null, cache.generation());
    });
    const found = bearers.flatMap((bearer) => (['12', '21', null] as const).map((workspace) => cache.get(bearer, workspace, NOW)));
    const expected = bearers.flatMap((_, i) => [`${i}/12`, `${i}/21`, `${i}/-`]);
    const seen = found.map((p) => (p ? `${p.user.id}/${p.workspace?.id ?? '-'}` : 'miss'));
    assert.ok(seen.filter((entry) => entry === 'miss').length <= 3, 'slots shared by chance are a handful at most');
    seen.forEach((entry, i) => assert.ok(entry === 'miss' || entry === expected[i], `${expected[i]} answered ${entry}`));
  });

  test('reads the payloads the database triggers send, and nothing else', () => {
    assert.deepEqual(parseAuthChange('u:12'), { userId: 12 });
    assert.deepEqual(parseAuthChange('w:3'), { workspaceId: 3 });
    for (const payload of ['', 'u:', 'x:1', 'u:1:2', 'u:-1', ' u:1']) assert.equal(parseAuthChange(payload), null);
  });
});
