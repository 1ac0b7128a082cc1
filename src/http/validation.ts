/**
 * Request validation: bodies are checked strictly (no type coercion, every error reported), while query strings,
 * path parameters and headers are coerced from text. Ajv's errors become DESIGN §2's per-field messages.
 */

import { createRequire } from 'node:module';
import { Ajv, type ErrorObject } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';
import { EXCHANGE_RATE_PATTERN } from '../domain/index.js';
import type { FieldErrors } from '../errors.js';

// ajv-formats is CommonJS with an `exports.default`, which ESM's default import wraps once more.
const addFormats = createRequire(import.meta.url)('ajv-formats') as (ajv: Ajv) => Ajv;

function createAjv(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({ coerceTypes, allErrors: !coerceTypes, useDefaults: true, removeAdditional: false, strict: false });
  addFormats(ajv);
  return ajv;
}

const strict = createAjv(false);
const coercing = createAjv(true);

/**
 * Each route's validator is generated on the route's first request rather than at start: Ajv's generated code for the
 * hundred-odd routes (the sandbox's too) would otherwise take memory in every instance, most of it for routes an
 * instance never serves. Every route is still compiled by the suite (the OpenAPI, fuzz and route tests call each one).
 */
export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) =>
  onFirstUse(() => (httpPart === 'body' ? compileBody(schema) : httpPart === 'headers' ? coercing.compile(schema) : compileText(schema)));

type Validator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

function onFirstUse(compile: () => Validator): Validator {
  let compiled: Validator | undefined;
  const validate: Validator = (data) => {
    compiled ??= compile();
    const valid = compiled(data);
    validate.errors = compiled.errors;
    return valid;
  };
  return validate;
}

/**
 * The strict body validator, which also refuses U+0000 in declared string fields and a lone UTF-16 surrogate anywhere
 * in the body: PostgreSQL's text and jsonb cannot hold either (a 500 otherwise).
 */
function compileBody(schema: object): Validator {
  const validate = strict.compile(schema);
  const check: Validator = (data) => {
    const errors = [
      ...(validate(data) ? [] : (validate.errors ?? [])),
      ...nulCharacters(data, schema as SchemaNode, ''),
      ...loneSurrogates(data),
    ];
    check.errors = errors.length > 0 ? errors : null;
    return errors.length === 0;
  };
  return check;
}

/**
 * The coercing validator of a query string or path parameters, which also refuses U+0000 in a declared string: `?q=%00`
 * would reach PostgreSQL, whose text cannot hold it (a 500 otherwise), so it is 422 on its field, as in a body.
 */
function compileText(schema: object): Validator {
  const validate = coercing.compile(schema);
  const check: Validator = (data) => {
    const errors = validate(data) ? nulCharacters(data, schema as SchemaNode, '') : (validate.errors ?? []);
    check.errors = errors.length > 0 ? errors : null;
    return errors.length === 0;
  };
  return check;
}

type SchemaNode = {
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  additionalProperties?: SchemaNode | boolean;
  patternProperties?: Record<string, SchemaNode>;
  anyOf?: SchemaNode[];
};

