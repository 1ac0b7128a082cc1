/** Schemas shared by routes: the envelopes of DESIGN §2 and the seed's resources. They also produce the OpenAPI document. */
import type { FastifyReply } from 'fastify';
import Type, { type Static, type TProperties, type TSchema } from 'typebox';
import { ROLES } from '../domain/index.js';

/** One of the domain's listed values: the same schema as a union of literals (the OpenAPI document lists each). */
export function OneOf<const T extends readonly (string | number)[]>(values: T, options: { description?: string } = {}) {
  const anyOf = values.map((value) => ({ type: typeof value === 'number' ? 'number' : 'string', const: value }));
  return Type.Unsafe<T[number]>({ anyOf, ...options });
}

/**
 * A record the OpenAPI document names: its schema is written once under components.schemas as `name` and referenced
 * wherever a response holds it (the `$id` does it; src/http/openapi.ts). For response records only: a request schema
 * with an `$id` would be registered twice with the body validator.
 */
export const Named = <P extends TProperties>(name: string, properties: P) => Type.Object(properties, { $id: name });

export const Id = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });
export const Timestamp = Type.String({ format: 'date-time' });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

export const ErrorBody = Type.Object(
  {
    success: Type.Literal(false),
    code: Type.Integer({ description: 'The HTTP status' }),
    message: Type.String(),
    errors: Type.Optional(Dictionary(Type.String(), Type.Array(Type.String()), { description: 'Per-field messages, on 422 only' })),
  },
  { description: 'The error shape of every error the service answers with' },
);

/**
 * `?page=&per_page=`: both optional (a list without them is its first 25). Optional, not merely defaulted: TypeBox puts
 * every property that is not Optional in `required`, which the OpenAPI document then says a client must send. The
 * validator's `useDefaults` still fills them in, and pageOf/okPage fall back to the same defaults.
 */
export const PAGE_DEFAULTS = { page: 1, per_page: 25 } as const;
export const PageQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: PAGE_DEFAULTS.page })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: PAGE_DEFAULTS.per_page })),
});

type PageParams = { page?: number; per_page?: number };

export const PageMeta = Type.Object({ page: Type.Integer(), per_page: Type.Integer(), total: Type.Integer() });

/** `{success: true, data}` */
export const Ok = <T extends TSchema>(data: T) => Type.Object({ success: Type.Literal(true), data });

/** `{success: true, data: [...], meta}` */
export const OkPage = <T extends TSchema>(item: T) => Type.Object({ success: Type.Literal(true), data: Type.Array(item), meta: PageMeta });

/** Account and token fields: the one source of their limits, for the routes and the operator CLI alike. */
export const EmailField = Type.String({ format: 'email', maxLength: 254 });
export const PasswordField = Type.String({ minLength: 8, maxLength: 256 });
export const NameField = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' });

export const WorkspaceSchema = Named('Workspace', { id: Id, name: Type.String(), role: OneOf(ROLES) });

export const UserSchema = Named('User', { id: Id, email: Type.String(), name: Type.String() });

/** The query of a paginated list, and the limit/offset it stands for. */
export function pageOf(query: PageParams) {
  const { page, per_page } = pageParams(query);
  return { limit: per_page, offset: (page - 1) * per_page };
}

function pageParams(query: PageParams): { page: number; per_page: number } {
  return { page: query.page ?? PAGE_DEFAULTS.page, per_page: query.per_page ?? PAGE_DEFAULTS.per_page };
}

export function ok<T>(data: T) {
  return { success: true as const, data };
}

export function okPage<T>(rows: T[], total: number, query: PageParams) {
  return { success: true as const, data: rows, meta: { ...pageParams(query), total } };
}

/**
 * `okPage` as text, around a page's items the database wrote as JSON (`items`: the objects joined by commas). Sent as
 * it is, with the JSON content type: Fastify does not serialize a string again.
 */
export function sendOkPageJson(reply: FastifyReply, items: string, total: number, query: PageParams): FastifyReply {
  const text = `{"success":true,"data":[${items}],"meta":${JSON.stringify({ ...pageParams(query), total })}}`;
  return reply.type('application/json; charset=utf-8').send(text);
}

/**
 * An object whose keys the caller chooses, each checked by `key` (`propertyNames`) and each value by `value`
 * (`additionalProperties`). Not Type.Record: TypeBox writes that as `patternProperties: {"^.*$": value}` and nothing for
 * any other key, and `.` matches no line break, so a key holding one went unchecked in a body (any value, any length)
 * and was left out of an answer by the serializer.
 */
export function Dictionary<Value extends TSchema>(key: TSchema, value: Value, options: Record<string, unknown> = {}) {
  return Type.Unsafe<Record<string, Static<Value>>>({ type: 'object', propertyNames: key, additionalProperties: value, ...options });
}

/** ISO 8601 text for a timestamp column; null stays null. */
export function iso(date: Date): string;
export function iso(date: Date | null): string | null;
export function iso(date: Date | null): string | null {
  return date === null ? null : date.toISOString();
}
