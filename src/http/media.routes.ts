/**
 * GET /media/<sha256>.<extension>: uploaded images, public (platforms and storefronts fetch them without a token).
 * A name is its content's hash, so an answer never changes: cached for a year, revalidated by its ETag.
 */

import Type from 'typebox';
import { parseMediaName } from '../core/catalog/images.js';
import { AppError } from '../errors.js';
import type { App } from './access.js';

/** The services the routes use. */
export interface MediaRoutesServices {
  readonly media: {
    find(sha256: string): Promise<{ sha256: string; extension: string; contentType: string; bytes: Buffer } | null>;
  };
}

export function registerMediaRoutes(app: App, deps: MediaRoutesServices): void {
  app.get(
    '/media/:name',
    { schema: { hide: true, params: Type.Object({ name: Type.String({ maxLength: 80 }) }) } },
    async (request, reply) => {
      const name = parseMediaName(request.params.name);
      const stored = name ? await deps.media.find(name.sha256) : null;
      if (!stored || stored.extension !== name?.extension) throw new AppError('not_found');
      const etag = `"${stored.sha256}"`;
      reply
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('etag', etag)
        // Served to other sites too (a storefront, a platform's page): not same-origin only, as helmet's default says.
        .header('cross-origin-resource-policy', 'cross-origin');
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      return reply.type(stored.contentType).send(stored.bytes);
    },
  );
}
