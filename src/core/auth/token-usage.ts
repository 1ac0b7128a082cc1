/**
 * Batches `last_used_at` writes: requests only touch memory, and one statement per interval writes them all,
 * so an authenticated request never waits on (or adds) a write.
 */
export interface UsageRecorder {
  touch(tokenId: number, at: Date): void;
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
  let pending = new Map<number, Date>();
  let inFlight: Promise<void> | null = null;

  const flush = async (): Promise<void> => {
    if (inFlight) await inFlight;
    if (pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    inFlight = options.write(batch).catch((error) => {
      // Keep the newer of the two times for a token, so a failed batch is retried next interval.
      for (const [id, at] of batch) if (!(pending.get(id)! >= at)) pending.set(id, at);
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

  return {
    touch: (tokenId, at) => void pending.set(tokenId, at),
    flush,
    close: async () => {
      clearInterval(timer);
      await flush();
    },
  };
}
