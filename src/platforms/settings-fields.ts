/** Schemas the platforms' listing settings are written with (their `listing-settings.ts`): ids, listed values, null to clear. */
import Type, { type TSchema } from 'typebox';

/** A platform's id of a profile, a policy or a warehouse: digits, as text (Etsy's are above 2^53). */
export const PlatformIdText = Type.String({ pattern: '^[0-9]{1,20}$', maxLength: 20 });

/** The value, or null (a field that may be cleared). */
export const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** One of the listed values, as a union of `const`s (the shape src/http/schemas.ts's OneOf gives, so the same messages). */
export function oneOf<const T extends readonly string[]>(values: T) {
  return Type.Unsafe<T[number]>({ anyOf: values.map((value) => ({ type: 'string', const: value })) });
}
