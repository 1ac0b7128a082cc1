import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import Fastify from 'fastify';
import { expiredStateOutcome, failureOutcome } from '../../src/core/connect/outcomes.js';
import { isValidRedirectUrl, toAsciiUrl, withQuery } from '../../src/core/connect/redirects.js';
import { handleError } from '../../src/http/error-handler.js';

const APP = 'https://app.storelink.example';

test('a redirect URL with non-ASCII text in the host, path, query or fragment is valid', () => {
  for (const url of ['https://例え.jp/', 'https://seller.example/café', 'https://seller.example/?q=中文', 'http://seller.example/#😀']) {
    assert.equal(isValidRedirectUrl(url), true, url);
  }
});

test('a redirect URL with a C1 control character is invalid', () => {
  for (const url of ['https://seller.example/\u0085', 'https://seller.example/?\u0080', 'https://seller.example/#\u009f']) {
    assert.equal(isValidRedirectUrl(url), false, JSON.stringify(url));
  }
});

test('toAsciiUrl punycodes the host and percent-encodes the rest as UTF-8, as WHATWG URL does', () => {
  const url = 'https://例え.jp/café/中?q=😀&x=é#frag-é';
  assert.equal(toAsciiUrl(url), 'https://xn--r8jz45g.jp/caf%C3%A9/%E4%B8%AD?q=%F0%9F%98%80&x=%C3%A9#frag-%C3%A9');
  assert.equal(toAsciiUrl(url), new URL(url).href);
});

test('toAsciiUrl leaves ASCII text byte for byte, a port and an ASCII host with it', () => {
  for (const url of ['https://Seller.example', 'https://seller.example/a%20b?x=%zz&y#f', 'http://localhost:5173/cb?x=1']) {
    assert.equal(toAsciiUrl(url), url);
  }
  assert.equal(toAsciiUrl('https://Seller.example:8443/é'), 'https://Seller.example:8443/%C3%A9');
});

test('toAsciiUrl writes a lone surrogate as U+FFFD and never throws', () => {
  assert.equal(toAsciiUrl('https://seller.example/\ud800'), 'https://seller.example/%EF%BF%BD');
  fc.assert(fc.property(fc.string({ unit: 'binary' }), (text) => /^[\x00-\x7f]*$/.test(toAsciiUrl(`https://seller.example/${text}`))));
  fc.assert(fc.property(fc.string({ unit: 'binary' }), (text) => /^[\x00-\x7f]*$/.test(toAsciiUrl(text))));
});

test('withQuery encodes the target and the added values, keeping the fragment last', () => {
  assert.equal(
    withQuery('https://例え.jp/é?ref=中#é', { authorization_error: 'Échec : 中' }),
    'https://xn--r8jz45g.jp/%C3%A9?ref=%E4%B8%AD&authorization_error=%C3%89chec+%3A+%E4%B8%AD#%C3%A9',
  );
});

test('failure and expired-state targets built from a non-ASCII redirect are ASCII', () => {
  const failure = failureOutcome(
    'amazon-seller',
    { redirectUrl: 'https://seller.example/é', siteId: null },
    { reason: 'denied', message: 'Refusé' },
    APP,
  );
  assert.equal(
    failure.kind === 'redirect' && failure.to,
    'https://seller.example/%C3%A9?platform=marketplace&code=403&message=Refus%C3%A9',
  );
  const expired = expiredStateOutcome(APP, 'https://seller.example/中');
  assert.equal(
    expired.kind === 'redirect' && expired.to,
    'https://seller.example/%E4%B8%AD?authorization_error=Authorization+state+has+expired',
  );
});

test('an error after a route set a Location that cannot be written answers the seed 500 without it', async () => {
  const app = Fastify();
  app.setErrorHandler(handleError);
  app.get('/bad', (_request, reply) => reply.redirect('https://seller.example/中', 302));
  const response = await app.inject('/bad');
  assert.equal(response.statusCode, 500);
  assert.deepEqual(response.json(), { success: false, code: 500, message: 'Server error' });
  assert.equal(response.headers.location, undefined);
  await app.close();
});
