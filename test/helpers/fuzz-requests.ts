/**
 * Generated API requests for the fuzz suite. fast-check draws abstract choices (which credential, how to break it,
 * which body shape); `materialize` (fuzz-materialize.ts) turns them into an inject() request against live fixtures at
 * run time, so the counterexample fast-check prints names a choice, never a token, and tokens replaced mid-run are picked up.
 */
import fc from 'fast-check';
import { ATTRIBUTE_PREFIX, CSV_COLUMNS, REQUIRED_COLUMNS } from '../../src/core/catalog/csv.js';

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
};

/** One path+method of the OpenAPI document, with what the generators need from it. */
export interface Operation {
  readonly method: string;
  readonly template: string;
  readonly pathParams: string[];
  readonly queryParams: string[];
  readonly bodySchema: JsonSchema | null;
  /** The media type its request body is declared in (the first one), or null for an operation without a body. */
  readonly bodyType: string | null;
  readonly isCallback: boolean;
  /** The content types each declared 2xx status answers with (none: an empty body, as a 204). */
  readonly successContent: Readonly<Record<string, string[]>>;
}

/** Every operation of an OpenAPI 3 document, so a route added later is fuzzed without touching the suite. */
export function operationsOf(doc: { paths: Record<string, Record<string, any>> }): Operation[] {
  return Object.entries(doc.paths).flatMap(([template, item]) =>
    Object.entries(item).map(([method, op]) => {
      const parameters: Array<{ in: string; name: string }> = op.parameters ?? [];
      return {
        method: method.toUpperCase(),
        template,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: parameters.filter((p) => p.in === 'query').map((p) => p.name),
        bodySchema: op.requestBody?.content?.['application/json']?.schema ?? null,
        bodyType: Object.keys(op.requestBody?.content ?? {})[0] ?? null,
        isCallback: template.includes('/oauth/callback/'),
        successContent: Object.fromEntries(
          Object.entries<{ content?: Record<string, unknown> }>(op.responses ?? {})
            .filter(([status]) => status.startsWith('2'))
            .map(([status, answer]) => [status, Object.keys(answer.content ?? {})]),
        ),
      };
    }),
  );
}

/** The fixture tokens a choice can name; `revoked` is a logged-out session, `state` an OAuth state JWT. */
export type Who = 'session' | 'pat' | 'member-session' | 'member-pat' | 'revoked' | 'state';
/** Fixture workspaces: `own` (owner A, B a member), `other` (B's own), `foreign` (neither's). */
export type WorkspaceName = 'own' | 'other' | 'foreign';
/** Fixture row ids a path parameter can name (of either workspace, so ids of the wrong kind or owner occur too). */
export type FixtureId =
  | 'pat'
  | 'member-pat'
  | 'site'
  | 'amazon-site'
  | 'other-site'
  | 'webhook'
  | 'delivery'
  | 'other-webhook'
  | 'other-delivery'
  | ProductFixture;
/** Fixture products: `product` of workspace `own` (made by A), `other-product` of workspace `other` (made by B). */
export type ProductFixture = 'product' | 'other-product';
const FIXTURE_IDS: FixtureId[] = [
  'pat',
  'member-pat',
  'site',
  'amazon-site',
  'other-site',
  'webhook',
  'delivery',
  'other-webhook',
  'other-delivery',
  'product',
  'other-product',
];
/** The fixtures a path parameter is meant to name, drawn more often than the others so requests reach real rows. */
const FIXTURES_OF: Record<string, FixtureId[]> = {
  id: ['pat', 'member-pat'],
  site_id: ['site', 'amazon-site', 'other-site'],
  webhook_id: ['webhook', 'other-webhook'],
  delivery_id: ['delivery', 'other-delivery'],
  product_id: ['product', 'product', 'other-product'],
};

export type AuthChoice =
  | { kind: 'none' }
  | { kind: 'bearer'; who: Who; scheme: string; space: string }
  | { kind: 'tampered'; who: Who; part: number; at: number; char: string }
  | { kind: 'truncated'; who: Who; keep: number }
  | { kind: 'forged'; header: string; payload: string; signature: string }
  | { kind: 'raw'; value: string }
  | { kind: 'repeated'; first: AuthChoice; second: AuthChoice };

