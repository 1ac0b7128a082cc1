/**
 * The simulators are built on the first request under /sandbox and answer from an instance of their own (app.ts,
 * mountSandboxOnFirstUse). What a client sees must not show it: the first request's body arrives whole, requests that
 * come together before the simulators exist are all answered, a kept-alive connection goes on serving the API after a
 * simulator's answer, and unknown paths, methods and headers are the app's own.
 */
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestApp, errorBody, injectForm, type TestApp, within } from '../helpers/test-app.js';

const fault = (track: string) => ({ track, endpoint: 'token', fault: 'error' });

describe('the simulators, built on their first request', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp('pglite')));
  after(() => t.close());

  test('the first request of all is a form POST, and the simulator reads its body', async () => {
    const revoked = await injectForm(t, '/sandbox/revoke', { track: 'etsy', account: '7' });
    assert.equal(revoked.statusCode, 204, revoked.body);
    assert.ok(t.deps.sandbox.revokedGrants.has('etsy:7'));
    // The same route refuses a body without the fields: the 204 above was the body's doing.
    const refused = await injectForm(t, '/sandbox/revoke', { track: 'etsy' });
    assert.equal(refused.statusCode, 400);
  });
});

describe('requests that arrive together before the simulators exist', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp('pglite')));
  after(() => t.close());

  test('are all answered, each from its own body', async () => {
    const tracks = ['etsy', 'tiktok-shop', 'amazon-seller', 'amazon-ads'];
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        i % 3 === 2
          ? t.app.inject({ method: 'GET', url: '/sandbox/calls' })
          : t.app.inject({ method: 'POST', url: '/sandbox/faults', payload: i % 3 === 0 ? fault(tracks[i % 4]!) : { track: 'nowhere' } }),
      ),
    );
    answers.forEach((answer, i) => assert.equal(answer.statusCode, [204, 400, 200][i % 3], `request ${i}: ${answer.body}`));
  });
});

describe("the simulators' own SQS queue (Amazon's order notifications)", () => {
  test('is not read, nor the simulators built for it, until something calls them; from then on it is read', async () => {
    const t = await createTestApp('pglite', { listen: true, renewals: 'by-hand' });
    try {
      const receives = () => t.deps.sandbox.calls.get('amazon-seller:sqs.ReceiveMessage') ?? 0;
      const built = () => Promise.race([t.deps.sandbox.built.then(() => true), sleep(0).then(() => false)]);
      // The workers start once the app listens: a reader of the queue would send its first receive at once.
      await t.deps.startWorkers();
      await sleep(2_000);
      assert.equal(receives(), 0);
      assert.equal(await built(), false);
      assert.equal((await t.app.inject({ url: '/sandbox/calls' })).statusCode, 200);
      assert.equal(await built(), true);
      await within(10_000, async () => receives() > 0);
    } finally {
      await t.close();
    }
  });
});

describe('the simulators over a socket', () => {
  let t: TestApp;
  let agent: Agent;
  before(async () => {
    t = await createTestApp('pglite', { listen: true });
    agent = new Agent({ keepAlive: true, maxSockets: 1 });
  });
  after(async () => {
    agent.destroy();
    await t.close();
  });

  /** One request on the agent's single connection: status, body, and whether it reused the connection. */
  const send = (method: string, path: string, body?: string) =>
    new Promise<{ status: number; body: string; reused: boolean }>((resolve, reject) => {
      const outgoing = request(
        `${t.deps.config.appUrl}${path}`,
        { method, agent, headers: body ? { 'content-type': 'application/x-www-form-urlencoded' } : {} },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode!, body: text, reused: outgoing.reusedSocket }));
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });

  test('one kept-alive connection serves the API, a simulator and the API again', async () => {
    const first = await send('GET', '/api/v1/health');
    const revoke = await send('POST', '/sandbox/revoke', 'track=amazon-ads&account=12');
    const calls = await send('GET', '/sandbox/calls');
    const last = await send('GET', '/api/v1/health');
    assert.deepEqual(
      [first, revoke, calls, last].map((answer) => answer.status),
      [200, 204, 200, 200],
    );
    assert.deepEqual(
      [revoke, calls, last].map((answer) => answer.reused),
      [true, true, true],
    );
    assert.ok(t.deps.sandbox.revokedGrants.has('amazon-ads:12'));
    assert.equal(typeof JSON.parse(calls.body), 'object');
  });
});

describe('under /sandbox, what is not a simulator', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp('pglite')));
  after(() => t.close());

  test('an unknown path is the seed-shaped 404, JSON even for a browser, with the security headers', async () => {
    const answer = await t.app.inject({ url: '/sandbox/nowhere', headers: { accept: 'text/html' } });
    assert.equal(answer.statusCode, 404);
    assert.deepEqual(answer.json(), errorBody(404, 'Not found'));
    assert.equal(answer.headers['x-content-type-options'], 'nosniff');
    assert.match(String(answer.headers['content-security-policy']), /default-src 'self'/);
  });

  test('a simulator path with a method it does not take is a 405 naming the ones it does', async () => {
    const answer = await t.app.inject({ method: 'DELETE', url: '/sandbox/calls' });
    assert.equal(answer.statusCode, 405);
    assert.deepEqual(answer.json(), errorBody(405, 'Method not allowed'));
    assert.equal(answer.headers.allow, 'GET, HEAD');
  });

  test('each request is logged once, under one id, by the app', async () => {
    const before = t.logs.length;
    assert.equal((await t.app.inject({ url: '/sandbox/calls' })).statusCode, 200);
    const lines = t.logs.slice(before).map((line) => JSON.parse(line) as { reqId?: string; msg: string });
    assert.deepEqual(
      lines.map((line) => line.msg),
      ['incoming request', 'request completed'],
    );
    assert.equal(lines[0]!.reqId, lines[1]!.reqId);
  });
});
