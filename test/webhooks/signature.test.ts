import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateWebhookSecret, signWebhook } from '../../src/core/webhooks/signature.js';

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