export type WorkspaceChoice =
  | { kind: 'none' }
  | { kind: 'fixture'; name: WorkspaceName }
  | { kind: 'raw'; value: string }
  | { kind: 'repeated'; values: WorkspaceChoice[] };

export type TextChoice =
  | { kind: 'raw'; value: string; encode: boolean }
  | { kind: 'fixture'; name: FixtureId }
  /** An OAuth state from the pool, made unusable: sent to another track's callback, tampered with, or cut short. */
  | { kind: 'state'; index: number; mode: 'other-track' | 'tampered' | 'truncated' }
  | { kind: 'token'; who: Who };

/** A CSV cell other than its column's valid value: empty, the given text, or a sku of a fixture product. */
export type CsvCell = 'empty' | { text: string } | { sku: ProductFixture };

/**
 * A CSV data row: the product its valid cells describe, the cells that are not valid (by column, modulo the row's
 * width), and `ragged`, the cells it has more (or, negative, fewer) than the header names.
 */
export interface CsvRow {
  readonly product: number;
  readonly changes: Array<[number, CsvCell]>;
  readonly ragged: number | null;
}

export type ImageFormat = 'png' | 'gif' | 'jpeg';

/** The bytes of a file part: a real image (cut short after `keep` bytes), a PNG header claiming a size, noise, nothing. */
export type FileBytes =
  | { kind: 'image'; format: ImageFormat; keep: number | null }
  | { kind: 'png-size'; width: number; height: number }
  | { kind: 'random'; bytes: number[] }
  | { kind: 'empty' };

export type PartChoice =
  | { kind: 'file'; name: string; filename: string | null; type: string | null; bytes: FileBytes }
  | { kind: 'field'; name: string; value: string };

export type BodyChoice =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown }
  | { kind: 'literal'; value: unknown; literal: string }
  | { kind: 'nested'; depth: number; shape: 'array' | 'object' | 'field' }
  | { kind: 'text'; value: string }
  | { kind: 'huge'; size: number }
  /** A CSV file, broken at its end when `broken` says how. */
  | {
      kind: 'csv';
      bom: boolean;
      eol: '\n' | '\r\n';
      header: string[];
      rows: CsvRow[];
      broken: 'unclosed-quote' | 'stray-quote' | null;
    }
  /** A multipart/form-data body, cut after `cut` bytes when not null. */
  | { kind: 'multipart'; boundary: string; parts: PartChoice[]; cut: number | null };

export interface FuzzRequest {
  readonly operation: number;
  readonly otherMethod: string | null;
  readonly path: TextChoice[];
  readonly query: Array<[string, TextChoice]>;
  readonly auth: AuthChoice;
  readonly workspace: WorkspaceChoice;
  readonly body: BodyChoice;
  /** `{boundary}` in it stands for the multipart body's boundary. */
  readonly contentType: string | null;
  readonly accept: string | null;
  readonly contentLength: string | null;
  readonly remoteAddress: string;
}

/** What `materialize` reads at run time: the current fixture tokens and ids, and OAuth states issued so far. */
export interface Fixtures {
  tokens: Record<Who, string>;
  workspaces: Record<WorkspaceName, number>;
  ids: Record<FixtureId, number>;
  /** The skus the fixture products were made with (a PATCH or an import may have changed them since). */
  skus: Record<ProductFixture, string[]>;
  states: Array<{ state: string; track: string }>;
}

const WHO: Who[] = ['session', 'pat', 'member-session', 'member-pat', 'revoked', 'state'];
const who = fc.constantFrom(...WHO);

/** `value` about once in `every` draws, else null. (fast-check's `fc.option` freq is the other way round.) */
const sometimes = <T>(value: fc.Arbitrary<T>, every: number) =>
  fc.oneof({ weight: every - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: value });

