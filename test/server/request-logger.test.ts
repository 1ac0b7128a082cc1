/**
 * Below `info` Fastify is given no logger (src/app.ts): the instance, its plugins and each request are handed the
 * service's, so what Fastify itself logs still reaches the service's log, and an answer appears in it by its status only.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import Fastify from 'fastify';
import { shareTheServiceLogger } from '../../src/http/request-logger.js';
import { createLogger } from '../../src/logger.js';

function appWithTheServiceLogger() {
  const lines: Array<Record<string, any>> = [];
  const logger = createLogger(
    { logLevel: 'warn' },
    new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(String(chunk))), done()) }),
  );
  const app = Fastify();
  shareTheServiceLogger(app, logger);
  // Sent twice: Fastify warns through the reply's logger.
  app.get('/twice', async (_request, reply) => {
    reply.send({ first: true });
    return { second: true };
  });
  app.get('/logs-its-reply', async (request, reply) => {
    reply.code(202);
    request.log.error({ res: reply, headers: { authorization: 'Bearer secret-value' } }, 'a line with the reply');
    return { ok: true };
  });
  app.register(async (plugin) => plugin.log.error({ part: 'x' }, "a plugin's line"));
  return { app, lines };
}

describe('the logger of a request when Fastify has none', () => {
  test("the instance's and its plugins' logger is the service's", async () => {
    const { app, lines } = appWithTheServiceLogger();
    await app.ready();
    app.log.warn('an instance line');
    assert.deepEqual(
      lines.map((line) => [line.level, line.msg]),
      [
        [50, "a plugin's line"],
        [40, 'an instance line'],
      ],
    );
    await app.close();
  });

  test("Fastify's own warning of a reply sent twice reaches the service's log", async () => {
    const { app, lines } = appWithTheServiceLogger();
    const response = await app.inject({ url: '/twice' });
    assert.deepEqual(response.json(), { first: true });
    const warned = lines.filter((line) => line.level === 40);
    assert.equal(warned.length, 1, JSON.stringify(lines));
    assert.equal(warned[0]!.err?.code, 'FST_ERR_REP_ALREADY_SENT');
    await app.close();
  });

  test("a reply in a request's log line is its status code only, and the service's redaction applies", async () => {
    const { app, lines } = appWithTheServiceLogger();
    assert.equal((await app.inject({ url: '/logs-its-reply' })).statusCode, 202);
    const [line] = lines.filter((l) => l.msg === 'a line with the reply');
    assert.deepEqual(line?.res, { statusCode: 202 });
    assert.ok(!JSON.stringify(lines).includes('secret-value'), JSON.stringify(lines));
    await app.close();
  });
});
