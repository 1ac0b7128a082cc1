/**
 * (a) The limit: a bare node:http server answering GET /api/v1/user with the exact bytes Storelink answered, and no
 * checks at all. Nothing a framework, a JWT or a database could do is faster than this.
 * Env: PORT, BENCH_BODY (the body), BENCH_HEADERS (a JSON object: the headers to send besides content-length, Date and
 * the connection's own; by default only Storelink's content-type).
 */
import { createServer } from 'node:http';

const body = Buffer.from(process.env.BENCH_BODY ?? '');
const headers: Record<string, string> = JSON.parse(process.env.BENCH_HEADERS ?? '{"content-type":"application/json; charset=utf-8"}');
const health = Buffer.from('{"success":true,"data":{"status":"ok"}}');

const server = createServer((request, response) => {
  const payload = request.url === '/api/v1/health' ? health : body;
  response.writeHead(200, { ...headers, 'content-length': payload.length });
  response.end(payload);
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => process.exit(0)));
