/**
 * The catalogue (DESIGN §9): list with search, create, read, change, delete. Bodies are checked by their schema and by
 * the catalogue's rules together, so a refused request names every problem at once and changes nothing.
 */

import { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import type { SwaggerTransform } from '@fastify/swagger';
import type { FastifyRequest } from 'fastify';
import Type from 'typebox';
import type { CatalogueCsvService } from '../core/catalog/catalogue-csv.service.js';
import { CSV_COLUMNS, CSV_IMPORT_BYTES_MAX } from '../core/catalog/csv.js';
import { presentProduct } from '../core/catalog/present.js';
import type { ProductsService } from '../core/catalog/products.service.js';
import type { BulkEdit } from '../core/listings/bulk-edit.js';
import {
  ATTRIBUTE_KEY_LENGTH_MAX,
  ATTRIBUTE_VALUE_LENGTH_MAX,
  ATTRIBUTES_MAX,
  BARCODE_LENGTH_MAX,
  HANDLE_LENGTH_MAX,
  HANDLE_PATTERN,
  IMAGE_ALT_LENGTH_MAX,
  IMAGE_BYTES_MAX,
  IMAGE_URL_LENGTH_MAX,
  OPTION_NAME_LENGTH_MAX,
  OPTION_VALUE_LENGTH_MAX,
  OPTION_VALUES_MAX,
  PACKAGE_LENGTH_MM_MAX,
  PACKAGE_WEIGHT_GRAMS_MAX,
  PRICE_PATTERN,
  PRODUCT_DESCRIPTION_MAX,
  PRODUCT_IMAGES_MAX,
  PRODUCT_OPTIONS_MAX,
  PRODUCT_TAG_LENGTH_MAX,
  PRODUCT_TAGS_MAX,
  PRODUCT_TITLE_MAX,
  PRODUCT_VARIANTS_MAX,
  type ProductInput,
  QUANTITY_MAX,
  SITE_PLATFORMS,
  SKU_PATTERN,
} from '../domain/index.js';
import { AppError, type FieldErrors } from '../errors.js';
import { type App, actorOf, workspaceOf } from './access.js';
import { Dictionary, Id, Named, Ok, OkPage, OneOf, ok, PageQuery, pageOf, sendOkPageJson, Timestamp } from './schemas.js';
import { CLOSE, readUpload } from './uploads.js';
import { toFieldErrors, validatorCompiler } from './validation.js';

const NotBlank = (maxLength: number, description?: string) =>
  Type.String({ minLength: 1, maxLength, pattern: '\\S', ...(description ? { description } : {}) });
const Price = Type.String({
  pattern: PRICE_PATTERN.source,
  description: 'A decimal amount with at most two decimals, above 0 and below 1,000,000, as text so no precision is lost',
  examples: ['19.99'],
});
const Sku = Type.String({
  pattern: SKU_PATTERN.source,
  description: "1 to 64 of A-Z a-z 0-9 . _ -, unique among the workspace's variants",
});
const Quantity = Type.Integer({ minimum: 0, maximum: QUANTITY_MAX });
const Barcode = Type.Union([
  Type.String({ pattern: `^[0-9A-Za-z-]{1,${BARCODE_LENGTH_MAX}}$`, description: 'GTIN, UPC, EAN, ISBN or JAN' }),
  Type.Null(),
]);
const OptionValues = Dictionary(Type.String(), Type.String(), {
  description: 'The variant\'s value of every option, by option name ({"Color": "Red", "Size": "M"}); empty without options',
});
const Option = Type.Object(
  {
    name: NotBlank(OPTION_NAME_LENGTH_MAX),
    values: Type.Array(NotBlank(OPTION_VALUE_LENGTH_MAX), { minItems: 1, maxItems: OPTION_VALUES_MAX }),
  },
  { additionalProperties: false },
);
const Package = Type.Union([
  Type.Object(
    {
      weight_grams: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: PACKAGE_WEIGHT_GRAMS_MAX }), Type.Null()])),
      length_mm: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: PACKAGE_LENGTH_MM_MAX }), Type.Null()])),
      width_mm: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: PACKAGE_LENGTH_MM_MAX }), Type.Null()])),
      height_mm: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: PACKAGE_LENGTH_MM_MAX }), Type.Null()])),
    },
    {
      additionalProperties: false,
      description: 'Each measure may be null or left out (a weight alone is a package); none given is no package (null)',
    },
  ),
  Type.Null(),
]);
const Tags = Type.Array(NotBlank(PRODUCT_TAG_LENGTH_MAX), { maxItems: PRODUCT_TAGS_MAX });
const Attributes = Dictionary(
  Type.String({ minLength: 1, maxLength: ATTRIBUTE_KEY_LENGTH_MAX }),
  Type.String({ maxLength: ATTRIBUTE_VALUE_LENGTH_MAX }),
  {
    maxProperties: ATTRIBUTES_MAX,
    description: 'Neutral facts about the product, such as {"material": "cotton"}',
  },
);
const ImageUrl = Type.String({
  maxLength: IMAGE_URL_LENGTH_MAX,
  pattern: '^https?://[^\\s/?#]+[^\\s]*$',
  description: 'A public http or https URL',
});
const Alt = Type.Union([Type.String({ maxLength: IMAGE_ALT_LENGTH_MAX }), Type.Null()]);

