import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { problemsOf } from '../helpers/config.js';

const HEX_KEY = '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff';

describe('loadConfig', () => {
  test('an empty environment gives the documented defaults', () => {
    const expected = {
      nodeEnv: 'development',
      port: 3000,
      host: '127.0.0.1',
      appUrl: 'http://localhost:3000',
      databaseUrl: null,
      dataDir: './data',
      appSecret: null,
      previousAppSecrets: [],
      encryptionKey: null,
      allowSignup: true,
      logLevel: 'info',
      trustProxy: false,
      bodyLimitBytes: 64 * 1024,
      loginRateLimit: { perAddress: 20, perEmail: 5 },
    };
    const config: Record<string, unknown> = { ...loadConfig({}) };
    // Only these fields: platform settings and other later additions have tests of their own.
    assert.deepEqual(Object.fromEntries(Object.keys(expected).map((key) => [key, config[key]])), expected);
  });

  test('an empty value counts as unset', () => {
    assert.equal(loadConfig({ PORT: '', LOG_LEVEL: '' }).port, 3000);
  });

  test('APP_URL defaults to localhost on PORT', () => {
    assert.equal(loadConfig({ PORT: '8080' }).appUrl, 'http://localhost:8080');
  });

  test('APP_URL loses its trailing slashes', () => {
    assert.equal(loadConfig({ APP_URL: 'https://storelink.example.com/' }).appUrl, 'https://storelink.example.com');
    assert.equal(loadConfig({ APP_URL: 'https://example.com/storelink//' }).appUrl, 'https://example.com/storelink');
  });

  test('APP_URL must be http or https without a query', () => {
    assert.deepEqual(problemsOf({ APP_URL: 'ftp://example.com' }), ['APP_URL: must be an http or https URL (got "ftp://example.com")']);
    assert.deepEqual(problemsOf({ APP_URL: 'https://example.com/?a=1' }), ['APP_URL: must not carry a query or fragment']);
  });

  test('ENCRYPTION_KEY is accepted as 64 hex characters', () => {
    assert.deepEqual(loadConfig({ ENCRYPTION_KEY: HEX_KEY }).encryptionKey, Buffer.from(HEX_KEY, 'hex'));
  });

  test('ENCRYPTION_KEY is accepted as base64 of 32 bytes, standard or url-safe', () => {
    const key = Buffer.alloc(32, 0xfb);
    const standard = key.toString('base64');
    assert.match(standard, /[+/]/);
    assert.deepEqual(loadConfig({ ENCRYPTION_KEY: standard }).encryptionKey, key);
    assert.deepEqual(loadConfig({ ENCRYPTION_KEY: key.toString('base64url') }).encryptionKey, key);
  });

  test('ENCRYPTION_KEY of any other length or form is rejected', () => {
    for (const bad of [
      HEX_KEY.slice(1),
      `${HEX_KEY}00`,
      Buffer.alloc(31).toString('base64'),
      Buffer.alloc(33).toString('base64'),
      'not a key at all',
    ]) {
      assert.deepEqual(problemsOf({ ENCRYPTION_KEY: bad }), ['ENCRYPTION_KEY: must be 32 bytes, as 64 hex characters or base64'], bad);
    }
  });

  test('every problem is reported at once, one line per variable', () => {
    const problems = problemsOf({
      PORT: 'abc',
      LOG_LEVEL: 'loud',
      APP_SECRET: 'short',
      DATABASE_URL: 'mysql://db/x',
      ALLOW_SIGNUP: 'maybe',
      NODE_ENV: 'staging',
    });
    assert.deepEqual(problems.map((p) => p.slice(0, p.indexOf(':'))).sort(), [
      'ALLOW_SIGNUP',
      'APP_SECRET',
      'DATABASE_URL',
      'LOG_LEVEL',
      'NODE_ENV',
      'PORT',
    ]);
    assert.ok(problems.includes('PORT: must be an integer (got "abc")'));
    assert.ok(problems.includes('APP_SECRET: must be at least 32 characters (got 5)'));
  });

  test('production requires APP_SECRET and ENCRYPTION_KEY, and a bad one is reported once', () => {
    assert.deepEqual(problemsOf({ NODE_ENV: 'production' }), [
      'APP_SECRET: is required when NODE_ENV=production',
      'ENCRYPTION_KEY: is required when NODE_ENV=production',
    ]);
    assert.deepEqual(problemsOf({ NODE_ENV: 'production', APP_SECRET: 'short', ENCRYPTION_KEY: HEX_KEY }), [
      'APP_SECRET: must be at least 32 characters (got 5)',
    ]);
  });

  test('APP_SECRET_PREVIOUS is a comma-separated list of long secrets', () => {
    const a = 'a'.repeat(32);
    const b = 'b'.repeat(40);
    assert.deepEqual(loadConfig({ APP_SECRET_PREVIOUS: ` ${a} , ${b},` }).previousAppSecrets, [a, b]);
    assert.deepEqual(problemsOf({ APP_SECRET_PREVIOUS: `${a},short` }), [
      'APP_SECRET_PREVIOUS: each secret must be at least 32 characters',
    ]);
  });

  test('SMTP_URL is unset by default, and MAIL_FROM names the host of APP_URL', () => {
    assert.deepEqual(loadConfig({ APP_URL: 'https://shop.example.com' }).mail, {
      smtpUrl: null,
      from: 'Storelink <storelink@shop.example.com>',
    });
    const url = 'smtps://mailer:s3cret-pass@mail.example.com:465';
    assert.deepEqual(loadConfig({ SMTP_URL: url, MAIL_FROM: 'Shop <ops@example.com>' }).mail, {
      smtpUrl: url,
      from: 'Shop <ops@example.com>',
    });
  });

  test('a bad SMTP_URL is reported without its value (it may hold a password), a bad MAIL_FROM with its value', () => {
    const problems = problemsOf({ SMTP_URL: 'https://mailer:s3cret-pass@mail.example.com', MAIL_FROM: 'not an address' });
    assert.deepEqual(problems, [
      'SMTP_URL: must be an smtp:// or smtps:// URL, such as smtps://user:password@mail.example.com:465',
      'MAIL_FROM: must be an e-mail address, or a name and <address> (got "not an address")',
    ]);
    assert.ok(!problems.join('\n').includes('s3cret-pass'));
  });

  test('the result is frozen, nested parts included', () => {
    const config = loadConfig({ APP_SECRET_PREVIOUS: 'p'.repeat(32) });
    assert.ok(Object.isFrozen(config) && Object.isFrozen(config.loginRateLimit) && Object.isFrozen(config.previousAppSecrets));
    assert.throws(() => ((config as { port: number }).port = 1), TypeError);
    assert.throws(() => (config.previousAppSecrets as string[]).push('x'), TypeError);
  });
});
