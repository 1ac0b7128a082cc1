/** Turns the fuzz suite's abstract choices into an inject() request, with the fixtures' current tokens and ids. */
import { ATTRIBUTE_PREFIX } from '../../src/core/catalog/csv.js';
import { GIF_1X1, PNG_640X480, pngSized } from './fixtures.js';
import type {
  AuthChoice,
  BodyChoice,
  CsvCell,
  CsvRow,
  FileBytes,
  Fixtures,
  FuzzRequest,
  ImageFormat,
  Operation,
  PartChoice,
  TextChoice,
  Who,
  WorkspaceChoice,
} from './fuzz-requests.js';

/** Percent-encodes every UTF-8 byte outside the unreserved set; lone surrogates become U+FFFD, as a client's encoder would make them. */
function percentEncode(value: string): string {
  return [...Buffer.from(value, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9\-._~]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
}

/** Characters a raw (unencoded) URL may still carry without ending the path or starting a fragment; a stray `%` stays. */
function rawUrlText(value: string): string {
  return value.replace(/[\s#?\u0000-\u001f\u007f]/g, '');
}

function tokenOf(fixtures: Fixtures, name: Who): string {
  return name === 'state' ? (fixtures.states[0]?.state ?? 'no.state.yet') : fixtures.tokens[name];
}

function alter(token: string, part: number, at: number, char: string): string {
  const parts = token.split('.');
  const segment = parts[part % parts.length] ?? '';
  // The middle of a segment: every base64url character there carries six bits of the decoded bytes.
  const position = segment.length === 0 ? 0 : Math.min(segment.length - 2, Math.max(1, at % segment.length));
  const replacement = segment[position] === char ? (char === 'A' ? 'B' : 'A') : char;
  parts[part % parts.length] = segment.slice(0, position) + replacement + segment.slice(position + 1);
  return parts.join('.');
}

function authorizationOf(choice: AuthChoice, fixtures: Fixtures): string | string[] | undefined {
  switch (choice.kind) {
    case 'none':
      return undefined;
    case 'bearer':
      return `${choice.scheme}${choice.space}${tokenOf(fixtures, choice.who)}`;
    case 'tampered':
      return `Bearer ${alter(tokenOf(fixtures, choice.who), choice.part, choice.at, choice.char)}`;
    case 'truncated': {
      const token = tokenOf(fixtures, choice.who);
      return `Bearer ${token.slice(0, choice.keep % token.length)}`;
    }
    case 'forged':
      return `Bearer ${Buffer.from(choice.header).toString('base64url')}.${Buffer.from(choice.payload).toString('base64url')}.${choice.signature}`;
    case 'raw':
      return choice.value;
    case 'repeated':
      return [authorizationOf(choice.first, fixtures) ?? '', authorizationOf(choice.second, fixtures) ?? ''].flat();
  }
}

function workspaceOf(choice: WorkspaceChoice, fixtures: Fixtures): string | string[] | undefined {
  switch (choice.kind) {
    case 'none':
      return undefined;
    case 'fixture':
      return String(fixtures.workspaces[choice.name]);
    case 'raw':
      return choice.value;
    case 'repeated':
      return choice.values.map((value) => String(workspaceOf(value, fixtures) ?? ''));
  }
}

/** A state that cannot be consumed: at another track's callback, or no longer the signed text. */
function unusableState(choice: Extract<TextChoice, { kind: 'state' }>, fixtures: Fixtures, track: string): string {
  const pooled = fixtures.states[choice.index % Math.max(1, fixtures.states.length)];
  if (!pooled) return 'no.state.yet';
  if (choice.mode === 'tampered') return alter(pooled.state, 2, choice.index, 'Q');
  if (choice.mode === 'truncated') return pooled.state.slice(0, pooled.state.length - 1 - (choice.index % 20));
  const elsewhere = fixtures.states.find((s) => s.track !== track);
  return elsewhere ? elsewhere.state : alter(pooled.state, 1, choice.index, 'Q');
}

function textOf(choice: TextChoice, fixtures: Fixtures, track: string): string {
  switch (choice.kind) {
    case 'raw':
      return choice.encode ? percentEncode(choice.value) : rawUrlText(choice.value);
    case 'fixture':
      return String(fixtures.ids[choice.name]);
    case 'state':
      return percentEncode(unusableState(choice, fixtures, track));
    case 'token':
      return percentEncode(tokenOf(fixtures, choice.who));
  }
}

/** The valid cell of each CSV column, for the row at index `row` among the rows of product `product`. */
const VALID_CELLS: Record<string, (product: number, row: number) => string> = {
  handle: (product) => `fuzz-${product}`,
  title: (product) => `Fuzz import ${product}`,
  description: () => 'Made by the fuzz suite, "quoted", on\ntwo lines.',
  brand: () => 'Fuzz & Co',
  tags: () => 'fuzz, csv',
  currency: () => 'EUR',
  option1_name: () => 'Size',
  option1_value: (_, row) => `S${row}`,
  option2_name: () => 'Color',
  option2_value: () => 'Red',
  option3_name: () => 'Fit',
  option3_value: () => 'Slim',
  // Few skus in all, each always on the same product's rows: an accepted import mostly updates the products earlier
  // ones made, so the catalogue stays small.
  sku: (product, row) => `CSV-${product}-${row}`,
  price: (_, row) => `${10 + row}.50`,
  quantity: (_, row) => String(row),
  barcode: (_, row) => `012345678901${row}`,
  weight_grams: () => '250',
  length_mm: () => '300',
  width_mm: () => '200',
  height_mm: () => '20',
  image_urls: () => 'https://example.com/fuzz-a.jpg https://example.com/fuzz-b.jpg',
};

const validCell = (column: string, product: number, row: number) =>
  column.startsWith(ATTRIBUTE_PREFIX) ? 'cotton' : (VALID_CELLS[column]?.(product, row) ?? 'x');

function changedCell(cell: CsvCell, row: number, fixtures: Fixtures): string {
  if (cell === 'empty') return '';
  if ('text' in cell) return cell.text;
  const skus = fixtures.skus[cell.sku];
  return skus[row % skus.length]!;
}

/** A cell as CSV writes it: quoted when it holds a quote, a comma or a line break. */
const quoted = (text: string) => (/["\r\n,]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);

/** A data row; `index` is its place among the rows of its product. */
function csvLine(row: CsvRow, index: number, header: string[], fixtures: Fixtures): string {
  const width = Math.max(0, header.length + (row.ragged ?? 0));
  const cells = Array.from({ length: width }, (_, i) => validCell(header[i] ?? '', row.product, index));
  for (const [at, cell] of row.changes) if (width > 0) cells[at % width] = changedCell(cell, index, fixtures);
  return cells.map(quoted).join(',');
}

// What each way of breaking a CSV file adds at its end: a quoted cell never closed, a quote inside a bare cell.
const BROKEN_ENDS = { 'unclosed-quote': 'fuzz-0,"never closed', 'stray-quote': 'fuzz-0,a"b,1' };

function csvOf(body: Extract<BodyChoice, { kind: 'csv' }>, fixtures: Fixtures): string {
  const seen = new Map<number, number>();
  const rows = body.rows.map((row) => {
    const index = seen.get(row.product) ?? 0;
    seen.set(row.product, index + 1);
    return csvLine(row, index, body.header, fixtures);
  });
  const lines = [body.header.map(quoted).join(','), ...rows];
  if (body.broken) lines.push(BROKEN_ENDS[body.broken]);
  return (body.bom ? '\ufeff' : '') + lines.join(body.eol) + body.eol;
}

// An image of each accepted format: the suite's PNG and GIF, and the smallest JPEG, one pixel.
const IMAGES: Record<ImageFormat, Buffer> = {
  png: PNG_640X480,
  gif: GIF_1X1,
  jpeg: Buffer.from(
    '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=',
    'base64',
  ),
};

function bytesOf(file: FileBytes): Buffer {
  switch (file.kind) {
    case 'image':
      return file.keep === null ? IMAGES[file.format] : IMAGES[file.format].subarray(0, file.keep);
    case 'png-size':
      return pngSized(file.width, file.height);
    case 'random':
      return Buffer.from(file.bytes);
    case 'empty':
      return Buffer.alloc(0);
  }
}

function partOf(part: PartChoice, boundary: string): Buffer[] {
  const filename = part.kind === 'file' && part.filename !== null ? `; filename="${part.filename}"` : '';
  const type = part.kind === 'file' && part.type !== null ? `Content-Type: ${part.type}\r\n` : '';
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${filename}\r\n${type}\r\n`;
  const content = part.kind === 'file' ? bytesOf(part.bytes) : Buffer.from(part.value);
  return [Buffer.from(head), content, Buffer.from('\r\n')];
}

function multipartOf(body: Extract<BodyChoice, { kind: 'multipart' }>): Buffer {
  const payload = Buffer.concat([...body.parts.flatMap((part) => partOf(part, body.boundary)), Buffer.from(`--${body.boundary}--\r\n`)]);
  return body.cut === null ? payload : payload.subarray(0, body.cut % (payload.length + 1));
}

function payloadOf(body: BodyChoice, fixtures: Fixtures): string | Buffer | undefined {
  switch (body.kind) {
    case 'none':
      return undefined;
    case 'json':
      return JSON.stringify(body.value) ?? 'null';
    case 'literal': {
      const target = body.value !== null && typeof body.value === 'object' && !Array.isArray(body.value) ? body.value : {};
      const key = Object.keys(target)[0] ?? 'platform_id';
      return JSON.stringify({ ...target, [key]: '\u0001LITERAL\u0001' }).replace('"\\u0001LITERAL\\u0001"', body.literal);
    }
    case 'nested':
      if (body.shape === 'array') return '['.repeat(body.depth) + ']'.repeat(body.depth);
      if (body.shape === 'object') return '{"a":'.repeat(body.depth) + '1' + '}'.repeat(body.depth);
      return `{"email":${'['.repeat(body.depth)}${']'.repeat(body.depth)},"platform_id":${'{"a":'.repeat(body.depth)}1${'}'.repeat(body.depth)}}`;
    case 'text':
      return body.value;
    case 'huge':
      return JSON.stringify({ email: 'é'.repeat(body.size / 2), password: 'x', name: 'x', url: 'x', platform_id: 1 });
    case 'csv':
      return csvOf(body, fixtures);
    case 'multipart':
      return multipartOf(body);
  }
}

/** The boundary a multipart content type names: the body's own, or one no body has. */
const boundaryOf = (body: BodyChoice) => (body.kind === 'multipart' ? body.boundary : 'no-multipart-body');

/** The operation's track, for a callback path (`/oauth/callback/{track}`); '' elsewhere. */
function trackOf(operation: Operation): string {
  return operation.isCallback ? operation.template.split('/').pop()! : '';
}

/** The request as inject() takes it, made from the choices and the fixtures as they are now. */
export function materialize(request: FuzzRequest, operations: Operation[], fixtures: Fixtures) {
  const operation = operations[request.operation]!;
  const track = trackOf(operation);
  let index = 0;
  const path = operation.template.replace(/\{[^}]+\}/g, () => textOf(request.path[index++]!, fixtures, track));
  const query = request.query.map(([key, value]) => `${percentEncode(key)}=${textOf(value, fixtures, track)}`).join('&');
  const headers: Record<string, string | string[]> = {};
  const authorization = authorizationOf(request.auth, fixtures);
  if (authorization !== undefined) headers.authorization = authorization;
  const workspace = workspaceOf(request.workspace, fixtures);
  if (workspace !== undefined) headers['x-workspace-id'] = workspace;
  if (request.contentType !== null) headers['content-type'] = request.contentType.replaceAll('{boundary}', boundaryOf(request.body));
  if (request.accept !== null) headers.accept = request.accept;
  const payload = payloadOf(request.body, fixtures);
  if (request.contentLength !== null && payload !== undefined) headers['content-length'] = request.contentLength;
  return {
    method: (request.otherMethod ?? operation.method) as 'GET',
    url: query ? `${path}?${query}` : path,
    headers,
    remoteAddress: request.remoteAddress,
    ...(payload !== undefined ? { payload } : {}),
  };
}