// Header values as Node would read them off the wire: UTF-8 bytes seen as latin1, no control characters.
const headerText = (maxLength = 40) =>
  fc.string({ unit: 'binary', maxLength }).map((s) =>
    Buffer.from(s, 'utf8')
      .toString('latin1')
      .replace(/[\x00-\x08\x0a-\x1f\x7f]/g, ''),
  );

/** Numbers and ids as text: huge, negative, decimal, exponent, hex, unicode digits, padded, empty. */
const numberishText = fc.oneof(
  fc.constantFrom(
    '',
    '0',
    '-1',
    '1.5',
    '1e3',
    '0x10',
    '01',
    ' 1',
    '1 ',
    '+1',
    '2147483647',
    '2147483648',
    '99999999999999999999999',
    '-99999999999999999999',
    'NaN',
    'Infinity',
    'null',
    'true',
    '١',
    '１',
    '1,2',
    '1;2',
    '%00',
    '%zz',
    '../1',
    '1%2F2',
  ),
  fc.integer().map(String),
  fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String),
  fc.double().map(String),
);

const garbageText = fc.oneof(
  numberishText,
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.string({ maxLength: 300 }),
);

const authChoice: fc.Arbitrary<AuthChoice> = fc.letrec<{ auth: AuthChoice }>((tie) => ({
  auth: fc.oneof(
    { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
    // A working credential often enough that most requests get past authentication into the handlers.
    {
      weight: 12,
      arbitrary: fc.record({
        kind: fc.constant('bearer' as const),
        who: fc.constantFrom<Who>('session', 'pat', 'session', 'pat', 'member-session', 'member-pat', 'revoked', 'state'),
        scheme: fc.constant('Bearer'),
        space: fc.constant(' '),
      }),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('bearer' as const),
        who,
        scheme: fc.constantFrom('bearer', 'BEARER', 'Basic', 'Token', 'JWT', '', 'Bearer'),
        space: fc.constantFrom(' ', '  ', '', '\t', ', ', ' \t'),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('tampered' as const),
        who,
        part: fc.integer({ min: 0, max: 2 }),
        at: fc.nat(),
        char: fc.constantFrom('A', 'z', '0', '_', '-', '.', '=', '%', 'é'),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('truncated' as const), who, keep: fc.nat() }) },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('forged' as const),
        header: fc.oneof(
          fc.constantFrom(
            '{"alg":"none","typ":"session+jwt"}',
            '{"alg":"HS256","typ":"pat+jwt","kid":"x"}',
            '{"alg":"RS256"}',
            '{}',
            '[]',
            'null',
          ),
          fc.json(),
        ),
        payload: fc.oneof(
          fc.constantFrom('{"sub":"1","jti":"x","aud":"storelink:session","iss":"storelink","exp":99999999999}', '{"sub":1}', '{}'),
          fc.json(),
        ),
        signature: fc.oneof(fc.constant(''), fc.base64String({ maxLength: 60 })),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('raw' as const),
        value: fc.oneof(
          headerText(200),
          headerText().map((s) => `Bearer ${s}`),
          fc.constantFrom('Bearer', 'Bearer ', 'Bearer a.b.c', 'Bearer ...', 'Bearer ==', 'Basic dXNlcjpwYXNz'),
        ),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('repeated' as const), first: tie('auth'), second: tie('auth') }) },
  ),
})).auth;

const workspaceChoice: fc.Arbitrary<WorkspaceChoice> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
  {
    weight: 6,
    arbitrary: fc.record({ kind: fc.constant('fixture' as const), name: fc.constantFrom<WorkspaceName>('own', 'own', 'other', 'foreign') }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('raw' as const), value: fc.oneof(numberishText, headerText()) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('repeated' as const),
      values: fc.array(
        fc.oneof(
          fc.record({ kind: fc.constant('fixture' as const), name: fc.constantFrom<WorkspaceName>('own', 'other') }),
          fc.record({ kind: fc.constant('raw' as const), value: numberishText }),
        ),
        { minLength: 2, maxLength: 3 },
      ),
    }),
  },
);