const VariantBody = Type.Object(
  {
    id: Type.Optional(Id),
    sku: Sku,
    option_values: Type.Optional(OptionValues),
    price: Price,
    quantity: Quantity,
    barcode: Type.Optional(Barcode),
  },
  { additionalProperties: false, description: 'With `id`: that variant, kept; without: a new variant' },
);
const ImageBody = Type.Object(
  { id: Type.Optional(Id), url: Type.Optional(ImageUrl), alt: Type.Optional(Alt) },
  { additionalProperties: false, description: 'With `id`: that image, kept (its url may be left out); without: a new image by `url`' },
);

const productFields = {
  title: NotBlank(PRODUCT_TITLE_MAX),
  handle: Type.String({
    pattern: HANDLE_PATTERN.source,
    maxLength: HANDLE_LENGTH_MAX,
    description:
      "The product's key in CSV files: unique in the workspace, lowercase letters, digits and hyphens; made from the title when not given",
    examples: ['linen-tote-bag'],
  }),
  description: Type.String({ maxLength: PRODUCT_DESCRIPTION_MAX, description: 'Plain text' }),
  brand: Type.Union([NotBlank(100), Type.Null()]),
  tags: Tags,
  attributes: Attributes,
  currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code, one per product', examples: ['USD'] }),
  options: Type.Array(Option, { maxItems: PRODUCT_OPTIONS_MAX }),
  variants: Type.Array(VariantBody, { minItems: 1, maxItems: PRODUCT_VARIANTS_MAX }),
  images: Type.Array(ImageBody, { maxItems: PRODUCT_IMAGES_MAX }),
  package: Package,
};

const CreateBody = Type.Object(
  {
    ...productFields,
    handle: Type.Optional(productFields.handle),
    description: Type.Optional(productFields.description),
    brand: Type.Optional(productFields.brand),
    tags: Type.Optional(productFields.tags),
    attributes: Type.Optional(productFields.attributes),
    options: Type.Optional(productFields.options),
    images: Type.Optional(productFields.images),
    package: Type.Optional(productFields.package),
  },
  {
    additionalProperties: false,
    examples: [
      {
        title: 'Linen tote bag',
        description: 'Hand-stitched, natural linen.',
        currency: 'USD',
        tags: ['tote', 'linen'],
        options: [{ name: 'Color', values: ['Natural', 'Black'] }],
        variants: [
          { sku: 'TOTE-NAT', option_values: { Color: 'Natural' }, price: '24.00', quantity: 12 },
          { sku: 'TOTE-BLK', option_values: { Color: 'Black' }, price: '26.00', quantity: 5, barcode: '0123456789012' },
        ],
        images: [{ url: 'https://example.com/tote.jpg', alt: 'The natural tote' }],
        package: { weight_grams: 250, length_mm: 400, width_mm: 300, height_mm: 20 },
      },
    ],
  },
);

const ChangeBody = Type.Partial(Type.Object(productFields), {
  additionalProperties: false,
  description: '`options`, `variants` and `images` replace the whole list when given',
  examples: [{ variants: [{ id: 1, sku: 'TOTE-NAT', option_values: { Color: 'Natural' }, price: '22.00', quantity: 10 }] }],
});

