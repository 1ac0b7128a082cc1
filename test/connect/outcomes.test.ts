import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expiredStateOutcome, failureOutcome, invalidStateOutcome, successOutcome } from '../../src/core/connect/outcomes.js';

const APP = 'https://app.storelink.example';
const custom = (redirectUrl: string, siteId: number | null = null) => ({ redirectUrl, siteId });
const none = (siteId: number | null = null) => ({ redirectUrl: '', siteId });
const to = (outcome: ReturnType<typeof successOutcome>) => (outcome.kind === 'redirect' ? outcome.to : outcome.backUrl);

test('platform 1 success goes to redirect_url unchanged', () => {
  assert.equal(to(successOutcome('etsy', custom('https://a.example/done?x=1#f'), 3, APP)), 'https://a.example/done?x=1#f');
});

test('platform 4 success goes to the URL of custom_field_value', () => {
  assert.equal(to(successOutcome('tiktok-shop', custom('https://a.example/tt'), 3, APP)), 'https://a.example/tt');
});

test('platform 5 seller success adds platform=marketplace and the new site id to the existing query', () => {
  assert.equal(
    to(successOutcome('amazon-seller', custom('https://a.example/back?ref=1'), 42, APP)),
    'https://a.example/back?ref=1&platform=marketplace&site_id=42',
  );
});

test('platform 5 advertising success adds segment=advertising', () => {
  assert.equal(
    to(successOutcome('amazon-ads', custom('https://a.example/back', 42), 42, APP)),
    'https://a.example/back?platform=marketplace&site_id=42&segment=advertising',
  );
});

test('with no custom redirect, success goes to the site listings page on every track', () => {
  for (const track of ['etsy', 'tiktok-shop', 'amazon-seller', 'amazon-ads'] as const) {
    assert.equal(to(successOutcome(track, none(9), 9, APP)), `${APP}/site/9/listings`, track);
  }
});

test('platforms 1 and 4 fail with authorization_error, URL-encoded with spaces as +', () => {
  for (const track of ['etsy', 'tiktok-shop'] as const) {
    const outcome = failureOutcome(track, custom('https://a.example/cb?x=1'), { reason: 'denied', message: 'Access denied' }, APP);
    assert.equal(to(outcome), 'https://a.example/cb?x=1&authorization_error=Access+denied');
    assert.equal(outcome.status, 403);
  }
});

test('platform 5 seller failure carries platform, code and message, with the code per reason', () => {
  const cases = [
    ['denied', 403],
    ['rejected', 400],
    ['unavailable', 502],
    ['internal', 500],
  ] as const;
  for (const [reason, code] of cases) {
    const outcome = failureOutcome('amazon-seller', custom('https://a.example/back'), { reason, message: 'It went wrong & stopped' }, APP);
    assert.equal(to(outcome), `https://a.example/back?platform=marketplace&code=${code}&message=It+went+wrong+%26+stopped`);
  }
});

test('a failure with no custom redirect falls back to the dashboard', () => {
  assert.equal(
    to(failureOutcome('etsy', none(), { reason: 'rejected', message: 'Invalid credentials' }, APP)),
    `${APP}/dashboard?authorization_error=Invalid+credentials`,
  );
  assert.equal(
    to(failureOutcome('amazon-seller', none(), { reason: 'denied', message: 'Access denied' }, APP)),
    `${APP}/dashboard?platform=marketplace&code=403&message=Access+denied`,
  );
});

test('platform 5 advertising failure is a retry page, never an error redirect', () => {
  const outcome = failureOutcome(
    'amazon-ads',
    custom('https://a.example/back', 5),
    { reason: 'unavailable', message: 'Down' },
    APP,
    'https://ads.example/retry',
  );
  assert.deepEqual(outcome, {
    kind: 'retry',
    retryUrl: 'https://ads.example/retry',
    backUrl: 'https://a.example/back',
    status: 502,
    message: 'Down',
  });
  const fallback = failureOutcome('amazon-ads', none(5), { reason: 'denied', message: 'Access denied' }, APP, null);
  assert.equal(fallback.kind === 'retry' && fallback.backUrl, `${APP}/site/5/listings`);
});

test('an invalid state always goes to the dashboard, an expired one to its signed redirect_url', () => {
  assert.equal(to(invalidStateOutcome(APP)), `${APP}/dashboard?authorization_error=Invalid+authorization+state`);
  assert.equal(
    to(expiredStateOutcome(APP, 'https://a.example/cb')),
    'https://a.example/cb?authorization_error=Authorization+state+has+expired',
  );
  assert.equal(to(expiredStateOutcome(APP, '')), `${APP}/dashboard?authorization_error=Authorization+state+has+expired`);
});