const rawText = (values: fc.Arbitrary<string>) => fc.record({ kind: fc.constant('raw' as const), value: values, encode: fc.boolean() });

const fixtureChoice = (names: FixtureId[]) => fc.record({ kind: fc.constant('fixture' as const), name: fc.constantFrom(...names) });

/** A value of the path parameter `name`: a fixture of its kind, one of any kind, or raw text. */
const idChoice = (name: string): fc.Arbitrary<TextChoice> =>
  fc.oneof(
    { weight: FIXTURES_OF[name] ? 3 : 0, arbitrary: fixtureChoice(FIXTURES_OF[name] ?? FIXTURE_IDS) },
    { weight: 3, arbitrary: fixtureChoice(FIXTURE_IDS) },
    { weight: 3, arbitrary: rawText(numberishText) },
    { weight: 1, arbitrary: rawText(garbageText) },
  );

const stateChoice: fc.Arbitrary<TextChoice> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('state' as const),
      index: fc.nat(),
      mode: fc.constantFrom<'other-track' | 'tampered' | 'truncated'>('other-track', 'tampered', 'truncated'),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('token' as const), who: fc.constantFrom<Who>('session', 'pat', 'revoked') }) },
  { weight: 2, arbitrary: rawText(garbageText) },
);

const CALLBACK_KEYS = [
  'state',
  'code',
  'error',
  'error_description',
  'segment',
  'spapi_oauth_code',
  'selling_partner_id',
  'mws_auth_token',
  'app_key',
  'shop_region',
  'scope',
];

function queryChoice(operation: Operation): fc.Arbitrary<Array<[string, TextChoice]>> {
  const keys = [...operation.queryParams, ...(operation.isCallback ? CALLBACK_KEYS : []), 'page', 'per_page'];
  const value = fc.oneof(
    { weight: 3, arbitrary: rawText(numberishText) },
    { weight: 2, arbitrary: rawText(garbageText) },
    { weight: 1, arbitrary: rawText(fc.constantFrom('advertising', 'access_denied', '1', '25', '100', '101')) },
  );
  const pair = fc.oneof(
    { weight: 6, arbitrary: fc.tuple(fc.constantFrom(...keys), value) },
    { weight: operation.isCallback ? 6 : 0, arbitrary: fc.tuple(fc.constant('state'), stateChoice) },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('__proto__', 'constructor', 'page[]', 'a[b]')), value),
    },
  );
  return fc.array(pair, { maxLength: 6 });
}

/** A value of a JSON schema: valid often enough to get past validation, of any other type otherwise. */
function arbitraryOf(schema: JsonSchema, name = ''): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((branch) => arbitraryOf(branch, name)));
  const type = [schema.type].flat()[0];
  switch (type) {
    case 'string':
      if (schema.format === 'email') return fc.emailAddress();
      if (/url/i.test(name))
        return fc.oneof(
          fc.webUrl({ withQueryParameters: true }),
          fc.constantFrom(
            'https://seller.example/done',
            'http://127.0.0.1:9/hook',
            'https://services.tiktokshop.com/open/authorize?service_id=1',
            'javascript:alert(1)',
            'https://a.example/|x',
          ),
        );
      return fc.string({ unit: 'grapheme', minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 60, 60) });
    case 'integer':
      return fc.oneof(fc.integer({ min: 1, max: 6 }), fc.integer({ min: schema.minimum ?? -(2 ** 31), max: schema.maximum ?? 2 ** 31 }));
    case 'number':
      return fc.double();
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(arbitraryOf(schema.items ?? {}), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 5, 8) });
    case 'object':
      return objectOf(schema);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

const OMIT = Symbol('omit');
const wrongValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom<unknown>(
    '30',
    '1',
    '',
    ' ',
    null,
    true,
    [],
    {},
    -1,
    0,
    1.5,
    2 ** 53 + 2,
    -1e308,
    1e308,
    Number.MIN_VALUE,
    '\u0000',
    '\ud800',
    'é'.repeat(300),
    'x'.repeat(5000),
  ),
);

