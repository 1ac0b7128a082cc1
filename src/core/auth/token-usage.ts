/**
 * Batches `last_used_at` writes: requests only touch memory, and one statement per interval writes them all,
 * so an authenticated request never waits on (or adds) a write.
 */
export interface UsageRecorder {
  /** The token was used at `atMs` (milliseconds since the epoch). */
  touch(tokenId: number, atMs: number): void;
  /** Writes what is pending now; concurrent calls share one write. */
  flush(): Promise<void>;
  /** Stops the timer and writes what is left. */
  close(): Promise<void>;
}

export function createUsageRecorder(options: {
  write: (entries: ReadonlyMap<number, Date>) => Promise<void>;
  intervalMs: number;
  onError: (error: unknown) => void;
}): UsageRecorder {
  // A token's time is kept in an object changed in place: every authenticated request touches, and a new value stored
  // in the map on each would be an allocation and a pointer from the old generation to the young on each.
  let pending = new Map<number, { atMs: number }>();
  let inFlight: Promise<void> | null = null;

  const flush = async (): Promise<void> => {
    if (inFlight) await inFlight;
    if (pending.size === 0) return;
    const batch = new Map([...pending].map(([id, { atMs }]) => [id, new Date(atMs)]));
    pending = new Map();
    inFlight = options.write(batch).catch((error) => {
      // Keep the newer of the two times for a token, so a failed batch is retried next interval.
      for (const [id, at] of batch) touch(id, at.getTime());
      options.onError(error);
    });
    try {
      await inFlight;
    } finally {
      inFlight = null;
    }
  };

  const timer = setInterval(() => void flush(), options.intervalMs);
  timer.unref();

  function touch(tokenId: number, atMs: number): void {
    const kept = pending.get(tokenId);
    if (!kept) pending.set(tokenId, { atMs });
    else if (kept.atMs < atMs) kept.atMs = atMs;
  }

  return {
    touch,
    flush,
    close: async () => {
      clearInterval(timer);
      await flush();
    },
  };
}
