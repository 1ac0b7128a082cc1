/**
 * The HTTP server's limits on clients, in a real server process (Node enforces them on sockets, which app.inject never
 * opens): REQUEST_TIMEOUT_MS and HEADERS_TIMEOUT_MS set to 2 s to keep the test short. A body or headers trickling in
 * a byte a second are cut off with a 408, and a silent connection is closed, within the limit and Node's one-second
 * check; whole requests, a slow but finished body, and a keep-alive connection idle for longer than the limit still
 * work.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { outputsOf, type ServerProcess, startServerProcess } from '../helpers/server-process.js';
import { TEST_APP_SECRET, TEST_ENCRYPTION_KEY } from '../helpers/test-app.js';

const LIMIT_MS = 2_000;
/** Node looks for expired requests once a second; the rest is a shared machine's scheduling. */
const MARGIN_MS = 2_000;

/** A raw connection to the server: what it has been sent back, and when (if) it was closed. */
async function openSocket(url: string) {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const state = { received: '', closedAfterMs: null as number | null };
  const openedAt = performance.now();
  socket.on('data', (chunk) => (state.received += chunk.toString('latin1')));
  socket.on('error', () => {});
  socket.on('close', () => (state.closedAfterMs = performance.now() - openedAt));
  return {
    socket,
    state,
    closed: () => new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve()))),
  };
}

/** Writes `text` one byte a second until the socket is closed or `text` runs out. */
async function trickle(socket: Socket, text: string) {
  for (const byte of text) {
    if (socket.destroyed || !socket.writable) return;
    socket.write(byte);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('HTTP server limits (REQUEST_TIMEOUT_MS=2000, HEADERS_TIMEOUT_MS=2000)', () => {
  let server: ServerProcess;
  let dataDir: string;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'storelink-limits-'));
    server = await startServerProcess({
      DATA_DIR: dataDir,
      APP_SECRET: TEST_APP_SECRET,
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      REQUEST_TIMEOUT_MS: String(LIMIT_MS),
      HEADERS_TIMEOUT_MS: String(LIMIT_MS),
    });
  });

  after(async () => {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const failWithOutput = (error: unknown) => {
    process.stderr.write(`${outputsOf({ server })}\n`);
    throw error;
  };

  test('a body sent one byte a second is answered 408 in the seed shape and closed within the limit', { timeout: 30_000 }, async () => {
    const { socket, state, closed } = await openSocket(server.url);
    const body = JSON.stringify({ email: 'slow@example.com', password: 'correct horse battery', name: 'Slow' });
    const head = `POST /api/v1/auth/register HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    socket.write(head);
    void trickle(socket, body);
    await Promise.race([closed(), sleep(LIMIT_MS + MARGIN_MS)]);
    socket.destroy();
    try {
      assert.ok(state.closedAfterMs !== null, `still open ${LIMIT_MS + MARGIN_MS} ms after the request began`);
      assert.match(state.received, /^HTTP\/1\.1 408 /);
      assert.deepEqual(JSON.parse(state.received.slice(state.received.indexOf('\r\n\r\n') + 4)), {
        success: false,
        code: 408,
        message: 'The request did not arrive in time',
      });
    } catch (error) {
      failWithOutput(error);
    }
    process.stdout.write(`slow body closed after ${Math.round(state.closedAfterMs!)} ms\n`);
  });

  test('headers sent one byte a second are answered 408 and closed within the limit', { timeout: 30_000 }, async () => {
    const { socket, state, closed } = await openSocket(server.url);
    socket.write('GET /api/v1/health HTTP/1.1\r\n');
    void trickle(socket, 'X-Slow: abcdefghijklmnopqrstuvwxyz\r\n');
    await Promise.race([closed(), sleep(LIMIT_MS + MARGIN_MS)]);
    socket.destroy();
    assert.ok(state.closedAfterMs !== null, `still open ${LIMIT_MS + MARGIN_MS} ms after the request began`);
    assert.match(state.received, /^HTTP\/1\.1 408 /);
    process.stdout.write(`slow headers closed after ${Math.round(state.closedAfterMs!)} ms\n`);
  });

  test('a connection that sends nothing is closed within the headers limit', { timeout: 30_000 }, async () => {
    const { socket, state, closed } = await openSocket(server.url);
    await Promise.race([closed(), sleep(LIMIT_MS + MARGIN_MS)]);
    socket.destroy();
    assert.ok(state.closedAfterMs !== null, `still open ${LIMIT_MS + MARGIN_MS} ms after it was opened`);
    process.stdout.write(`silent connection closed after ${Math.round(state.closedAfterMs!)} ms\n`);
  });

  test('a body that arrives in pieces within the limit is served', { timeout: 30_000 }, async () => {
    const { socket, state } = await openSocket(server.url);
    const body = JSON.stringify({ email: `pieces-${Date.now()}@example.com`, password: 'correct horse battery', name: 'Pieces' });
    socket.write(
      `POST /api/v1/auth/register HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    const half = Math.floor(body.length / 2);
    socket.write(body.slice(0, half));
    await sleep(LIMIT_MS / 2);
    socket.write(body.slice(half));
    // The limit is on receiving the request; answering takes what a sign-up takes (a password hash), which on a busy
    // machine can be more than the limit itself.
    const started = performance.now();
    while (!state.received.includes('\r\n\r\n') && state.closedAfterMs === null && performance.now() - started < 15_000) {
      await sleep(50);
    }
    socket.destroy();
    assert.match(state.received, /^HTTP\/1\.1 201 /);
  });

  test('a keep-alive connection idle for longer than the request limit serves its next request', { timeout: 30_000 }, async () => {
    const { socket, state } = await openSocket(server.url);
    const request = 'GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
    socket.write(request);
    await sleep(LIMIT_MS + MARGIN_MS);
    socket.write(request);
    await sleep(500);
    socket.destroy();
    assert.equal(state.received.match(/HTTP\/1\.1 200 /g)?.length, 2, state.received);
  });

  test('an ordinary request through fetch is served', async () => {
    const answer = await fetch(`${server.url}/api/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `plain-${Date.now()}@example.com`, password: 'correct horse battery', name: 'Plain' }),
    });
    assert.equal(answer.status, 201);
  });
});