/** An object shaped like `schema`: each field valid, of a wrong type, or missing, plus now and then an unknown field. */
function objectOf(schema: JsonSchema): fc.Arbitrary<Record<string, unknown>> {
  const fields = Object.entries(schema.properties ?? {}).map(
    ([key, property]) =>
      [
        key,
        fc.oneof(
          { weight: 5, arbitrary: arbitraryOf(property, key) },
          { weight: 2, arbitrary: wrongValue },
          { weight: 1, arbitrary: fc.constant(OMIT) },
        ),
      ] as const,
  );
  const extra = sometimes(
    fc.tuple(
      fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('__proto__', 'constructor', 'prototype')),
      fc.jsonValue({ maxDepth: 2 }),
    ),
    4,
  );
  return fc.tuple(fc.tuple(...fields.map(([, arbitrary]) => arbitrary)), extra).map(([values, more]) => {
    const object: Record<string, unknown> = {};
    fields.forEach(([key], i) => values[i] !== OMIT && (object[key] = values[i]));
    if (more) Object.defineProperty(object, more[0], { value: more[1], enumerable: true, writable: true, configurable: true });
    return object;
  });
}

// Number and string literals JSON.stringify cannot write, spliced into an otherwise well-formed body.
const LITERALS = [
  '1e400',
  '-1e400',
  '-0',
  '1.0',
  '1E2',
  '123456789012345678901234567890',
  '0.0000000000000000000001',
  '"\\ud800"',
  '"\\u0000"',
  '"\\uffff"',
  '[]',
  '{}',
  'null',
  'true',
];

/** JSON bodies, valid, shaped by the operation's schema or not, and broken JSON. */
function jsonBodyChoice(operation: Operation): fc.Arbitrary<BodyChoice> {
  const shaped = operation.bodySchema ? arbitraryOf(operation.bodySchema) : fc.jsonValue({ maxDepth: 2 });
  const literal = operation.bodySchema
    ? fc.record({ kind: fc.constant('literal' as const), value: shaped, literal: fc.constantFrom(...LITERALS) })
    : fc.record({ kind: fc.constant('literal' as const), value: fc.constant({}), literal: fc.constantFrom(...LITERALS) });
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant({ kind: 'none' as const }) },
    { weight: 6, arbitrary: fc.record({ kind: fc.constant('json' as const), value: shaped }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('json' as const), value: fc.jsonValue() }) },
    { weight: 2, arbitrary: literal },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('nested' as const),
        depth: fc.oneof(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 1_000, max: 40_000 })),
        shape: fc.constantFrom<'array' | 'object' | 'field'>('array', 'object', 'field'),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('text' as const),
        value: fc.oneof(
          fc.string({ maxLength: 50 }),
          fc.string({ unit: 'binary', maxLength: 50 }),
          fc.constantFrom(
            '',
            ' ',
            '{',
            '}',
            '{"a":',
            '[1,]',
            '{"a":1,}',
            "{'a':1}",
            '{"a":1}{"b":2}',
            'NaN',
            'undefined',
            '\ufeff{}',
            '{"__proto__":{"x":1}}',
            '{"constructor":{"prototype":{"x":1}}}',
            '{"a":"\\x"}',
            '"\\ud800"',
            '\u0000',
          ),
          shaped.map((value) => {
            const text = JSON.stringify(value) ?? '';
            return text.slice(0, Math.max(0, text.length - 1));
          }),
        ),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('huge' as const),
        size: fc.oneof(fc.integer({ min: 60_000, max: 70_000 }), fc.integer({ min: 100_000, max: 400_000 })),
      }),
    },
  );
}

