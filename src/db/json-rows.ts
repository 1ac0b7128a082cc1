/**
 * Many rows inserted from one JSON document rather than from a parameter for each of their fields. A page of a hundred
 * orders' lines is about 1,700 parameters: Drizzle builds each one, node-postgres sends each one, and PostgreSQL parses
 * a VALUES list as long, for every page of orders the intake records (BENCHMARKS.md, "Amazon's queue read as fast as
 * it fills, the intake's rows as one document"). Read by `jsonb_to_recordset`, the statement has one parameter however
 * many rows it inserts.
 *
 * The columns are Drizzle's own, in the order its insert lists them, each read from the document as its own SQL type,
 * and each value is the one Drizzle would have sent for it (a date as its ISO text); a json column's value is put in the
 * document as it is. A serial key is left out of the document and takes its sequence's next value, as its default
 * would. A column a row leaves out takes the schema's default where that is a value (or made by `$defaultFn`); one
 * whose default only the database can make (`now()`), or that has none, must be given: left out, it is an error here,
 * not a null there.
 */
import { type Column, getTableColumns, getTableName, is, SQL, sql } from 'drizzle-orm';
import { PgJson, PgJsonb, PgSerial, type PgTable } from 'drizzle-orm/pg-core';

/** The rows as a `select` for `db.insert(table).select(…)`. */
export function selectRows<T extends PgTable>(table: T, rows: readonly T['$inferInsert'][]): SQL {
  const name = getTableName(table);
  // The columns Drizzle's insert lists: its own test of each (internal, untyped), so the two lists cannot differ.
  const columns = Object.entries(getTableColumns(table) as Record<string, Column>).filter(
    ([, column]) => !(column as Column & { shouldDisableInsert(): boolean }).shouldDisableInsert(),
  );
  const serials = columns.filter(([, column]) => is(column, PgSerial));
  const given = columns.filter(([, column]) => !is(column, PgSerial));
  /** A column's value in a row: the row's own, else the schema's default where it is a value. */
  const fieldOf = (fields: Record<string, unknown>, key: string, column: Column): unknown => {
    if (fields[key] !== undefined) return fields[key];
    const made = column.defaultFn?.() ?? column.default;
    if (made === undefined || is(made, SQL)) throw new Error(`${name}.${column.name}: every row gives every column`);
    return made;
  };
  const document = rows.map((row) => {
    const fields = row as Record<string, unknown>;
    for (const [key, column] of serials)
      if (fields[key] !== undefined) throw new Error(`${name}.${column.name}: a serial key is the sequence's to give`);
    return Object.fromEntries(
      given.map(([key, column]) => {
        const value = fieldOf(fields, key, column);
        return [column.name, value === null || is(column, PgJson) || is(column, PgJsonb) ? value : column.mapToDriverValue(value)];
      }),
    );
  });
  const select = columns.map(([, column]) =>
    is(column, PgSerial) ? sql`nextval(pg_get_serial_sequence(${name}, ${column.name}))` : sql`r.${sql.identifier(column.name)}`,
  );
  const definition = given.map(([, column]) => sql`${sql.identifier(column.name)} ${sql.raw(column.getSQLType())}`);
  return sql`select ${sql.join(select, sql`, `)} from jsonb_to_recordset(${JSON.stringify(document)}::jsonb) as r(${sql.join(definition, sql`, `)})`;
}
