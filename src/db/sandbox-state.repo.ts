/** The simulators' saved state (schema.ts, sandboxState): one JSON text per part, the last writer's. */
import { sql } from 'drizzle-orm';
import type { Db } from './client.js';
import { sandboxState } from './schema.js';

/** Every part's saved JSON text, by part name. */
export async function readSandboxState(db: Db): Promise<Map<string, string>> {
  const rows = await db.select({ part: sandboxState.part, state: sandboxState.state }).from(sandboxState);
  return new Map(rows.map((row) => [row.part, row.state]));
}

/** Saves one part's state, replacing what any instance saved before (last writer wins). */
export async function writeSandboxState(db: Db, part: string, state: string, now: Date): Promise<void> {
  await db
    .insert(sandboxState)
    .values({ part, state, savedAt: now })
    .onConflictDoUpdate({ target: sandboxState.part, set: { state: sql`excluded.state`, savedAt: sql`excluded.saved_at` } });
}

/** Forgets every part's state (`storelink sandbox:reset`); answers how many parts were saved. */
export async function clearSandboxState(db: Db): Promise<number> {
  const removed = await db.delete(sandboxState).returning({ part: sandboxState.part });
  return removed.length;
}
