/**
 * Whether the database can write. A full disk leaves reads and `select 1` working, so a readiness check that only pings
 * says "ok" while every insert fails (reliability review t8). Instead, a statement refused for lack of space marks
 * storage as full, and from then on each check tries a small write of its own until one succeeds.
 */

export interface StorageProblem {
  readonly message: string;
  readonly since: Date;
}

export interface StorageHealth {
  /** Looks at the error a statement failed with; only a full disk counts. */
  observe(error: unknown): void;
  /** Null when writes work as far as anyone knows; while marked full, runs the probe first and clears the mark if it succeeds. */
  check(): Promise<StorageProblem | null>;
}

/** `probe` writes something small that needs new space (a row in a new relation) and leaves nothing behind. */
export function createStorageHealth(probe: () => Promise<void>, now: () => Date = () => new Date()): StorageHealth {
  let problem: StorageProblem | null = null;
  let probing: Promise<void> | null = null;
  const mark = (error: unknown) => {
    problem ??= { message: `no space left for the database (${firstLine(error)})`, since: now() };
  };
  const runProbe = async () => {
    try {
      await probe();
      problem = null;
    } catch (error) {
      if (isDiskFull(error)) mark(error);
    }
  };
  return {
    observe: (error) => {
      if (isDiskFull(error)) mark(error);
    },
    async check() {
      if (problem === null) return null;
      // Concurrent checks share one probe.
      probing ??= runProbe().finally(() => (probing = null));
      await probing;
      return problem;
    },
  };
}

// PostgreSQL's disk_full, and the errno a write gets from a full file system.
const DISK_FULL_CODES = new Set(['53100', 'ENOSPC']);

/** Whether an error, or one of its causes, says the disk is full. */
export function isDiskFull(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && DISK_FULL_CODES.has(code)) return true;
  }
  return false;
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.slice(0, 200);
}
