/** The text/event-stream wire format (WHATWG HTML, "Server-sent events"), as the live stream writes it. */
import type { LiveChange } from './live-hub.js';

/** How long a client waits before reconnecting a lost stream (the `retry` field), in milliseconds. */
export const RECONNECT_MS = 3_000;

/** The stream's opening: the reconnection delay, then `ready` (the stream listens: anything committed from now is told). */
export const streamOpening = (): string => `retry: ${RECONNECT_MS}\n\nevent: ready\ndata: {}\n\n`;

/** One change as an event: `change` with `{"kind":…}`, `resync` when anything may have changed. */
export function changeEvent(change: LiveChange): string {
  return change.kind === 'resync' ? 'event: resync\ndata: {}\n\n' : `event: change\ndata: ${JSON.stringify({ kind: change.kind })}\n\n`;
}

/** A comment line: ignored by clients, it keeps proxies and the server's idle timeouts from closing a quiet stream. */
export const heartbeat = (): string => ': heartbeat\n\n';

/** The last event of a stream the server ends (shutdown, access withdrawn): a client reconnects after `retry`. */
export const endEvent = (reason: 'shutdown' | 'unauthorized'): string => `event: end\ndata: ${JSON.stringify({ reason })}\n\n`;
