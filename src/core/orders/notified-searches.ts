/**
 * A site's searches for notified orders, one at a time (DESIGN §14). Where a platform reads notified orders by a search
 * of the site's changed orders (Amazon's searchOrders, once getOrder's burst is spent: a burst of 20 searches, then one
 * every three minutes), two batches searching at once spend two searches on the same orders, and a flash sale spends
 * the burst in seconds. So a batch that needs a search while another runs joins the next one, as does every batch
 * that comes meanwhile; the next starts once the one running has ended and the platform's spacing has passed, and
 * searches only if an order of its batches is still unrecorded by then: the search that ran has often read them, since
 * a notification comes a moment after the sale it tells of. Kept by this instance for its own searches; another
 * instance's are its own, and the platform's plan (counted by the adapter) bounds them all.
 */
export interface NotifiedSearch<R> {
  /** The search's answer; null where every order of the batches that joined it was recorded before it began. */
  readonly read: R | null;
  /** The orders of the batches that joined it still unrecorded when it began: those it was for. */
  readonly unrecorded: ReadonlySet<string>;
}

export function createNotifiedSearches<R>(deps: {
  /** The ids among these of orders the site has not recorded. */
  unrecordedOf(siteId: number, externalIds: readonly string[]): Promise<string[]>;
  sleep(ms: number): Promise<unknown>;
}) {
  /** Per site, the search under way (its recheck included). */
  const running = new Map<number, Promise<unknown>>();
  /** Per site, the next search, and the orders of the batches that joined it so far. */
  const queued = new Map<number, { ids: Set<string>; done: Promise<NotifiedSearch<R>> }>();

  return {
    /**
     * Searches for the site's orders `externalIds` (unrecorded when asked) with `search`: the site's next search, joined
     * if one is waiting to begin, else made once the one under way has ended and `inMs` has passed.
     */
    search(siteId: number, externalIds: readonly string[], inMs: number, search: () => Promise<R>): Promise<NotifiedSearch<R>> {
      const waiting = queued.get(siteId);
      if (waiting) {
        for (const id of externalIds) waiting.ids.add(id);
        return waiting.done;
      }
      const before = running.get(siteId);
      const ids = new Set(externalIds);
      const done = (async () => {
        await Promise.all([before?.catch(() => undefined), inMs > 0 ? deps.sleep(inMs) : undefined]);
        // From here the batches that come queue the search after this one.
        queued.delete(siteId);
        const current = (async (): Promise<NotifiedSearch<R>> => {
          // What the search before recorded is not searched for again.
          const unrecorded = before ? await deps.unrecordedOf(siteId, [...ids]) : [...ids];
          return { read: unrecorded.length > 0 ? await search() : null, unrecorded: new Set(unrecorded) };
        })();
        running.set(siteId, current);
        try {
          return await current;
        } finally {
          if (running.get(siteId) === current) running.delete(siteId);
        }
      })();
      queued.set(siteId, { ids, done });
      return done;
    },
  };
}
