/**
 * Reading one item of a Sponsored Products batch: each field is checked on its own and every problem kept, so the item's
 * answer lists them all, each with the JSON path of its field (`$.campaigns[0].budget.budget`) as the v3 API's
 * `cause.location`.
 */
import type { SpBounds } from './sp-bounds.js';
import { type ItemError, malformedValue, missingValue, rangeError } from './sp-errors.js';

export type Item = Record<string, unknown>;

const absent = (value: unknown) => value === undefined || value === null;

/** The fields of item `index` of `key`, read with their problems collected in `errors`. */
export function fieldsOf(key: string, index: number, item: Item) {
  const errors: ItemError[] = [];
  const at = (path: string) => `$.${key}[${index}].${path}`;
  /** The value at a dotted path (`budget.budget`) of the item. */
  const valueAt = (path: string): unknown =>
    path
      .split('.')
      .reduce<unknown>((value, name) => (typeof value === 'object' && value !== null ? (value as Item)[name] : undefined), item);
  const missing = (path: string, required: boolean) => {
    if (required) errors.push(missingValue({ location: at(path) }, `${path} is required`));
    return undefined;
  };

  return {
    errors,
    at,
    has: (path: string) => !absent(valueAt(path)),
    fail: (error: ItemError) => void errors.push(error),

    /** Text that is not blank and at most `max` characters. */
    text(path: string, options: { required: boolean; max: number }): string | undefined {
      const value = valueAt(path);
      if (absent(value)) return missing(path, options.required);
      const cause = { location: at(path), trigger: value };
      if (typeof value !== 'string') return void errors.push(malformedValue(cause, 'PATTERN_NOT_MATCHED', `${path} must be text`));
      if (value.trim() === '') return void errors.push(malformedValue(cause, 'BLANK', `${path} must not be blank`));
      if (value.length > options.max)
        return void errors.push(malformedValue(cause, 'TOO_LONG', `${path} must be at most ${options.max} characters`));
      return value;
    },

    /** One of `allowed`. */
    choice<T extends string>(path: string, allowed: readonly T[], required = true): T | undefined {
      const value = valueAt(path);
      if (absent(value)) return missing(path, required);
      if (allowed.includes(value as T)) return value as T;
      errors.push(
        rangeError({ location: at(path), trigger: value }, 'INVALID_ENUM_VALUE', `${path} must be one of ${allowed.join(', ')}`, {
          allowed,
        }),
      );
      return undefined;
    },

    /** A sum of money within the marketplace's bounds (`TOO_LOW`, `TOO_HIGH`, with the limits as text). */
    amount(path: string, bounds: SpBounds['bid'], options: { required: boolean; what: string; currency: string }): number | undefined {
      const value = valueAt(path);
      if (absent(value)) return missing(path, options.required);
      const cause = { location: at(path), trigger: value };
      if (typeof value !== 'number' || !Number.isFinite(value))
        return void errors.push(malformedValue(cause, 'PATTERN_NOT_MATCHED', `${path} must be a number`));
      const [min, max] = bounds;
      const limits = { lowerLimit: String(min), upperLimit: String(max) };
      if (value < min)
        return void errors.push(rangeError(cause, 'TOO_LOW', `${options.what} must be at least ${min} ${options.currency}`, limits));
      if (value > max)
        return void errors.push(rangeError(cause, 'TOO_HIGH', `${options.what} must be at most ${max} ${options.currency}`, limits));
      return value;
    },

    /** An entity id: a numeric string (a JSON number is taken too). */
    id(path: string, required = true): string | undefined {
      const value = valueAt(path);
      if (absent(value) || value === '') return missing(path, required);
      if ((typeof value === 'string' || typeof value === 'number') && /^[0-9]{1,20}$/.test(String(value))) return String(value);
      errors.push(malformedValue({ location: at(path), trigger: value }, 'PATTERN_NOT_MATCHED', `${path} must be a numeric id`));
      return undefined;
    },

    /** A calendar date `YYYY-MM-DD`. */
    date(path: string): string | undefined {
      const value = valueAt(path);
      if (absent(value)) return undefined;
      if (typeof value === 'string' && isDate(value)) return value;
      errors.push(malformedValue({ location: at(path), trigger: value }, 'PATTERN_NOT_MATCHED', `${path} must be a date YYYY-MM-DD`));
      return undefined;
    },
  };
}

export type Fields = ReturnType<typeof fieldsOf>;

/** True for a real calendar date written `YYYY-MM-DD`. */
export function isDate(text: string): boolean {
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(text)) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text);
}