// Every column of the catalogue's CSV, and attribute columns: what a header row is mostly made of.
const KNOWN_COLUMNS = [...CSV_COLUMNS, `${ATTRIBUTE_PREFIX}material`, `${ATTRIBUTE_PREFIX}care`];
const PACKAGE_COLUMNS: readonly string[] = ['weight_grams', 'length_mm', 'width_mm', 'height_mm'];
/** The known columns in the groups a header takes or leaves together: an option's name and value, the package's measures. */
const COLUMN_GROUPS = [
  ...KNOWN_COLUMNS.reduce((groups, column) => {
    const group = /^option\d/.exec(column)?.[0] ?? (PACKAGE_COLUMNS.includes(column) ? 'package' : column);
    return groups.set(group, [...(groups.get(group) ?? []), column]);
  }, new Map<string, string[]>()),
].map(([, columns]) => columns);
// Columns the import refuses or must read with care: padded, cased, empty, unknown, keys empty, too long or not text.
const ODD_COLUMNS = [
  ' title ',
  'Title',
  '',
  'colour',
  ATTRIBUTE_PREFIX,
  `${ATTRIBUTE_PREFIX}${'k'.repeat(101)}`,
  `${ATTRIBUTE_PREFIX}\u0000`,
  `${ATTRIBUTE_PREFIX}__proto__`,
  `${ATTRIBUTE_PREFIX}a,b`,
  `${ATTRIBUTE_PREFIX}material `,
  'sku\n',
  '"price"',
];

/**
 * A header row: each group of known columns in or out (the required ones mostly in), every column at a random place,
 * now and then with an odd column, or a known one again or alone (a package measure without the others).
 */
const csvHeaderChoice: fc.Arbitrary<string[]> = fc
  .tuple(
    fc.tuple(
      ...COLUMN_GROUPS.map((group) =>
        fc.option(fc.tuple(...group.map(() => fc.nat(99))), {
          freq: group.some((column) => (REQUIRED_COLUMNS as readonly string[]).includes(column)) ? 40 : 2,
        }),
      ),
    ),
    fc.oneof(
      { weight: 4, arbitrary: fc.constant([]) },
      {
        weight: 1,
        arbitrary: fc.array(fc.tuple(fc.constantFrom(...KNOWN_COLUMNS, ...ODD_COLUMNS), fc.nat(99)), { minLength: 1, maxLength: 2 }),
      },
    ),
  )
  .map(([places, extra]) =>
    [...COLUMN_GROUPS.flatMap((group, i) => places[i]?.map((at, j) => [group[j]!, at] as const) ?? []), ...extra]
      .sort((x, y) => x[1] - y[1])
      .map(([column]) => column),
  );

// Cell texts a CSV parser or the catalogue's rules must meet: CSV's own characters, sizes past the limits, characters
// PostgreSQL cannot store, numbers out of range, prices and quantities that are not numbers, a formula.
const HOSTILE_CELLS = [
  '"',
  '""',
  'a "quoted" word',
  'two\nlines',
  'two\r\nlines',
  'a,b',
  ',',
  ' ',
  ' padded ',
  'x'.repeat(141),
  'é'.repeat(501),
  'x'.repeat(50_001),
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udc00',
  '-1',
  '0',
  '1e3',
  '1.5',
  '12.345',
  '12,00',
  '€12',
  'abc',
  'NaN',
  '0.00',
  '1000000',
  '999999.99',
  '2147483648',
  '99999999999999999999',
  '=1+1',
  'usd',
  'product-1',
  'https://example.com/x.jpg javascript:alert(1)',
];

const csvCell: fc.Arbitrary<CsvCell> = fc.oneof(
  { weight: 1, arbitrary: fc.constant('empty' as const) },
  {
    weight: 3,
    arbitrary: fc.record({
      text: fc.oneof(fc.constantFrom(...HOSTILE_CELLS), fc.string({ maxLength: 20 }), fc.string({ unit: 'binary', maxLength: 20 })),
    }),
  },
  { weight: 1, arbitrary: fc.record({ sku: fc.constantFrom<ProductFixture>('product', 'other-product') }) },
);

// Most rows are valid, so that most files without a broken row are accepted; the others change a cell or three.
const csvRow: fc.Arbitrary<CsvRow> = fc.record({
  product: fc.integer({ min: 0, max: 2 }),
  changes: fc.oneof(
    { weight: 2, arbitrary: fc.constant<Array<[number, CsvCell]>>([]) },
    { weight: 1, arbitrary: fc.array(fc.tuple(fc.nat(40), csvCell), { minLength: 1, maxLength: 3 }) },
  ),
  ragged: sometimes(fc.integer({ min: -3, max: 3 }), 10),
});

