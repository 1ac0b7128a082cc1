/** What the database's errors mean to the callers that expect them. */

/** PostgreSQL's unique_violation (PGlite's too), wherever it sits in the error's causes: a row another writer took first. */
export function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if ((e as { code?: unknown }).code === '23505') return true;
  }
  return false;
}
