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
  /**
   * The principal cached for these exact request headers (`authorization`, and `workspace`: the X-Workspace-Id header
   * of a route that needs one, null for a route that does not), when the cache is live and the token has not expired
   * at `nowMs` (milliseconds since the epoch).
   */
  get(authorization: string, workspace: string | null, nowMs: number): Principal | undefined;
  /** The cache's generation now: pass it back to `set` so a read that raced with a change is not stored. */
  generation(): number;
  /** Caches what these headers were verified to be: the same header values are the same bearer and workspace. */
  set(authorization: string, workspace: string | null, principal: Principal, expiresAt: Date | null, generation: number): void;
  invalidate(change: AuthChange): void;
  /** The change feed is connected: start caching. */
  activate(): void;
  /** The change feed is lost: drop everything and cache nothing until it is back. */
  deactivate(): void;
  readonly size: number;
}

interface Entry {
  authorization: string;
  workspace: string | null;
  principal: Principal;
  expiresAtMs: number;
}

/**
 * An entry's slot: a number made of the authorization header's last five characters (the token's signature, 30
 * random bits of base64url) and the workspace header's, read in place; the whole headers are then compared. A key
 * that is a string (the bearer, or a part of it joined to the workspace) is a new string on every request, made and
 * hashed: that cost more than the rest of a cached request's authentication. Two bearers whose slots collide only
 * share the slot, each replacing the other.
 */
const TAIL = 5;
const SLOT_BITS = 0x3fffffff; // a small integer's range, so the number is a key the Map hashes without boxing it

function slotOf(authorization: string, workspace: string | null): number {
  let slot = 0;
  for (let i = Math.max(0, authorization.length - TAIL); i < authorization.length; i++)
    slot = (slot * 64 + authorization.charCodeAt(i)) & SLOT_BITS;
  if (workspace === null) return slot;
  for (let i = 0; i < workspace.length; i++) slot = (slot * 31 + workspace.charCodeAt(i) + 1) & SLOT_BITS;
  return slot;
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
  const entries = new Map<number, Entry>();
  let live = false;
  let generation = 0;

  const clear = () => {
    generation += 1;
    entries.clear();
  };

  return {
    get(authorization, workspace, nowMs) {
      const slot = slotOf(authorization, workspace);
      const entry = entries.get(slot);
      if (!entry || entry.authorization !== authorization || entry.workspace !== workspace) return undefined;
      if (entry.expiresAtMs <= nowMs) {
        entries.delete(slot);
        return undefined;
      }
      return entry.principal;
    },
    generation: () => generation,
    set(authorization, workspace, principal, expiresAt, atGeneration) {
      if (!live || atGeneration !== generation) return;
      const slot = slotOf(authorization, workspace);
      if (entries.size >= options.maxEntries && !entries.has(slot)) entries.delete(entries.keys().next().value!);
      entries.set(slot, { authorization, workspace, principal, expiresAtMs: expiresAt?.getTime() ?? Number.POSITIVE_INFINITY });
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