// A handful of rows at most: an accepted import stays small, so the tables (and each snapshot of them) stay small too.
const csvChoice: fc.Arbitrary<BodyChoice> = fc.record({
  kind: fc.constant('csv' as const),
  bom: fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  eol: fc.constantFrom<'\n' | '\r\n'>('\n', '\r\n'),
  header: csvHeaderChoice,
  rows: fc.oneof(
    { weight: 1, arbitrary: fc.constant<CsvRow[]>([]) },
    { weight: 9, arbitrary: fc.array(csvRow, { minLength: 1, maxLength: 5 }) },
  ),
  broken: sometimes(fc.constantFrom<'unclosed-quote' | 'stray-quote'>('unclosed-quote', 'stray-quote'), 12),
});

// A whole image most of the time, so that uploads reach the product: every other part of an upload may break it too.
const fileBytes: fc.Arbitrary<FileBytes> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({
      kind: fc.constant('image' as const),
      format: fc.constantFrom<ImageFormat>('png', 'gif', 'jpeg'),
      keep: sometimes(fc.nat(60), 10),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('png-size' as const),
      width: fc.constantFrom(0, 1, 65_535, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1),
      height: fc.constantFrom(0, 1, 2 ** 31, 2 ** 32 - 1),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('random' as const), bytes: fc.array(fc.nat(255), { maxLength: 64 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'empty' as const }) },
);

const filePart = (name: fc.Arbitrary<string>): fc.Arbitrary<PartChoice> =>
  fc.record({
    kind: fc.constant('file' as const),
    name,
    // Without a filename, busboy reads the part as a field.
    filename: fc.oneof(
      { weight: 6, arbitrary: fc.constant('photo.png') },
      { weight: 1, arbitrary: fc.constantFrom(null, '', '../../etc/passwd', 'é.jpg', 'a"b.png', 'x'.repeat(300)) },
    ),
    type: fc.constantFrom(null, 'image/png', 'image/jpeg', 'application/octet-stream', 'text/plain'),
    bytes: fileBytes,
  });

const altPart: fc.Arbitrary<PartChoice> = fc.record({
  kind: fc.constant('field' as const),
  name: fc.constant('alt'),
  value: fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        'A mug on a table',
        '',
        'x'.repeat(500),
        'é'.repeat(501),
        '\u0000',
        'a\u0000b',
        '\ud800',
        '<b>x</b>',
        '\r\n\r\n--',
      ),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  ),
});

const PART_NAMES = ['file', 'file', 'alt', 'image', 'File', 'files[]', ''];
const anyPart: fc.Arbitrary<PartChoice> = fc.oneof(
  filePart(fc.constantFrom(...PART_NAMES)),
  altPart,
  fc.record({ kind: fc.constant('field' as const), name: fc.constantFrom(...PART_NAMES), value: fc.string({ maxLength: 20 }) }),
);

/** An upload as a client sends it (one file, an alt now and then, in either order), or parts of any kind and number. */
const partsChoice: fc.Arbitrary<PartChoice[]> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(filePart(fc.constant('file')), sometimes(altPart, 2), fc.boolean())
      .map(([file, alt, altFirst]) => (alt === null ? [file] : altFirst ? [alt, file] : [file, alt])),
  },
  { weight: 2, arbitrary: fc.array(anyPart, { maxLength: 4 }) },
);

const multipartChoice: fc.Arbitrary<BodyChoice> = fc.record({
  kind: fc.constant('multipart' as const),
  // A browser's boundary mostly; now and then one at RFC 2046's edges: one character, its odd ones, 70 of them, and more.
  boundary: fc.oneof(
    { weight: 4, arbitrary: fc.constant('----fuzz7MA4YWxkTrZu0gW') },
    { weight: 1, arbitrary: fc.constantFrom('X', "'()+_,-./:=?", 'b'.repeat(70), 'b'.repeat(200)) },
  ),
  parts: partsChoice,
  cut: sometimes(fc.nat(), 10),
});

