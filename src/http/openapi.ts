/** The OpenAPI 3.1 document: swagger configured once, and what every API route shares added to its schema. */
import swagger from '@fastify/swagger';
import { type Access, API_PREFIX, type App } from './access.js';
import { ErrorBody } from './schemas.js';

export async function registerOpenApi(app: App, appUrl: string): Promise<void> {
  app.addHook('onRoute', (route) => describeRoute(route as Parameters<typeof describeRoute>[0]));
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Storelink API', version: '1.0.0', description: 'Connect a workspace to e-commerce platforms over OAuth 2.0.' },
      servers: [{ url: appUrl }],
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
}

/** Adds what every route shares to its schema: the bearer scheme, the X-Workspace-Id header, and the error responses it can give. */
function describeRoute(route: { url: string; schema?: Record<string, unknown>; config?: { access?: Access } }) {
  // The sandbox simulators answer in the platforms' own shapes, not the API's.
  if (!route.url.startsWith(API_PREFIX)) return;
  const access = route.config?.access ?? 'public';
  const schema = (route.schema ??= {});
  const response = ((schema.response as Record<string, unknown> | undefined) ??= {});
  const errors = ['400', '404', '413', '415', '422', '429', '500', '503'];
  if (access !== 'public') {
    schema.security = [{ bearerAuth: [] }];
    errors.push('401', '403');
  }
  if (access === 'workspace') {
    schema.headers = {
      type: 'object',
      properties: {
        'x-workspace-id': {
          type: 'string',
          pattern: '^[1-9][0-9]*$',
          description: 'The id of a workspace the user belongs to (GET /workspaces lists them)',
        },
      },
      required: ['x-workspace-id'],
    };
  }
  for (const status of errors) response[status] ??= ErrorBody;
}