const ImageSchema = Named('ProductImage', {
  id: Id,
  url: Type.String(),
  position: Type.Integer(),
  alt: Type.Union([Type.String(), Type.Null()]),
  uploaded: Type.Boolean({
    description: 'Whether Storelink holds its file (uploaded); false for one given by URL, which Etsy and TikTok Shop do not take',
  }),
});

const ProductSchema = Named('Product', {
  id: Id,
  title: Type.String(),
  handle: Type.String({ description: "The product's key in CSV files, unique in the workspace" }),
  description: Type.String(),
  brand: Type.Union([Type.String(), Type.Null()]),
  tags: Type.Array(Type.String()),
  attributes: Dictionary(Type.String(), Type.String()),
  currency: Type.String(),
  options: Type.Array(Type.Object({ name: Type.String(), values: Type.Array(Type.String()) })),
  variants: Type.Array(
    Type.Object({
      id: Id,
      sku: Type.String(),
      option_values: Dictionary(Type.String(), Type.String()),
      price: Type.String({ description: 'Two decimals ("19.90")' }),
      quantity: Type.Integer(),
      barcode: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
  images: Type.Array(ImageSchema),
  package: Type.Union(
    [
      Type.Object({
        weight_grams: Type.Union([Type.Integer(), Type.Null()]),
        length_mm: Type.Union([Type.Integer(), Type.Null()]),
        width_mm: Type.Union([Type.Integer(), Type.Null()]),
        height_mm: Type.Union([Type.Integer(), Type.Null()]),
      }),
      Type.Null(),
    ],
    { description: 'Each measure null where not known (a weight alone is a package)' },
  ),
  version: Type.Integer({ description: '+1 on every change' }),
  price: Type.String({ description: "The first variant's price" }),
  sku: Type.String({ description: "The first variant's sku" }),
  quantity: Type.Integer({ description: "The first variant's quantity" }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

/** What the schema found wrong with the body; a body that is not even an object is refused at once. */
function shapeProblems(request: FastifyRequest): FieldErrors {
  const error = request.validationError as
    | (Error & { validation?: Parameters<typeof toFieldErrors>[0]; validationContext?: string })
    | undefined;
  if (!error?.validation) return {};
  // Fastify checks the path before the body: a bad product id is refused as on every other route, before any rule runs.
  if (error.validationContext !== 'body') throw error;
  const fields = toFieldErrors(error.validation, 'body');
  if (fields.body) throw new AppError('validation_failed', { fields });
  return fields;
}

/** The services the routes use. */
export interface ProductRoutesServices {
  readonly products: ProductsService;
  readonly catalogueCsv: CatalogueCsvService;
  readonly bulkEdit: BulkEdit;
}

const Change = {
  sku: Type.String(),
  field: OneOf(['price', 'quantity'] as const),
  from: Type.Union([Type.String(), Type.Integer()]),
  to: Type.Union([Type.String(), Type.Integer()]),
};
const BulkEditAnswer = Type.Object({
  updated: Type.Integer({ description: 'Products changed (a dry run: that would be)' }),
  changes: Type.Array(Type.Object({ product_id: Id, ...Change }), { description: 'Each value changed in the catalogue' }),
  channels: Type.Array(
    Type.Object({
      listing_id: Id,
      site_id: Id,
      site_name: Type.String(),
      platform: OneOf(SITE_PLATFORMS),
      ...Change,
      blocked: Type.Union([Type.String(), Type.Null()], {
        description: 'Why the change will not be sent to the channel (an exchange rate missing)',
      }),
    }),
    { description: 'Each value changed on a channel, as listed there: its rate, adjustment, stock buffer and overrides applied' },
  ),
});

export function registerProductRoutes(app: App, deps: ProductRoutesServices) {
  const { products } = deps;
  const params = Type.Object({ product_id: Id });

  app.get(
    '/products',
    {
      config: { access: 'workspace' },
      schema: {
        summary: "The workspace's products, by id; `q` finds a text in the title or any variant's sku",
        tags: ['products'],
        querystring: Type.Object({ ...PageQuery.properties, q: Type.Optional(Type.String({ maxLength: 200 })) }),
        response: { 200: OkPage(ProductSchema) },
      },
    },
    async (request, reply) => {
      // The page as the database wrote it (`listProductsJson`), in ProductSchema's shape: a test holds every product of
      // a page equal to GET /products/{id}'s answer for it (test/catalog/products-page-json.test.ts).
      const { items, total } = await products.listJson(workspaceOf(request).id, pageOf(request.query), request.query.q);
      return sendOkPageJson(reply, items, total, request.query);
    },
  );

  app.post(
    '/products',
    {
      config: { access: 'workspace' },
      attachValidation: true,
      schema: { summary: 'Add a product', tags: ['products'], body: CreateBody, response: { 201: Ok(ProductSchema) } },
    },
    async (request, reply) => {
      const workspace = workspaceOf(request);
      const known = shapeProblems(request);
      const product = await products.create(workspace.id, request.body as ProductInput, known, actorOf(request));
      return reply.code(201).send(ok(presentProduct(product)));
    },
  );

  app.post(
    '/products/bulk-edit',
    {
      config: { access: 'workspace' },
      schema: {
        summary:
          'Set the price and stock of many variants at once, by sku (one change of each product, all or none); dry_run answers what would change, in the catalogue and on each channel',
        tags: ['products'],
        querystring: Type.Object({
          dry_run: Type.Optional(Type.Boolean({ default: false, description: 'Answer what the edit would change, writing nothing' })),
        }),
        body: Type.Object(
          {
            variants: Type.Array(
              Type.Object({ sku: Sku, price: Type.Optional(Price), quantity: Type.Optional(Quantity) }, { additionalProperties: false }),
              { minItems: 1, maxItems: 1_000 },
            ),
          },
          {
            additionalProperties: false,
            examples: [
              {
                variants: [
                  { sku: 'TOTE-NAT', price: '26.00' },
                  { sku: 'TOTE-BLK', quantity: 8 },
                ],
              },
            ],
          },
        ),
        response: { 200: Ok(BulkEditAnswer) },
      },
    },
    async (request) =>
      ok(await deps.bulkEdit.edit(workspaceOf(request).id, request.body.variants, request.query.dry_run === true, actorOf(request))),
  );

  app.get(
    '/products/:product_id',
    {
      config: { access: 'workspace' },
      schema: { summary: 'One product', tags: ['products'], params, response: { 200: Ok(ProductSchema) } },
    },
    async (request) => ok(presentProduct(await products.get(workspaceOf(request).id, request.params.product_id))),
  );

  app.patch(
    '/products/:product_id',
    {
      config: { access: 'workspace' },
      attachValidation: true,
      schema: {
        summary: 'Change a product: the fields given; `options`, `variants` and `images` replace the whole list',
        tags: ['products'],
        params,
        body: ChangeBody,
        response: { 200: Ok(ProductSchema) },
      },
    },
    async (request) => {
      const workspace = workspaceOf(request);
      const known = shapeProblems(request);
      const product = await products.update(workspace.id, request.params.product_id, request.body, known, actorOf(request));
      return ok(presentProduct(product));
    },
  );

  // Multipart bodies are taken by the upload alone: every other route of the API stays JSON only.
  app.register(async (uploads: App) => {
    await uploads.register(multipart, { limits: { fileSize: IMAGE_BYTES_MAX, files: 1, fields: 2, parts: 3 } });
    uploads.post(
      '/products/:product_id/images',
      {
        config: { access: 'workspace', swaggerTransform: documentedBody(UPLOAD_BODY) },
        schema: {
          summary:
            'Upload an image of the product (multipart: a part named file, JPEG, PNG, WebP or GIF, at most 10 MB, 10,000 px a side and 50 megapixels; optional alt)',
          description:
            'The image is recognised by its bytes, stored once by its SHA-256 and served without authentication at `{app_url}/media/<sha256>.<ext>`, its `url`. A product change: `version` + 1.',
          tags: ['products'],
          params,
          consumes: ['multipart/form-data'],
          response: { 201: Ok(ImageSchema) },
        },
      },
      async (request, reply) => {
        const workspace = workspaceOf(request);
        const upload = await readUpload(request, { noun: 'image', bytesMax: IMAGE_BYTES_MAX });
        const { image } = await products.addUploadedImage(workspace.id, request.params.product_id, upload, actorOf(request));
        return reply.code(201).send(ok({ id: image.id, url: image.url, position: image.position, alt: image.alt, uploaded: true }));
      },
    );
  });

  app.delete(
    '/products/:product_id',
    {
      config: { access: 'workspace' },
      schema: {
        summary: 'Delete a product (409 while it has listings that are not deleted)',
        tags: ['products'],
        params,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await products.remove(workspaceOf(request).id, request.params.product_id, actorOf(request));
      return reply.code(204).send(null);
    },
  );

  // CSV bodies are taken by the import alone, handed on as the stream they arrive as: every other route stays JSON only.
  app.register(async (csv: App) => {
    const { catalogueCsv } = deps;
    const csvOnly = () => new AppError('unsupported_media_type', { message: 'Unsupported media type: send text/csv' });
    csv.removeAllContentTypeParsers();
    csv.addContentTypeParser('text/csv', (_request, payload, done) => done(null, payload));
    csv.addContentTypeParser('*', (_request, _payload, done) => done(csvOnly()));
    const validateProduct = validatorCompiler({ schema: CreateBody, method: 'POST', url: '/products', httpPart: 'body' }) as ((
      data: unknown,
    ) => boolean) & { errors?: Parameters<typeof toFieldErrors>[0] | null };
    const productShape = (input: unknown) => (validateProduct(input) ? {} : toFieldErrors(validateProduct.errors ?? [], 'body'));

    csv.get(
      '/products/export',
      {
        config: { access: 'workspace' },
        schema: {
          summary: 'The whole catalogue as CSV (text/csv), one row per variant, in the columns POST /products/import reads',
          description: CSV_DESCRIPTION,
          tags: ['products'],
          // CSV on success; errors are JSON in the seed's shape, as everywhere.
          response: {
            200: { description: 'products.csv', content: { 'text/csv': { schema: Type.Unsafe<Readable>({ type: 'string' }) } } },
          },
        },
      },
      async (request, reply) => {
        const body = await catalogueCsv.exportCsv(workspaceOf(request).id);
        return reply
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', 'attachment; filename="products.csv"')
          .send(body);
      },
    );

    csv.post(
      '/products/import',
      {
        config: { access: 'workspace', swaggerTransform: documentedBody(IMPORT_BODY) },
        schema: {
          summary:
            'Create and update products from CSV (text/csv, at most 50 MB): any bad row is 422 by `line N.column` and writes nothing',
          description: `${CSV_DESCRIPTION}\n\nFor example:\n\n\`\`\`csv\n${CSV_EXAMPLE}\`\`\``,
          tags: ['products'],
          consumes: ['text/csv'],
          querystring: Type.Object({
            dry_run: Type.Optional(
              Type.Boolean({ default: false, description: 'Check the file and answer what the import would change, writing nothing' }),
            ),
            currency: Type.Optional(
              Type.String({
                pattern: '^[A-Z]{3}$',
                default: 'USD',
                description:
                  'ISO 4217: the currency of the products a file without a `currency` column makes (stored products keep theirs)',
              }),
            ),
            remove_missing: Type.Optional(
              Type.Boolean({
                default: false,
                description:
                  'Drop, from each product the file names, the variants its rows leave out (by default they are kept: a file changes only what it names)',
              }),
            ),
          }),
          response: {
            200: Ok(
              Type.Object({
                created: Type.Integer({ description: 'Products made' }),
                updated: Type.Integer({ description: 'Products changed' }),
                unchanged: Type.Integer({ description: 'Stored products the file names and leaves as they are' }),
                removed: Type.Integer({ description: 'Variants removed (remove_missing)' }),
                ignored: Type.Array(Type.String(), { description: 'Columns of the file the catalogue does not know, left out' }),
                changes: Type.Optional(
                  Type.Array(
                    Type.Object({
                      line: Type.Union([Type.Integer(), Type.Null()], {
                        description: 'The line of the file; null for a variant it leaves out',
                      }),
                      product_id: Type.Union([Type.Integer(), Type.Null()], { description: 'Null for a product the import makes' }),
                      sku: Type.Union([Type.String(), Type.Null()]),
                      field: Type.String({ description: 'A product field, a variant field, `product` or `variant` (made or removed)' }),
                      from: Type.Unknown(),
                      to: Type.Unknown(),
                    }),
                    { description: 'dry_run only: every value the import would change' },
                  ),
                ),
              }),
            ),
          },
        },
      },
      async (request) => {
        const workspace = workspaceOf(request);
        if (!(request.body instanceof Readable)) throw csvOnly();
        if (Number(request.headers['content-length']) > CSV_IMPORT_BYTES_MAX) throw tooLarge();
        const source = capped(request.body, CSV_IMPORT_BYTES_MAX);
        const query = request.query as { dry_run?: boolean; remove_missing?: boolean; currency?: string };
        const options = { dryRun: query.dry_run === true, removeMissing: query.remove_missing === true, currency: query.currency ?? 'USD' };
        return ok(await catalogueCsv.importCsv(workspace.id, source, actorOf(request), productShape, options));
      },
    );
  });
}

const CSV_DESCRIPTION = `One row per variant; rows with the same \`handle\` are one product, whose own columns are on its first row (repeated or left empty on its others). Columns: ${CSV_COLUMNS.map((c) => `\`${c}\``).join(', ')}, then \`attribute.<key>\` per attribute. \`tags\` are comma-separated, \`image_urls\` space-separated; an empty cell is empty or null. The export writes each product's \`handle\`. On import a group whose skus (else whose handle) belong to a product updates it, and a sku of another product than its handle's is a 422 on its line: only the file's columns change, and the product's variants the rows leave out are kept (\`remove_missing=true\` drops them); a group with only new skus and a new handle creates a product; only \`sku\` is required (a \`sku,quantity\` file changes stock alone); Shopify's product CSV imports as it is (\`Body (HTML)\` made text, \`Variant SKU\`, \`Variant Price\`, \`Variant Inventory Qty\`, \`Image Src\` rows); a column the catalogue does not know is ignored and named in \`ignored\`; \`dry_run=true\` answers the changes and writes nothing; importing the export unchanged changes nothing. Details: docs/catalogue.md, "CSV".`;

const CSV_EXAMPLE = `handle,title,currency,option1_name,option1_value,sku,price,quantity,image_urls,attribute.material
tote,Linen tote bag,USD,Color,Natural,TOTE-NAT,24.00,12,https://example.com/tote.jpg,linen
tote,,,,Black,TOTE-BLK,26.00,5,,
mug,"Stoneware mug, 350 ml",EUR,,,MUG-1,12.00,4,,stoneware
`;

/**
 * The body of a route that reads its own (a multipart upload, a CSV stream), for the OpenAPI document only: declared
 * as the route's `body`, Fastify would validate the stream against it.
 */
const documentedBody =
  (body: object): SwaggerTransform =>
  ({ schema, url }) => ({ schema: { ...schema, body }, url });

const UPLOAD_BODY = Type.Object({
  file: Type.String({
    format: 'binary',
    description: 'The image: JPEG, PNG, WebP or GIF, at most 10 MB, 10,000 px a side and 50 megapixels',
  }),
  alt: Type.Optional(Type.String({ maxLength: IMAGE_ALT_LENGTH_MAX, description: 'Its text alternative' })),
});

const IMPORT_BODY = Type.String({ description: 'The CSV file (UTF-8; a byte order mark is skipped)', examples: [CSV_EXAMPLE] });

/** A 413 that closes the connection once it is sent (CLOSE), as Fastify's own body parsers answer theirs. */
const tooLarge = () => new AppError('payload_too_large', { headers: CLOSE });

/** The body's bytes as they arrive, refused with 413 past `max`; the request is left open, so the answer still reaches the client. */
async function* capped(body: Readable, max: number): AsyncGenerator<Buffer> {
  let bytes = 0;
  for await (const chunk of body.iterator({ destroyOnReturn: false })) {
    bytes += (chunk as Buffer).length;
    if (bytes > max) throw tooLarge();
    yield chunk as Buffer;
  }
}