/** Bodies of their own for operations declaring a body other than JSON. */
const OWN_BODIES: Record<string, fc.Arbitrary<BodyChoice>> = { 'text/csv': csvChoice, 'multipart/form-data': multipartChoice };

/** A body in the operation's declared media type most of the time; JSON ones (and broken JSON) otherwise. */
function bodyChoice(operation: Operation): fc.Arbitrary<BodyChoice> {
  const own = operation.bodyType ? OWN_BODIES[operation.bodyType] : undefined;
  const json = jsonBodyChoice(operation);
  return own ? fc.oneof({ weight: 4, arbitrary: own }, { weight: 1, arbitrary: json }) : json;
}

/** Content types for operations declaring a body other than JSON: the declared type, and variants of it. */
const OWN_CONTENT_TYPES: Record<string, [string, ...string[]]> = {
  'text/csv': [
    'text/csv',
    'text/csv; charset=utf-8',
    'TEXT/CSV',
    'text/csv; charset=latin1',
    'text/csv;header=present',
    'application/csv',
    'text/comma-separated-values',
  ],
  'multipart/form-data': [
    'multipart/form-data; boundary={boundary}',
    'multipart/form-data; boundary="{boundary}"',
    'MULTIPART/FORM-DATA; BOUNDARY={boundary}',
    'multipart/form-data; charset=utf-8; boundary={boundary}',
    'multipart/form-data',
    'multipart/form-data; boundary=',
    'multipart/form-data; boundary=not-the-one',
    'multipart/mixed; boundary={boundary}',
  ],
};

/**
 * The declared content type most of the time, a variant of it now and then, or any other (or none). A body of its own
 * media type is sent as such more often than JSON is: it has a parser of its own to get past.
 */
function contentTypeChoice(operation: Operation): fc.Arbitrary<string | null> {
  const [declared, ...variants] = OWN_CONTENT_TYPES[operation.bodyType ?? ''] ?? ['application/json'];
  return fc.oneof(
    { weight: variants.length > 0 ? 12 : 8, arbitrary: fc.constant(declared) },
    { weight: variants.length > 0 ? 2 : 0, arbitrary: fc.constantFrom(declared, ...variants) },
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: variants.length > 0 ? 2 : 3, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
    { weight: 1, arbitrary: headerText() },
  );
}

const CONTENT_TYPES = [
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json; charset=latin1',
  'application/json;;',
  'application/vnd.api+json',
  'text/plain',
  'text/html',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/jsonp',
  'application/octet-stream',
  '',
  ';',
  'application/json, text/plain',
];
const OTHER_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * One request for one of `operations`; about one in twenty uses a method the path does not have. Operations with a body
 * of their own media type are drawn five times as often: their bodies have far more ways to be right and wrong.
 */
export function requestArbitrary(operations: Operation[]): fc.Arbitrary<FuzzRequest> {
  const indexes = operations.map((operation, i) => ({
    weight: operation.bodyType && OWN_BODIES[operation.bodyType] ? 5 : 1,
    arbitrary: fc.constant(i),
  }));
  return fc.oneof(...indexes).chain((index) => {
    const operation = operations[index]!;
    return fc.record({
      operation: fc.constant(index),
      otherMethod: sometimes(fc.constantFrom(...OTHER_METHODS.filter((m) => m !== operation.method)), 20),
      path: fc.tuple(...operation.pathParams.map(idChoice)),
      query: queryChoice(operation),
      auth: authChoice,
      workspace: workspaceChoice,
      body: bodyChoice(operation),
      contentType: contentTypeChoice(operation),
      accept: fc.constantFrom(null, 'application/json', 'text/html', '*/*', 'application/json;q=0'),
      contentLength: sometimes(fc.constantFrom('0', '1', '5', '100000000', '-1', 'abc'), 25),
      remoteAddress: fc.oneof({ weight: 3, arbitrary: fc.constant('127.0.0.1') }, { weight: 1, arbitrary: fc.ipV4() }),
    });
  });
}
