/** A webhook receiver on loopback for tests: records each request, and holds open the ones it is told to. */
import { createServer, type ServerResponse } from 'node:http';

/**
 * `hang`: 'none' answers 200 at once, 'first' holds the first request open until close() and answers the rest,
 * 'all' holds every request.
 */
export async function startReceiver(hang: 'none' | 'first' | 'all') {
  const received: { webhookId: string; type: string; host: string | undefined }[] = [];
  const open = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ webhookId: String(req.headers['webhook-id']), type: JSON.parse(body).type, host: req.headers.host });
      if (hang === 'all' || (hang === 'first' && received.length === 1)) open.add(res);
      else res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`,
    received,
    close: () => {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}
