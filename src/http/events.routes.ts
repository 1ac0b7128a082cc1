/**
 * GET /events: the workspace's live status as server-sent events (issue 37, item 1; docs/dashboard.md "Live status").
 * Authenticated like every request (bearer and X-Workspace-Id: the dashboard reads it with fetch, not EventSource,
 * so no token is ever put in a URL); scoped to that workspace; a `change` event names the kind that changed, never a
 * record, and the client reads what it shows again through the API, which checks access as always.
 */

import { changeEvent, endEvent, heartbeat, streamOpening } from '../core/live/event-stream.js';
import type { LiveHub } from '../core/live/live-hub.js';
import { type App, type Authenticator, workspaceOf } from './access.js';

/** A client that has not read this much of its stream is too slow to follow it: it is ended, and reconnects. */
const MAX_UNREAD_BYTES = 64 * 1024;

export interface EventsRouteDeps {
  live: LiveHub;
  tokens: Authenticator;
  /** How often a comment is sent on a quiet stream and the caller's access checked again (15 s). */
  heartbeatMs: number;
}

export function registerEventRoutes(app: App, deps: EventsRouteDeps) {
  app.get(
    '/events',
    {
      config: { access: 'workspace' },
      schema: {
        summary: "The workspace's live status: server-sent events naming what changed (listings, advertising, orders, sites)",
        description:
          'A `text/event-stream` that stays open: `ready` once it listens, then `change` with `{"kind": "listings" | ' +
          '"advertising" | "orders" | "sites"}` each time a record of that kind changes in the workspace (on any ' +
          'instance), `resync` when changes may have been missed, a `: heartbeat` comment every 15 s, and `end` before ' +
          'the server closes it (shutdown, or access to the workspace withdrawn: checked at every heartbeat). Read ' +
          'it with the bearer and X-Workspace-Id headers (fetch streaming), then read the named resources again.',
        tags: ['overview'],
        response: {
          200: { description: 'An event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
        },
      },
    },
    async (request, reply) => {
      const workspaceId = workspaceOf(request).id;
      const { authorization } = request.headers;
      const workspaceHeader = String(request.headers['x-workspace-id']);
      const res = reply.raw;
      let stop = () => {};
      let opened = false;
      let ended = false;
      const end = (last?: string) => {
        if (ended) return;
        ended = true;
        stop();
        clearInterval(beat);
        if (last && opened && !res.destroyed) res.end(last);
        else res.destroy();
      };
      const write = (text: string) => {
        if (!opened || ended) return;
        res.write(text);
        if (res.writableLength > MAX_UNREAD_BYTES) end();
      };
      // Access is checked again at every heartbeat: a revoked token or a removed member loses the stream within one.
      const beat = setInterval(async () => {
        try {
          await deps.tokens.authenticate(authorization, workspaceHeader, true);
          write(heartbeat());
        } catch {
          end(endEvent('unauthorized'));
        }
      }, deps.heartbeatMs);
      beat.unref();
      try {
        // Before the reply is taken over, so a database that cannot listen is answered as any other failure (503).
        stop = await deps.live.add(workspaceId, { send: (change) => write(changeEvent(change)), end: () => end(endEvent('shutdown')) });
      } catch (error) {
        clearInterval(beat);
        throw error;
      }
      reply.hijack();
      res.on('close', () => end());
      if (res.destroyed) return end();
      res.writeHead(200, {
        ...(reply.getHeaders() as Record<string, string>),
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        // nginx would otherwise hold the events back in its buffer.
        'x-accel-buffering': 'no',
      });
      opened = true;
      write(streamOpening());
    },
  );
}
