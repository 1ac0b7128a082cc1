/**
 * Requests refused before their body's end, on a real connection (app.inject has none): the import's 413 for a body
 * past 50 MB, and an upload refused at a part it cannot take, reach the client at once, and the server closes the
 * connection after them, so a kept-alive connection never waits behind the unread rest of the body until a 408.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { databaseKinds } from '../helpers/database.js';
import { mug } from '../helpers/fixtures.js';
import { API, call, createTestApp, errorBody, registerUser, type TestApp } from '../helpers/test-app.js';

/** A raw keep-alive connection: what came back, when the answer's head came, and when the server closed it. */
async function openSocket(url: string) {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const state = { received: '', answeredAt: null as number | null, closedAt: null as number | null };
  socket.on('data', (chunk) => {
    state.received += chunk.toString('latin1');
    if (state.answeredAt === null && state.received.includes('\r\n\r\n')) state.answeredAt = performance.now();
  });
  // Writes still on their way when the server closes fail with EPIPE or ECONNRESET: what a client sending too much gets.
  socket.on('error', () => {});
  socket.on('close', () => (state.closedAt = performance.now()));
  return { socket, state };
}

/** Resolves when `done` holds, or after `ms`. */
async function until(done: () => boolean, ms: number) {
  const end = performance.now() + ms;
  while (!done() && performance.now() < end) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** The status, headers and JSON body of the first answer on the connection. */
function firstAnswer(received: string) {
  const [head = '', ...rest] = received.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  const body = rest.join('\r\n\r\n');
  const json = headers['transfer-encoding'] === 'chunked' ? body.split('\r\n')[1] : body.slice(0, Number(headers['content-length']));
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(json ?? '') };
}

/**
 * The connection's first answer is `status` with `body`, says it closes the connection, and the server closes it
 * within 2 s of it; then the test's end of the socket is closed too.
 */
async function refusedAndClosed(opened: Awaited<ReturnType<typeof openSocket>>, status: number, body: unknown) {
  const { socket, state } = opened;
  const answer = firstAnswer(state.received);
  assert.equal(answer.status, status, state.received.slice(0, 300));
  assert.deepEqual(answer.body, body);
  assert.equal(answer.headers.connection, 'close');
  await until(() => state.closedAt !== null, 2_000);
  assert.ok(state.closedAt !== null, `the server closed the connection within 2 s of its ${status}`);
  socket.destroy();
}

for (const kind of databaseKinds()) {
  describe(`bodies refused before their end, over a real connection [${kind}]`, () => {
    let t: TestApp;
    let head: (extra: string, path?: string, type?: string) => string;
    let productId: number;
    before(async () => {
      t = await createTestApp(kind, { listen: true });
      const user = await registerUser(t);
      head = (extra, path = '/products/import', type = 'text/csv') =>
        `POST ${API}${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\nAuthorization: Bearer ${user.session}\r\n` +
        `X-Workspace-Id: ${user.workspace.id}\r\nContent-Type: ${type}\r\n${extra}\r\n`;
      const made = await call(t, 'POST', '/products', { token: user.session, workspace: user.workspace.id, body: mug('UNREAD-1') });
      productId = made.json().data.id;
    });
    after(() => t.close());

    test('a streamed body past 50 MB is answered 413 at once, and the server closes the connection after it', async () => {
      const { socket, state } = await openSocket(t.deps.config.appUrl);
      socket.write(head('Transfer-Encoding: chunked\r\n'));
      const header = 'handle,title,currency,sku,price,quantity\n';
      socket.write(`${header.length.toString(16)}\r\n${header}\r\n`);
      const line = `${'x'.repeat(1023)}\n`;
      const chunk = `${(64 * 1024).toString(16)}\r\n${line.repeat(64)}\r\n`;
      // 51 MB in 64 KB chunks, then nothing more: a client that waits for the answer before it sends its next request.
      for (let sent = 0; sent < 51 * 16 && state.answeredAt === null && !socket.destroyed; sent++)
        if (!socket.write(chunk)) await new Promise((resolve) => socket.once('drain', resolve).once('close', resolve));
      await until(() => state.answeredAt !== null, 10_000);
      await refusedAndClosed({ socket, state }, 413, errorBody(413, 'Payload too large'));
    });

    test('a declared Content-Length past 50 MB is answered 413 before the body is sent, and the connection is closed', async () => {
      const { socket, state } = await openSocket(t.deps.config.appUrl);
      socket.write(head(`Content-Length: ${51 * 1024 * 1024}\r\n`));
      socket.write('handle,title,currency,sku,price,quantity\n');
      await until(() => state.answeredAt !== null, 5_000);
      await refusedAndClosed({ socket, state }, 413, errorBody(413, 'Payload too large'));
    });

    test('an upload refused at a part it cannot take is answered 422 at once, and the connection is closed', async () => {
      const { socket, state } = await openSocket(t.deps.config.appUrl);
      const boundary = 'storelink-unread';
      const part = `--${boundary}\r\nContent-Disposition: form-data; name="photo"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`;
      const length = part.length + 2_000_000 + `\r\n--${boundary}--\r\n`.length;
      socket.write(head(`Content-Length: ${length}\r\n`, `/products/${productId}/images`, `multipart/form-data; boundary=${boundary}`));
      // The first 100 KB of a 2 MB file, then nothing more until the answer.
      socket.write(part);
      socket.write(Buffer.alloc(100_000));
      await until(() => state.answeredAt !== null, 5_000);
      await refusedAndClosed({ socket, state }, 422, {
        ...errorBody(422, 'The given data was invalid.'),
        errors: { file: ['Send the image in a part named file.'] },
      });
    });
  });
}
