/**
 * Reference data read from a platform and kept for a while (a product type's definition, a compiled schema). Callers
 * asking for the same key while its read is under way share that read: ten first publishes of one product type make one
 * call, not ten (each would spend the platform's budget of that call, and Amazon's is five a second). A read that fails
 * is not kept: the next caller reads again.
 */
import type { Clock } from './clock.js';

export interface ReadCache<V> {
  /** The kept value of `key`, or the one `read` gives (one read at a time per key). */
  get(key: string, read: () => Promise<V>): Promise<V>;
  /** The value of `key` as last read and still kept, without reading (undefined while none is). */
  known(key: string): V | undefined;
}

export function readCache<V>(clock: Clock, ttlMs: number): ReadCache<V> {
  const entries = new Map<string, { readAt: number; value: Promise<V>; settled?: { value: V } }>();
  const fresh = (key: string) => {
    const entry = entries.get(key);
    return entry && clock.nowMs() - entry.readAt <= ttlMs ? entry : undefined;
  };
  return {
    get(key, read) {
      const known = fresh(key);
      if (known) return known.value;
      const value = read();
      const entry: { readAt: number; value: Promise<V>; settled?: { value: V } } = { readAt: clock.nowMs(), value };
      entries.set(key, entry);
      value.then(
        (settled) => {
          entry.settled = { value: settled };
        },
        () => {
          if (entries.get(key) === entry) entries.delete(key);
        },
      );
      return value;
    },
    known: (key) => fresh(key)?.settled?.value,
  };
}
