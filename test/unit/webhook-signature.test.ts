import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateWebhookSecret, isPublicHost, signWebhook } from '../../src/core/webhooks/signature.js';

test('the signature matches the Standard Webhooks reference test vector', () => {
  const headers = signWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}');
  assert.deepEqual(headers, {
    'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
    'webhook-timestamp': '1614265330',
    'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
  });
});

test('a generated secret is whsec_ and 24 random bytes', () => {
  const secret = generateWebhookSecret();
  assert.match(secret, /^whsec_[A-Za-z0-9+/]{32}$/);
  assert.notEqual(secret, generateWebhookSecret());
});

test('loopback, private, link-local and unspecified hosts are not public', () => {
  for (const host of [
    'localhost',
    'api.localhost',
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '0.0.0.0',
    '100.64.0.1',
    '[::1]',
    '::',
    'fd00::1',
    'fe80::1',
    '::ffff:127.0.0.1',
  ]) {
    assert.equal(isPublicHost(host), false, host);
  }
  for (const host of ['hooks.example.com', '93.184.216.34', '172.32.0.1', '2001:db8::1']) assert.equal(isPublicHost(host), true, host);
});
