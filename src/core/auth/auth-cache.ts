/**
 * Authenticated bearers kept in memory, so a warm request makes no database round trip and checks no signature again.
 * A revocation must hold on every instance within 1 s (DESIGN §3), so the cache is only trusted while the database
 * tells this process about every change that could refuse a bearer:
 * a trigger sends a notification when a token is revoked or a membership, user or workspace changes, and the cache
 * drops what it names. While that feed is down the cache is empty and unused, so nothing missed is ever served.
 */
import type { Principal } from './principal.js';

/** What a notification names: everything of one user, or everything reaching one workspace. */
export type AuthChange = { userId: number } | { workspaceId: number };

export interface AuthCache {
  /** The principal cached for a bearer and workspace header, when the cache is live and the token has not expired. */
  get(key: string, now: Date): Principal | undefined;
  /** The cache's generation now: pass it back to `set` so a read that raced with a change is not stored. */
  generation(): number;
  set(key: string, principal: Principal, expiresAt: Date | null, generation: number): void;
  invalidate(change: AuthChange): void;
  /** The change feed is connected: start caching. */
  activate(): void;
  /** The change feed is lost: drop everything and cache nothing until it is back. */
  deactivate(): void;
  readonly size: number;
}

interface Entry {
  principal: Principal;
  expiresAtMs: number;
}

/** The payload of a `storelink_auth` notification (`u:<user id>` or `w:<workspace id>`), or null for anything else. */
export function parseAuthChange(payload: string): AuthChange | null {
  const match = /^([uw]):([0-9]{1,10})$/.exec(payload);
  if (!match) return null;
  const id = Number(match[2]);
  return match[1] === 'u' ? { userId: id } : { workspaceId: id };
}

/** A cache of at most `maxEntries` bearers; the oldest entry makes room for a new one. */
export function createAuthCache(options: { maxEntries: number }): AuthCache {
  const entries = new Map<string, Entry>();
  let live = false;
  let generation = 0;

  const clear = () => {
    generation += 1;
    entries.clear();
  };

  return {
    get(key, now) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expiresAtMs <= now.getTime()) {
        entries.delete(key);
        return undefined;
      }
      return entry.principal;
    },
    generation: () => generation,
    set(key, principal, expiresAt, atGeneration) {
      if (!live || atGeneration !== generation) return;
      if (entries.size >= options.maxEntries && !entries.has(key)) entries.delete(entries.keys().next().value!);
      entries.set(key, { principal, expiresAtMs: expiresAt?.getTime() ?? Number.POSITIVE_INFINITY });
    },
    invalidate(change) {
      generation += 1;
      for (const [key, { principal }] of entries) {
        if ('userId' in change ? principal.user.id === change.userId : principal.workspace?.id === change.workspaceId) entries.delete(key);
      }
    },
    activate() {
      clear();
      live = true;
    },
    deactivate() {
      live = false;
      clear();
    },
    get size() {
      return entries.size;
    },
  };
}
