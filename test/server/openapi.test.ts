import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import { Ajv } from 'ajv';
import { API, call, createTestApp, registerUser, type TestApp } from '../helpers/test-app.js';

const addFormats = createRequire(import.meta.url)('ajv-formats') as (ajv: Ajv) => Ajv;

type Schema = Record<string, any>;
interface Operation {
  operationId?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: { in: string; name: string; required?: boolean; schema?: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema; example?: unknown }> };
  responses: Record<string, { description: string; headers?: Record<string, unknown>; content?: Record<string, { schema: Schema }> }>;
}

/** Every subschema of `node` that is an object, with where it is. */
function* objectsIn(node: unknown, at = '#'): Generator<[string, Schema]> {
  if (node === null || typeof node !== 'object') return;
  if (!Array.isArray(node)) yield [at, node as Schema];
  for (const [key, value] of Object.entries(node)) yield* objectsIn(value, `${at}/${key}`);
}

describe('the OpenAPI document', () => {
  let t: TestApp;
  let doc: any;
  let operations: { where: string; op: Operation }[];
  before(async () => {
    t = await createTestApp('pglite');
    doc = (await call(t, 'GET', '/openapi.json')).json();
    operations = Object.entries<Record<string, Operation>>(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ where: `${method.toUpperCase()} ${path}`, op })),
    );
  });
  after(() => t.close());

  const byId = (operationId: string) => {
    const found = operations.find(({ op }) => op.operationId === operationId);
    assert.ok(found, `operation ${operationId}`);
    return found.op;
  };

  test('every operation has an operationId (add a new route to OPERATION_IDS in src/http/openapi-operations.ts)', () => {
    const missing = operations.filter(({ op }) => !op.operationId).map(({ where }) => where);
    assert.deepEqual(missing, []);
  });

  test('no two operations share an operationId', () => {
    const ids = operations.map(({ op }) => op.operationId);
    assert.deepEqual(
      ids.filter((id, i) => ids.indexOf(id) !== i),
      [],
    );
  });

  test('the error shape is written once, under components.schemas.Error, and every error response refers to it', () => {
    const inline = [...objectsIn(doc.paths)].filter(([, node]) => node.properties?.success?.enum?.[0] === false).map(([at]) => at);
    assert.deepEqual(inline, []);
    for (const { where, op } of operations)
      for (const [status, response] of Object.entries(op.responses))
        if (/^[45]/.test(status))
          assert.deepEqual(response.content?.['application/json']?.schema, { $ref: '#/components/schemas/Error' }, `${where} ${status}`);
  });

  test('the shared records are components, referenced where a response holds them', () => {
    for (const name of ['Site', 'Product', 'Listing', 'Workspace', 'WebhookEndpoint', 'PersonalAccessToken', 'User'])
      assert.ok(doc.components.schemas[name], `components.schemas.${name}`);
    const data = (operationId: string) => byId(operationId).responses['200']!.content!['application/json']!.schema.properties.data;
    assert.deepEqual(data('getSite'), { $ref: '#/components/schemas/Site' });
    assert.deepEqual(data('getProduct'), { $ref: '#/components/schemas/Product' });
    assert.deepEqual(data('getListing'), { $ref: '#/components/schemas/Listing' });
    assert.deepEqual(data('listWorkspaces').items, { $ref: '#/components/schemas/Workspace' });
    assert.deepEqual(data('listWebhooks').items, { $ref: '#/components/schemas/WebhookEndpoint' });
  });

  test('page and per_page are optional on every list, with their defaults', () => {
    const lists = operations.filter(({ op }) => op.parameters?.some((p) => p.in === 'query' && p.name === 'page'));
    assert.ok(lists.length >= 7, `${lists.length} paginated lists`);
    for (const { where, op } of lists) {
      const page = op.parameters!.find((p) => p.in === 'query' && p.name === 'page')!;
      const perPage = op.parameters!.find((p) => p.in === 'query' && p.name === 'per_page')!;
      assert.deepEqual([page.required, page.schema?.default], [false, 1], `${where} page`);
      assert.deepEqual([perPage.required, perPage.schema?.default, perPage.schema?.maximum], [false, 25, 100], `${where} per_page`);
    }
  });

  test('a list asked without page or per_page gets the first 25', async () => {
    const { session, workspace } = await registerUser(t);
    const response = await call(t, 'GET', '/sites', { token: session, workspace: workspace.id });
    assert.deepEqual(response.json(), { success: true, data: [], meta: { page: 1, per_page: 25, total: 0 } });
  });

  test('every operation is tagged with a tag the document describes', () => {
    const tags = new Map<string, string>(doc.tags.map((tag: { name: string; description: string }) => [tag.name, tag.description]));
    for (const [name, description] of tags) assert.ok(description, `tag ${name} has a description`);
    for (const { where, op } of operations) {
      assert.ok(op.tags?.length, `${where} is tagged`);
      for (const tag of op.tags!)
        assert.ok(tags.has(tag), `${where}: tag ${tag} is in the document's tags (src/http/openapi-operations.ts)`);
    }
  });

  test('public operations say `security: []`, the others the bearer scheme', () => {
    assert.deepEqual(byId('login').security, []);
    assert.deepEqual(byId('getHealth').security, []);
    assert.deepEqual(byId('completeEtsyAuthorization').security, []);
    assert.deepEqual(byId('listSites').security, [{ bearerAuth: [] }]);
    for (const { where, op } of operations) assert.ok(Array.isArray(op.security), `${where} states its security`);
  });

  test("a workspace's operations, the uploads with their multipart bodies included, require X-Workspace-Id; the others do not ask for it", () => {
    const workspaceHeader = (operationId: string) =>
      byId(operationId).parameters?.find((parameter) => parameter.in === 'header' && parameter.name === 'x-workspace-id');
    for (const operationId of ['getCurrentUser', 'listProducts', 'uploadProductImage', 'uploadFile', 'importProducts']) {
      const header = workspaceHeader(operationId);
      assert.equal(header?.required, true, operationId);
      assert.equal(header?.schema?.pattern, '^[1-9][0-9]*$', operationId);
    }
    for (const operationId of ['listWorkspaces', 'updateCurrentUser', 'login'])
      assert.equal(workspaceHeader(operationId), undefined, operationId);
  });

  test('every response has a description of its own, none "Default Response"', () => {
    for (const { where, op } of operations)
      for (const [status, response] of Object.entries(op.responses))
        assert.ok(response.description && response.description !== 'Default Response', `${where} ${status}: ${response.description}`);
  });

  test("redirect_url's limit is the server's: 2,048 characters", () => {
    const body = byId('authenticateSite').requestBody!.content['application/json']!.schema;
    assert.equal(body.properties.redirect_url.maxLength, 2048);
  });

  test("each callback documents the query parameters its platform sends, and the redirect's Location", () => {
    const expected: Record<string, string[]> = {
      completeEtsyAuthorization: ['code', 'state', 'error', 'error_description'],
      completeTiktokShopAuthorization: ['code', 'state', 'error', 'error_description'],
      completeAmazonSellerAuthorization: ['spapi_oauth_code', 'selling_partner_id', 'state', 'error', 'error_description'],
      completeAmazonAdsAuthorization: ['code', 'scope', 'state', 'error', 'error_description'],
    };
    for (const [operationId, names] of Object.entries(expected)) {
      const op = byId(operationId);
      const query = op.parameters!.filter((p) => p.in === 'query');
      assert.deepEqual(query.map((p) => p.name).sort(), [...names].sort(), operationId);
      assert.ok(
        query.every((p) => p.required === false),
        `${operationId}: none required`,
      );
      assert.ok(op.responses['302']?.headers?.location, `${operationId}: 302 Location`);
    }
  });

  test('the main request bodies have an example, and every example is valid against its schema', () => {
    const main = [
      'register',
      'login',
      'createPersonalAccessToken',
      'authenticateSite',
      'createProduct',
      'updateProduct',
      'publishListing',
      'updateListing',
      'replaceListingSettings',
      'createWebhook',
    ];
    for (const operationId of main)
      assert.ok(byId(operationId).requestBody?.content['application/json']?.example !== undefined, `${operationId} has an example`);
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    for (const { where, op } of operations) {
      const media = op.requestBody?.content['application/json'];
      if (media?.example === undefined) continue;
      const validate = ajv.compile(media.schema);
      assert.ok(validate(media.example), `${where}: ${ajv.errorsText(validate.errors)}`);
    }
  });
});

