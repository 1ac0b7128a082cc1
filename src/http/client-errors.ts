/**
 * Answers what Node's HTTP parser rejects before Fastify sees a request (a request that did not arrive within
 * REQUEST_TIMEOUT_MS or HEADERS_TIMEOUT_MS, oversized headers, malformed HTTP), in the seed's error shape, then closes
 * the connection: Fastify's default answers these in a shape of its own.
 */
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';

const ANSWERS: Record<string, { status: number; reason: string; message: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, reason: 'Request Timeout', message: 'The request did not arrive in time' },
  HPE_HEADER_OVERFLOW: { status: 431, reason: 'Request Header Fields Too Large', message: 'Request headers too large' },
};
const BAD_REQUEST = { status: 400, reason: 'Bad Request', message: 'Bad request' };

/** The raw HTTP/1.1 answer to a client error with Node's `code`, in the seed's shape, closing the connection. */
export function buildClientErrorAnswer(code: string | undefined): string {
  const { status, reason, message } = (code && ANSWERS[code]) || BAD_REQUEST;
  const body = JSON.stringify({ success: false, code: status, message });
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** Fastify's `clientErrorHandler`: a connection reset needs no answer; anything else is answered once and closed. */
export function createClientErrorHandler(log: FastifyBaseLogger) {
  return (error: Error & { code?: string }, socket: Socket) => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    // Mostly clients on bad networks or scanners: worth a trace, not a warning.
    log.trace({ code: error.code }, 'client error');
    if (socket.writable) socket.write(buildClientErrorAnswer(error.code));
    socket.destroy(error);
  };
}
