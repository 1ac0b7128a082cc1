/**
 * The logger of a Fastify instance made without one (below `info`; src/app.ts): the service's, as the instance's `log`
 * (its plugins' too) and, by the instance's first onRequest hook, each request's and its reply's.
 *
 * With a logger, Fastify times every response and listens for its end (a `finish` and an `error` listener on each) to
 * write a line that is dropped below `info`: about 5 % of a warm GET /user's instructions on the request's path
 * (BENCHMARKS.md). Without one, what Fastify itself logs of a request (a reply sent twice, a serializer's failure, a
 * stream's error) would go nowhere: handed this logger, it reaches the log, an answer in it as its status code, as
 * Fastify writes one. What goes unlogged below `info` is a response whose connection failed after it began (the client
 * gone, Fastify's "request errored").
 */

import type { FastifyInstance, FastifyReply } from 'fastify';
import pino, { type Logger } from 'pino';

export function shareTheServiceLogger(app: FastifyInstance, logger: Logger): void {
  const log = logger.child(
    {},
    { serializers: { res: (reply: FastifyReply) => ({ statusCode: reply.statusCode }), err: pino.stdSerializers.err } },
  );
  app.log = log;
  app.addHook('onRequest', (request, reply, done) => {
    request.log = log;
    reply.log = log;
    done();
  });
}