describe('the API reference at /api/v1/docs', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp('pglite')));
  after(() => t.close());

  test('is an HTML page whose scripts and styles all load from the server itself', async () => {
    const page = await t.app.inject({ method: 'GET', url: `${API}/docs` });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    const assets = [...page.body.matchAll(/<(?:script|link)\b[^>]*?\b(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    assert.ok(assets.filter((url) => url.endsWith('.js')).length >= 2, `scripts: ${assets.join(', ')}`);
    assert.ok(
      assets.some((url) => url.endsWith('.css')),
      `styles: ${assets.join(', ')}`,
    );
    for (const url of assets) {
      assert.ok(url.startsWith(`${API}/docs/`), `${url} is served here`);
      const asset = await t.app.inject({ method: 'GET', url });
      assert.equal(asset.statusCode, 200, url);
    }
  });

  test('the page reads the same document as /api/v1/openapi.json', async () => {
    const [served, document] = await Promise.all([
      t.app.inject({ method: 'GET', url: `${API}/docs/json` }),
      t.app.inject({ method: 'GET', url: `${API}/openapi.json` }),
    ]);
    assert.equal(served.statusCode, 200);
    assert.deepEqual(served.json(), document.json());
  });

  test("the page's script names no other host (no CDN, no online validator)", async () => {
    const initializer = await t.app.inject({ method: 'GET', url: `${API}/docs/static/swagger-initializer.js` });
    assert.equal(initializer.statusCode, 200);
    const code = initializer.body.replaceAll(/^\s*\/\/.*$/gm, '');
    assert.doesNotMatch(code, /https?:\/\//);
    assert.match(initializer.body, /validatorUrl: null/);
  });

  test("the site's Content-Security-Policy applies to the page and lets its own scripts and styles run", async () => {
    const page = await t.app.inject({ method: 'GET', url: `${API}/docs` });
    const csp = String(page.headers['content-security-policy']);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /style-src 'self'/);
  });
});
