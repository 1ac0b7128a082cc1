/** Turns the fuzz suite's abstract choices into an inject() request, with the fixtures' current tokens and ids. */
import type { AuthChoice, BodyChoice, Fixtures, FuzzRequest, Operation, TextChoice, Who, WorkspaceChoice } from './fuzz-requests.js';

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

function payloadOf(body: BodyChoice): string | undefined {
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
  }
}

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
  if (request.contentType !== null) headers['content-type'] = request.contentType;
  if (request.accept !== null) headers.accept = request.accept;
  const payload = payloadOf(request.body);
  if (request.contentLength !== null && payload !== undefined) headers['content-length'] = request.contentLength;
  return {
    method: (request.otherMethod ?? operation.method) as 'GET',
    url: query ? `${path}?${query}` : path,
    headers,
    remoteAddress: request.remoteAddress,
    ...(payload !== undefined ? { payload } : {}),
  };
}
