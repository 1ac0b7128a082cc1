import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_REFRESH_POLICY, nextRefreshAt } from '../../src/core/sites/refresh-policy.js';
import { retryDelayMs } from '../../src/lib/back-off.js';

const now = new Date('2026-06-01T12:00:00Z');
const at = (ms: number) => new Date(now.getTime() + ms);

test('a token is refreshed the margin before it expires', () => {
  assert.deepEqual(nextRefreshAt(at(3600_000), now), at(3000_000));
});

test('a long-lived token is still exercised once a day', () => {
  assert.deepEqual(nextRefreshAt(at(7 * 24 * 3600_000), now), at(24 * 3600_000));
});

test('an answer without an expiry gets the default lifetime, never "never refresh"', () => {
  assert.deepEqual(nextRefreshAt(null, now), at(DEFAULT_REFRESH_POLICY.defaultLifetimeMs - DEFAULT_REFRESH_POLICY.marginMs));
});

test('a token already inside its margin is refreshed soon but not in a tight loop', () => {
  assert.deepEqual(nextRefreshAt(at(5 * 60_000), now), at(30_000));
  assert.deepEqual(nextRefreshAt(at(20_000), now), at(10_000));
  assert.deepEqual(nextRefreshAt(at(1000), now), at(1000), 'at least a second away');
  // Already expired when it arrived: renewing at once would give the same, at every poll.
  assert.deepEqual(nextRefreshAt(at(-1000), now), at(30_000));
  assert.deepEqual(nextRefreshAt(new Date(604_800_000), now), at(30_000), 'a duration misread as a 1970 timestamp');
});

test('retries back off exponentially up to an hour', () => {
  assert.deepEqual([1, 2, 3, 4].map(retryDelayMs), [30_000, 60_000, 120_000, 240_000]);
  assert.equal(retryDelayMs(50), 3600_000);
});

test('throttling and server errors are passing failures on every platform, never a refused grant', async () => {
  const { PlatformError } = await import('../../src/platforms/contracts/errors.js');
  const etsy = await import('../../src/platforms/etsy/responses.js');
  const tiktok = await import('../../src/platforms/tiktok-shop/responses.js');
  const lwa = await import('../../src/platforms/lwa/responses.js');
  const unavailable = (e: unknown) => e instanceof PlatformError && e.reason === 'unavailable';
  for (const status of [429, 500, 503]) {
    assert.throws(() => etsy.parseTokenResponse(status, { error: 'rate_limited' }, now), unavailable, `etsy ${status}`);
    assert.throws(() => tiktok.parseTokenResponse(status, { code: 1, message: 'x' }), unavailable, `tiktok ${status}`);
    assert.throws(() => lwa.parseLwaTokenResponse(status, { error: 'TooManyRequests' }, now), unavailable, `lwa ${status}`);
  }
  assert.throws(() => tiktok.parseTokenResponse(200, { code: 36_009_002, message: 'rate limited' }), unavailable);
});