// Walks the schema, not the data, so a deeply nested body costs no more than a flat one. A record's values (Type.Record:
// patternProperties or additionalProperties) and each branch of a union are walked as declared strings too.
function nulCharacters(data: unknown, schema: SchemaNode, path: string): ErrorObject[] {
  if (typeof data === 'string')
    return path !== '' && data.includes('\u0000') ? [{ instancePath: path, schemaPath: '#/nul', keyword: 'nul', params: {} }] : [];
  if (schema.anyOf) {
    const found = schema.anyOf.map((branch) => nulCharacters(data, branch, path)).find((errors) => errors.length > 0);
    if (found) return found;
  }
  if (Array.isArray(data) && schema.items) return data.flatMap((item, i) => nulCharacters(item, schema.items!, `${path}/${i}`));
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return [];
  const record = data as Record<string, unknown>;
  const values = recordValues(schema);
  return Object.keys(record).flatMap((key) => {
    const property = schema.properties?.[key] ?? values;
    if (!property) return [];
    const at = `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    const inKey = key.includes('\u0000') && values ? [{ instancePath: at, schemaPath: '#/nul', keyword: 'nul', params: {} }] : [];
    return [...inKey, ...nulCharacters(record[key], property, at)];
  });
}

/** The schema of a record's values, when the object is a record (its keys chosen by the caller). */
function recordValues(schema: SchemaNode): SchemaNode | undefined {
  if (schema.patternProperties) return Object.values(schema.patternProperties)[0];
  return typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
}

// A high surrogate not followed by a low one, or a low one not preceded by a high one: JSON's `\ud800` escape makes
// such a string, which no UTF-8 encoding (so no PostgreSQL text) can hold.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Every string value and key of the body with a lone surrogate, declared or not: one error at the value's path, or at
 * the object holding a bad key (the body itself for a top-level key). Walks the data without recursion, so however
 * deep a body nests it cannot overflow the stack.
 */
function loneSurrogates(body: unknown): ErrorObject[] {
  const errors: ErrorObject[] = [];
  const error = (instancePath: string) => errors.push({ instancePath, schemaPath: '#/surrogate', keyword: 'surrogate', params: {} });
  const pending: Array<[unknown, string]> = [[body, '']];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [data, path] = next;
    if (typeof data === 'string') {
      // A top-level string is not an object, which the schema already says.
      if (path !== '' && LONE_SURROGATE.test(data)) error(path);
    } else if (Array.isArray(data)) {
      data.forEach((item, i) => pending.push([item, `${path}/${i}`]));
    } else if (data !== null && typeof data === 'object') {
      for (const [key, value] of Object.entries(data)) {
        if (LONE_SURROGATE.test(key)) error(path);
        else pending.push([value, `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`]);
      }
    }
  }
  return errors;
}

const ARTICLES: Record<string, string> = {
  integer: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
};

/** One readable message per field, Laravel-style ("The email field is required."). */
export function toFieldErrors(errors: readonly ErrorObject[], part: string | undefined): FieldErrors {
  // A map, not an object: an unknown field may bear the name of a member every object has (`constructor`, `toString`).
  const fields = new Map<string, string[]>();
  for (const error of errors) {
    // Branch errors of a union repeat what the union's own error says.
    if (error.schemaPath.includes('/anyOf/')) continue;
    // A key refused by `propertyNames` (schemas.ts, Dictionary): Ajv reports what the key broke, then that the key is
    // invalid; the first says it.
    if (error.keyword === 'propertyNames') continue;
    const field = fieldOf(error, part);
    const message = error.propertyName === undefined ? messageOf(error, field) : keyMessageOf(error);
    const messages = fields.get(field) ?? [];
    if (!messages.includes(message)) fields.set(field, [...messages, message]);
  }
  return Object.fromEntries(fields);
}

function fieldOf(error: ErrorObject, part: string | undefined): string {
  const path = error.instancePath.split('/').filter(Boolean);
  if (error.propertyName !== undefined) path.push(error.propertyName);
  if (error.keyword === 'required') path.push(String(error.params.missingProperty));
  if (error.keyword === 'additionalProperties') path.push(String(error.params.additionalProperty));
  return path.length > 0 ? path.join('.') : part === 'body' || part === undefined ? 'body' : part;
}

/**
 * What is wrong with a key of an object whose keys the caller chooses (`attributes.<key>`): said of the key, named by
 * the object's own path (a key may hold a dot, and the object may be nested).
 */
function keyMessageOf(error: ErrorObject): string {
  const label = error.instancePath.split('/').filter(Boolean).join(' ').replaceAll('_', ' ');
  switch (error.keyword) {
    case 'minLength':
      return `A key of ${label} must be at least ${error.params.limit} characters.`;
    case 'maxLength':
      return `A key of ${label} must not be greater than ${error.params.limit} characters.`;
    default:
      return `This key of ${label} is not one it takes.`;
  }
}

function messageOf(error: ErrorObject, field: string): string {
  if (field === 'body' && error.keyword === 'type') return 'The request body must be a JSON object.';
  if (field === 'body' && error.keyword === 'surrogate') return 'The request body must not contain a lone UTF-16 surrogate.';
  const label = field.replaceAll('_', ' ').replaceAll('.', ' ');
  const { params } = error;
  // A listing setting's exchange rate (DESIGN §15), keyed by its currency: said in a seller's terms.
  const rate = /^exchange_rates\.(.+)$/.exec(field)?.[1];
  if (rate !== undefined && error.keyword === 'additionalProperties')
    return `${rate} is not a currency code: three capital letters, like EUR.`;
  if (rate !== undefined && error.keyword === 'pattern' && params.pattern === EXCHANGE_RATE_PATTERN)
    return `The rate from ${rate} must be a decimal number above 0 with at most six decimals, like 1.08.`;
  switch (error.keyword) {
    case 'required':
      return `The ${label} field is required.`;
    case 'additionalProperties':
      return `The ${label} field is not one this request takes.`;
    case 'type':
      return `The ${label} field must be ${ARTICLES[String(params.type).split(',')[0]!] ?? `of type ${params.type}`}.`;
    case 'minLength':
      return `The ${label} field must be at least ${params.limit} characters.`;
    case 'maxLength':
      return `The ${label} field must not be greater than ${params.limit} characters.`;
    case 'minimum':
      return `The ${label} field must be at least ${params.limit}.`;
    case 'maximum':
      return `The ${label} field must not be greater than ${params.limit}.`;
    case 'format':
      return params.format === 'email'
        ? `The ${label} field must be a valid email address.`
        : `The ${label} field must be a valid ${params.format}.`;
    case 'pattern':
      return `The ${label} field format is invalid.`;
    case 'nul':
      return `The ${label} field must not contain a NUL character.`;
    case 'surrogate':
      return `The ${label} field must not contain a lone UTF-16 surrogate.`;
    default:
      return `The selected ${label} is invalid.`;
  }
}
