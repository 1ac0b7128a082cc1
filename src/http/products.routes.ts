/** GET /products: the workspace's products, paginated (DESIGN §3). */
import Type from 'typebox';
import type { Product } from '../core/catalog/products.service.js';
import type { Deps } from '../deps.js';
import { type App, workspaceOf } from './access.js';
import { Id, iso, OkPage, okPage, PageQuery, pageOf, Timestamp } from './schemas.js';

const ProductSchema = Type.Object({
  id: Id,
  title: Type.String(),
  description: Type.String(),
  price: Type.String({
    description: 'Decimal amount with two places, as text so no precision is lost ("19.99")',
    pattern: '^-?[0-9]+\\.[0-9]{2}$',
  }),
  currency: Type.String({ description: 'ISO 4217 code' }),
  sku: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
});

function present(row: Product) {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    price: row.price,
    currency: row.currency,
    sku: row.sku,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

export function registerProductRoutes(app: App, deps: Deps) {
  app.get(
    '/products',
    {
      config: { access: 'workspace' },
      schema: { summary: "The workspace's products", tags: ['products'], querystring: PageQuery, response: { 200: OkPage(ProductSchema) } },
    },
    async (request) => {
      const { rows, total } = await deps.products.list(workspaceOf(request).id, pageOf(request.query));
      return okPage(rows.map(present), total, request.query);
    },
  );
}
