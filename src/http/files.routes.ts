/**
 * POST /files: a file a listing names (a TikTok Shop certificate), uploaded once and named by its content's hash. It
 * belongs to no product: the listing's attribute gives its name (`certification:<id>`, docs/listings.md).
 */

import multipart from '@fastify/multipart';
import type { SwaggerTransform } from '@fastify/swagger';
import Type from 'typebox';
import type { FilesService } from '../core/catalog/files.js';
import { PDF_BYTES_MAX } from '../domain/index.js';
import type { App } from './access.js';
import { Named, Ok, ok } from './schemas.js';
import { readUpload } from './uploads.js';

/** The services the routes use. */
export interface FilesRoutesServices {
  readonly files: Pick<FilesService, 'upload'>;
}

const FileSchema = Named('StoredFile', {
  name: Type.String({
    description: 'What a listing attribute of type `file` gives: `<sha256>.<extension>`',
    examples: ['9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08.pdf'],
  }),
  url: Type.String({ description: 'Where it is served, without authentication: `{app_url}/media/<name>`' }),
  content_type: Type.String({ examples: ['application/pdf'] }),
  size_bytes: Type.Integer(),
});

const DESCRIBED =
  'A PDF (recognised by its `%PDF-` header) of at most 20 MB, or a JPEG, PNG, WebP or GIF image of at most 10 MB, 10,000 px a side and 50 megapixels';

/** The body for the OpenAPI document only: declared as the route's `body`, Fastify would validate the stream against it. */
const documented: SwaggerTransform = ({ schema, url }) => ({
  schema: { ...schema, body: Type.Object({ file: Type.String({ format: 'binary', description: DESCRIBED }) }) },
  url,
});

export function registerFileRoutes(app: App, { files }: FilesRoutesServices): void {
  // Multipart bodies are taken by the uploads alone: every other route of the API stays JSON only.
  app.register(async (uploads: App) => {
    await uploads.register(multipart, { limits: { fileSize: PDF_BYTES_MAX, files: 1, fields: 1, parts: 2 } });
    uploads.post(
      '/files',
      {
        config: { access: 'workspace', swaggerTransform: documented },
        schema: {
          summary: 'Upload a file a listing names, such as a certificate (multipart: a part named file, a PDF or an image)',
          description: `${DESCRIBED}. The file is recognised by its bytes, stored once by its SHA-256 and served without authentication at its \`url\`. A listing attribute of type \`file\` (TikTok Shop's \`certification:<id>\`) gives its \`name\`. A refused file is a 422 on \`file\`, and nothing is stored.`,
          tags: ['products'],
          consumes: ['multipart/form-data'],
          response: { 201: Ok(FileSchema) },
        },
      },
      async (request, reply) => {
        const { bytes } = await readUpload(request, { noun: 'file', bytesMax: PDF_BYTES_MAX });
        return reply.code(201).send(ok(await files.upload(bytes)));
      },
    );
  });
}
