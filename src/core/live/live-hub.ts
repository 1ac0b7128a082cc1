/**
 * Live status (issue 37, item 1): the database's triggers (migration 0024) notify `storelink_live` with
 * `<workspace_id>:<kind>` whenever a listing, an order, a listing's advertising or a site changes what a seller sees, on
 * whichever instance made the change; each instance listens once and hands each notification to the event streams open
 * on it for that workspace (http/events.routes.ts). While the listener is down (PostgreSQL reconnects every second)
 * notifications are lost, so on its return every stream is told that anything may have changed.
 */
import type { ChannelHandlers, Database } from '../../db/client.js';
import { LIVE_KINDS, type LiveKind } from '../../domain/index.js';

/** The channel the database's triggers notify (migration 0024). */
export const LIVE_CHANNEL = 'storelink_live';

/** What a stream is told: one kind changed, or (`resync`) anything may have changed since it last heard. */
export type LiveChange = { kind: LiveKind } | { kind: 'resync' };

/** An open stream, as the hub knows it: what to tell it, and how to end it (at shutdown). */
export interface LiveListener {
  send(change: LiveChange): void;
  end(): void;
}

/** A notification's payload read, or null for one this version does not know (it is ignored). */
export function parseLiveChange(payload: string): { workspaceId: number; kind: LiveKind } | null {
  const match = /^(\d{1,10}):([a-z]+)$/.exec(payload);
  if (!match) return null;
  const kind = LIVE_KINDS.find((k) => k === match[2]);
  return kind ? { workspaceId: Number(match[1]), kind } : null;
}

export type LiveHub = ReturnType<typeof createLiveHub>;

export function createLiveHub(deps: { database: Pick<Database, 'subscribe'>; onLost: () => void; onBack: () => void }) {
  const byWorkspace = new Map<number, Set<LiveListener>>();
  let listening: Promise<() => Promise<void>> | null = null;
  let lost = false;
  let closed = false;

  const everyone = () => [...byWorkspace.values()].flatMap((set) => [...set]);
  const handlers: ChannelHandlers = {
    notify: (payload) => {
      const change = parseLiveChange(payload);
      if (!change) return;
      for (const listener of byWorkspace.get(change.workspaceId) ?? []) listener.send({ kind: change.kind });
    },
    up: () => {
      if (!lost) return;
      lost = false;
      deps.onBack();
      for (const listener of everyone()) listener.send({ kind: 'resync' });
    },
    down: () => {
      if (!lost) deps.onLost();
      lost = true;
    },
  };

  /** Starts listening on the first stream, so an instance nobody watches holds no connection for it. */
  function listen(): Promise<unknown> {
    listening ??= deps.database.subscribe(LIVE_CHANNEL, handlers).catch((error: unknown) => {
      listening = null;
      throw error;
    });
    return listening;
  }

  return {
    /**
     * Adds a stream of the workspace once the instance listens (so nothing committed after this resolves is missed);
     * the function returned removes it.
     */
    async add(workspaceId: number, listener: LiveListener): Promise<() => void> {
      if (closed) throw new Error('the live hub is closed');
      await listen();
      let set = byWorkspace.get(workspaceId);
      if (!set) byWorkspace.set(workspaceId, (set = new Set()));
      set.add(listener);
      return () => {
        set.delete(listener);
        if (set.size === 0 && byWorkspace.get(workspaceId) === set) byWorkspace.delete(workspaceId);
      };
    },
    /** How many streams are open on this instance. */
    get size() {
      return everyone().length;
    },
    /** Ends every open stream: the server's close would otherwise wait for them (they never end by themselves). */
    endAll(): void {
      for (const listener of everyone()) listener.end();
    },
    /** endAll(), and stops listening; after it no stream is accepted. */
    async close(): Promise<void> {
      closed = true;
      this.endAll();
      const stop = await listening?.catch(() => null);
      listening = null;
      await stop?.();
    },
  };
}
