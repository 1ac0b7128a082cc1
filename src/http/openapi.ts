/**
 * The OpenAPI 3.1 document: swagger configured once, what every API route shares added to its schema, and the
 * reference browsed at /api/v1/docs (Swagger UI, served from the package itself: no asset comes from elsewhere).
 */
import swagger, { type SwaggerTransform } from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { type Access, API_PREFIX, type App } from './access.js';
import { DOCS_FAVICON, DOCS_SCRIPT, DOCS_STYLE } from './docs-theme.js';
import { BODY_EXAMPLES, CALLBACK_PARAMETERS, OPERATION_IDS, TAGS } from './openapi-operations.js';
import { ErrorBody } from './schemas.js';

export const DOCS_PATH = `${API_PREFIX}/docs`;

/** The error shape, once, as `#/components/schemas/Error`; each error response refers to it. */
const ERROR_SCHEMA_ID = 'Error';
const errorRef = (description: string) => ({ $ref: `${ERROR_SCHEMA_ID}#`, description });

/** What each error status means, said once for every operation that can answer it (DESIGN §2). */
const ERROR_DESCRIPTIONS: Record<string, string> = {
  400: 'Bad request: the body is not valid JSON, or a callback state is invalid or expired',
  401: 'Unauthenticated: no bearer token, or one that is invalid, expired or revoked',
  403: 'Invalid workspace or access denied: the X-Workspace-Id is missing or not yours, or the token may not do this',
  404: 'Not found (also a resource of another workspace)',
  413: 'Payload too large',
  415: 'Unsupported media type: send application/json',
  422: 'The given data was invalid: `errors` has the messages of each field',
  429: 'Too many requests: Retry-After says in how many seconds to try again',
  500: 'Server error',
  503: 'Service unavailable: the database or another dependency is down; Retry-After says when to try again',
};

const SUCCESS_DESCRIPTIONS: Record<string, string> = {
  200: 'Success',
  201: 'Created',
  202: 'Accepted: the work goes on in the background; the record says where it stands',
  204: 'Done; no content',
  302: 'A redirect: Location says where',
};

