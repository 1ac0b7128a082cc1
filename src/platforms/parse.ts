/** Platform answers checked against a schema of the documented shape before any field of them is read. */
import type { Static, TSchema } from 'typebox';
import Value from 'typebox/value';

/**
 * The answer typed by `schema` when it has that shape, else null. The caller decides what a misshapen answer means,
 * since the same mismatch is a refusal on one call and an unreadable answer on another. Schemas leave additional
 * properties allowed: platforms add fields to their answers without notice.
 */
export function parseBody<const Schema extends TSchema>(schema: Schema, body: unknown): Static<Schema> | null {
  return Value.Check(schema, body) ? body : null;
}
