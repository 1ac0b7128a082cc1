import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { isValidRedirectUrl, parseCustomFieldValue, withQuery } from '../../src/core/connect/redirects.js';

test('http and https URLs with a host are valid redirect URLs', () => {
  for (const url of ['https://shop.example.com/done', 'http://localhost:5173/cb?x=1#top', 'https://example.com']) {
    assert.equal(isValidRedirectUrl(url), true, url);
  }
});

test('a URL with no scheme, another scheme, a | or tricks that parsers repair is invalid', () => {
  const invalid = [
    '',
    'example.com/cb',
    '//evil.example',
    'ftp://example.com',
    'javascript:alert(1)',
    'data:text/html,x',
    'https://example.com/a|b',
    'https:\\\\evil.example',
    'http:/evil.example',
    'https://user:pw@example.com',
    'https://example.com/\r\nSet-Cookie:x',
    'https://exa mple.com',
    `https://example.com/${'a'.repeat(2048)}`,
    'https://',
  ];
  for (const url of invalid) assert.equal(isValidRedirectUrl(url), false, JSON.stringify(url));
});

test('no string containing | is ever a valid redirect URL', () => {
  fc.assert(fc.property(fc.string(), fc.string(), (a, b) => !isValidRedirectUrl(`https://example.com/${a}|${b}`)));
});

test('custom_field_value splits into the URL and its tracking pairs', () => {
  assert.deepEqual(parseCustomFieldValue('https://app.example.com/done;utm_source=tt;ref=abc=1'), {
    url: 'https://app.example.com/done',
    tracking: { utm_source: 'tt', ref: 'abc=1' },
  });
  assert.deepEqual(parseCustomFieldValue('https://app.example.com/done'), { url: 'https://app.example.com/done', tracking: {} });
});

test('custom_field_value with an invalid URL or a pair without a key is refused', () => {
  for (const raw of ['not-a-url;a=b', 'https://x.example;=b', 'https://x.example;novalue', 'https://x.example|y;a=b']) {
    assert.equal(parseCustomFieldValue(raw), null, raw);
  }
});

test('withQuery appends to an existing query, encodes spaces as + and keeps the fragment last', () => {
  assert.equal(
    withQuery('https://a.example/cb', { authorization_error: 'Access denied' }),
    'https://a.example/cb?authorization_error=Access+denied',
  );
  assert.equal(
    withQuery('https://a.example/cb?flag&x=a%20b#frag', { platform: 'marketplace', site_id: 7 }),
    'https://a.example/cb?flag&x=a%20b&platform=marketplace&site_id=7#frag',
  );
  assert.equal(withQuery('https://a.example/cb?', { a: '1' }), 'https://a.example/cb?a=1');
});
