/** The HTTP server's limits and the shutdown budget as the environment sets them, and the 408 answer's bytes. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { buildClientErrorAnswer } from '../../src/http/client-errors.js';
import { problemsOf } from '../helpers/config.js';

describe('server limits configuration', () => {
  test('an empty environment gives the documented defaults', () => {
    assert.deepEqual(loadConfig({}).server, {
      requestTimeoutMs: 30_000,
      headersTimeoutMs: 10_000,
      keepAliveTimeoutMs: 72_000,
      connectionTimeoutMs: 120_000,
    });
  });

  test('a request timeout shorter than 10 s also shortens the default headers timeout', () => {
    assert.equal(loadConfig({ REQUEST_TIMEOUT_MS: '2000' }).server.headersTimeoutMs, 2_000);
  });

  test('a headers timeout longer than the request timeout is refused', () => {
    assert.deepEqual(problemsOf({ REQUEST_TIMEOUT_MS: '5000', HEADERS_TIMEOUT_MS: '6000' }), [
      'HEADERS_TIMEOUT_MS: must not exceed REQUEST_TIMEOUT_MS (6000 > 5000)',
    ]);
  });

  test('a timeout under a second is refused', () => {
    assert.deepEqual(problemsOf({ KEEP_ALIVE_TIMEOUT_MS: '0' }), ['KEEP_ALIVE_TIMEOUT_MS: must be between 1000 and 3600000 (got 0)']);
  });
});

describe('shutdown configuration', () => {
  test('SIGTERM may take 9 s by default, so the process ends within 10 s', () => {
    assert.equal(loadConfig({}).shutdownTimeoutMs, 9_000);
  });

  test('a shutdown budget under 3 s is refused: the platform calls need their grace', () => {
    assert.deepEqual(problemsOf({ SHUTDOWN_TIMEOUT_MS: '2000' }), ['SHUTDOWN_TIMEOUT_MS: must be between 3000 and 600000 (got 2000)']);
  });
});

describe('client error answers', () => {
  test('a request that did not arrive in time is a 408 in the seed shape that closes the connection', () => {
    const answer = buildClientErrorAnswer('ERR_HTTP_REQUEST_TIMEOUT');
    const [head, body] = answer.split('\r\n\r\n') as [string, string];
    assert.match(head, /^HTTP\/1\.1 408 Request Timeout\r\n/);
    assert.match(head, /\r\nConnection: close(\r\n|$)/);
    assert.match(head, new RegExp(`\\r\\nContent-Length: ${Buffer.byteLength(body)}(\\r\\n|$)`));
    assert.deepEqual(JSON.parse(body), { success: false, code: 408, message: 'The request did not arrive in time' });
  });

  test('malformed HTTP is a 400 in the seed shape', () => {
    const body = buildClientErrorAnswer('HPE_INVALID_METHOD').split('\r\n\r\n')[1]!;
    assert.deepEqual(JSON.parse(body), { success: false, code: 400, message: 'Bad request' });
  });
});