export async function registerOpenApi(app: App, appUrl: string): Promise<void> {
  app.addSchema({ ...ErrorBody, $id: ERROR_SCHEMA_ID });
  app.addHook('onRoute', (route) => describeRoute(route as RouteOptions));
  await app.register(swagger, {
    // Shared schemas (and records with an `$id`) land in components.schemas under their own name, not `def-N`.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    transform: ({ schema, url, route }) => ({ schema: documentOnly(schema as RouteSchema, url, route.config?.access ?? 'public'), url }),
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Storelink API',
        version: '1.0.0',
        description:
          'Connect a workspace to e-commerce platforms over OAuth 2.0, keep a catalogue and list it on the connected sites. ' +
          'Send `Authorization: Bearer <token>` (a dashboard session or a personal access token) and, on workspace routes, ' +
          '`X-Workspace-Id`. Every error is `{success: false, code, message}`.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: appUrl }],
      tags: [...TAGS],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description: 'A dashboard session token or a personal access token',
          },
        },
      },
    },
  });
  // The reference page and its assets come from the package (no CDN), and the page's script is a file of its own, so
  // the site-wide Content-Security-Policy (src/http/security-headers.ts) needs no exception for it.
  // Swagger UI's BaseLayout, without its top bar (Fastify's logo, an unlabelled URL box); no deep links, whose anchors
  // sit inside each operation's button, one control in another (axe: nested-interactive). The theme gives the page
  // Storelink's header, landmarks, names and contrast (docs-theme.ts).
  await app.register(swaggerUi, {
    routePrefix: DOCS_PATH,
    uiConfig: { layout: 'BaseLayout', deepLinking: false, displayOperationId: true, defaultModelsExpandDepth: 0 },
    theme: {
      title: 'Storelink API reference',
      css: [{ filename: 'storelink.css', content: DOCS_STYLE }],
      js: [{ filename: 'storelink.js', content: DOCS_SCRIPT }],
      favicon: [{ filename: 'storelink.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: DOCS_FAVICON }],
    },
  });
}

type RouteSchema = Record<string, unknown> & { response?: Record<string, unknown>; body?: Record<string, unknown> };
type RouteOptions = {
  method: string | string[];
  url: string;
  schema?: RouteSchema;
  config?: { access?: Access; swaggerTransform?: SwaggerTransform | false };
};

/** `GET /sites/{site_id}` for `GET /api/v1/sites/:site_id`: how OPERATION_IDS names a route. */
export function operationKey(method: string, url: string): string {
  return `${method} ${url.slice(API_PREFIX.length).replaceAll(/:([A-Za-z0-9_]+)/g, '{$1}')}`;
}

/**
 * Adds what every API route shares to its schema: its operationId, the bearer scheme (`security: []` on a public
 * one), and the error responses it can give, each a reference to the one error schema. The X-Workspace-Id header is
 * the document's only (documentOnly).
 */
function describeRoute(route: RouteOptions) {
  // The sandbox simulators answer in the platforms' own shapes, not the API's. HEAD routes share their GET's schema.
  const method = [route.method].flat()[0]!;
  if (!route.url.startsWith(API_PREFIX) || method === 'HEAD' || route.schema?.hide) return;
  const access = route.config?.access ?? 'public';
  // A route's own transform (an upload's multipart body) replaces the global one: what the global one adds is added to
  // what the route's gives.
  const own = route.config?.swaggerTransform;
  if (own)
    route.config!.swaggerTransform = (options) => {
      const given = own(options);
      return { ...given, schema: documentOnly(given.schema as RouteSchema, given.url, access) };
    };
  const schema = (route.schema ??= {});
  const operationId = OPERATION_IDS[operationKey(method, route.url)];
  if (operationId) schema.operationId = operationId;
  const response = (schema.response ??= {});
  const errors = ['400', '404', '413', '415', '422', '429', '500', '503'];
  schema.security = access === 'public' ? [] : [{ bearerAuth: [] }];
  if (access !== 'public') errors.push('401', '403');
  for (const [status, given] of Object.entries(response)) {
    if (given === ErrorBody) response[status] = errorRef(ERROR_DESCRIPTIONS[status] ?? 'An error');
    else if (SUCCESS_DESCRIPTIONS[status] && !(given as { description?: string }).description)
      response[status] = { ...(given as object), description: SUCCESS_DESCRIPTIONS[status] };
  }
  for (const status of errors) response[status] ??= errorRef(ERROR_DESCRIPTIONS[status]!);
}

/**
 * The X-Workspace-Id header of a workspace's route. The authentication hook checks it before anything else of the
 * request (a missing or malformed one is 403, DESIGN §12), so validating it again would only cost each request.
 */
const WORKSPACE_HEADER = {
  type: 'object',
  properties: {
    'x-workspace-id': {
      type: 'string',
      pattern: '^[1-9][0-9]*$',
      description: 'The id of a workspace the user belongs to (GET /workspaces lists them)',
    },
  },
  required: ['x-workspace-id'],
} as const;

/**
 * What the document says that the server does not check (swagger's transform, so validation is untouched): the
 * X-Workspace-Id header, which the authentication checks first, a body example where the schema has none, and the
 * query parameters and the Location of a platform's callback, which the adapters read leniently
 * (src/platforms/<track>/responses.ts).
 */
function documentOnly(schema: RouteSchema, url: string, access: Access): RouteSchema {
  const example = BODY_EXAMPLES[String(schema.operationId)];
  const callback = Object.entries(CALLBACK_PARAMETERS).find(([track]) => url === `${API_PREFIX}/oauth/callback/${track}`);
  const workspace = access === 'workspace' && url.startsWith(API_PREFIX);
  if (example === undefined && !callback && !workspace) return schema;
  const documented = { ...schema };
  if (workspace) documented.headers = WORKSPACE_HEADER;
  if (example !== undefined && schema.body && !schema.body.examples) documented.body = { ...schema.body, examples: [example] };
  if (callback) {
    const [, parameters] = callback;
    documented.querystring = {
      type: 'object',
      properties: Object.fromEntries(parameters.map(({ name, description }) => [name, { type: 'string', description }])),
    };
    const response = schema.response ?? {};
    documented.response = {
      ...response,
      302: {
        type: 'null',
        description:
          "Back to the caller: the redirect_url (with the seed's query parameters on success or failure), else the site's " +
          'listings page or the dashboard of {app_url}',
        headers: { location: { type: 'string', format: 'uri', description: 'Where the user is sent' } },
      },
    };
  }
  return documented;
}
