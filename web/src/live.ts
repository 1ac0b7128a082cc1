/**
 * Live status (docs/dashboard.md, "Live status"): one event stream per workspace open on the page (GET /api/v1/events),
 * shared by every component that follows it. It is read with fetch, not EventSource, so the session token goes in the
 * Authorization header as on every call and never in a URL. A `change` names a kind (listings, advertising, orders,
 * sites) and the components following that kind read what they show again; after a lost stream, or a `resync`, all
 * of them do, since anything may have changed meanwhile.
 */
import { useEffect, useRef } from 'react';
import { inWorkspace, session } from './api/client';

export type LiveKind = 'listings' | 'advertising' | 'orders' | 'sites';

interface Follower {
  kinds: readonly LiveKind[];
  changed: () => void;
}

/** Changes that come together (a bulk edit's listings, each committing on its own) are read again once. */
const SETTLE_MS = 250;
/** The stream's own `retry` field says 3 s; a refused or failed connection waits as long. */
const RECONNECT_MS = 3_000;

const streams = new Map<string, { followers: Set<Follower>; stop: () => void }>();

/** Each follower told once, SETTLE_MS after the last change of a kind it follows. */
function createDispatch(followers: Set<Follower>) {
  const due = new Map<Follower, ReturnType<typeof setTimeout>>();
  return (kind: LiveKind | 'all') => {
    for (const follower of followers) {
      if (kind !== 'all' && !follower.kinds.includes(kind)) continue;
      clearTimeout(due.get(follower));
      due.set(
        follower,
        setTimeout(() => {
          due.delete(follower);
          if (followers.has(follower)) follower.changed();
        }, SETTLE_MS),
      );
    }
  };
}

/** The events of a text/event-stream body, as `event` and `data` of each block. */
async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<{ event: string; data: string }> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
    for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let event = 'message';
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data += line.slice(5).trim();
      }
      if (!block.startsWith(':')) yield { event, data };
    }
  }
}

function open(workspaceId: string, followers: Set<Follower>): () => void {
  const dispatch = createDispatch(followers);
  let stopped = false;
  let controller: AbortController | null = null;
  let connectedBefore = false;
  (async () => {
    while (!stopped) {
      controller = new AbortController();
      try {
        const token = session.get();
        if (!token) return;
        const response = await fetch('/api/v1/events', {
          headers: { authorization: `Bearer ${token}`, ...inWorkspace(workspaceId) },
          signal: controller.signal,
          cache: 'no-store',
        });
        // Signed out or no longer a member: the page's own requests say so; following stops.
        if (response.status === 401 || response.status === 403) return;
        if (response.ok && response.body) {
          for await (const { event, data } of readEvents(response.body)) {
            if (event === 'ready') {
              // What changed while the stream was down was not told: every follower reads again.
              if (connectedBefore) dispatch('all');
              connectedBefore = true;
            } else if (event === 'change') dispatch((JSON.parse(data) as { kind: LiveKind }).kind);
            else if (event === 'resync') dispatch('all');
          }
        }
      } catch {
        // A lost connection, or stop(): tried again below unless stopped.
      }
      if (!stopped) await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
    }
  })();
  return () => {
    stopped = true;
    controller?.abort();
  };
}

/**
 * Calls `changed` when something of `kinds` changes in the workspace, on any instance (each change within about a
 * second, several together once). Components of one workspace share one stream; it closes with the last of them.
 */
export function useLiveChanges(workspaceId: string | null | undefined, kinds: readonly LiveKind[], changed: () => void) {
  const latest = useRef(changed);
  latest.current = changed;
  const kindsKey = kinds.join(',');
  useEffect(() => {
    if (!workspaceId) return;
    let stream = streams.get(workspaceId);
    if (!stream) {
      const followers = new Set<Follower>();
      stream = { followers, stop: open(workspaceId, followers) };
      streams.set(workspaceId, stream);
    }
    const follower: Follower = { kinds: kindsKey.split(',') as LiveKind[], changed: () => latest.current() };
    stream.followers.add(follower);
    const mine = stream;
    return () => {
      mine.followers.delete(follower);
      if (mine.followers.size > 0) return;
      mine.stop();
      if (streams.get(workspaceId) === mine) streams.delete(workspaceId);
    };
  }, [workspaceId, kindsKey]);
}
