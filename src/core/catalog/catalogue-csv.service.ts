/**
 * The catalogue as CSV (DESIGN §9): the export streamed while its products are read a batch at a time; the import read
 * from the request's stream, every row held to the API's rules before anything is written, then written in one
 * transaction with multi-row statements, leaving alone each product whose content is unchanged.
 */
import { pipeline, Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { stringify } from 'csv-stringify';
import * as auditRepo from '../../db/audit.repo.js';
import type { Db } from '../../db/client.js';
import * as productsRepo from '../../db/products.repo.js';
import * as webhooksRepo from '../../db/webhooks.repo.js';
import { type Actor, type ProductInput, SKU_PATTERN } from '../../domain/index.js';
import { AppError, type FieldErrors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { Outbox } from '../webhooks/outbox.js';
import {
  addError,
  type BuiltProduct,
  buildProduct,
  CSV_PARSE_OPTIONS,
  type CsvGroup,
  type CsvHeader,
  createRowReader,
  csvHeader,
  matchGroups,
  productRows,
  readHeader,
  sortedKeys,
} from './csv.js';
import { presentProduct } from './present.js';
import { changedFields, imageFields, productFields, sameImages, sameVariants, variantFields } from './product-fields.js';
import { ALL_GIVEN, checkProduct } from './product-rules.js';
import type { ProductChanges } from './products.service.js';
import { skuRace } from './sku-race.js';

type ProductRecord = productsRepo.ProductRecord;

/** What POST /products's schema finds wrong with a product input, by field path: the import holds rows to it too. */
export type ShapeCheck = (input: ProductInput) => FieldErrors;

export type CatalogueCsvService = ReturnType<typeof createCatalogueCsvService>;

/** Skus looked up per statement. */
const SKU_BATCH = 5_000;

/** Products made or changed by one import from which the catalogue's statistics are gathered again. */
const ANALYZE_AFTER = 500;

export function createCatalogueCsvService(deps: { db: Db; clock: Clock; outbox: Outbox; listings: ProductChanges }) {
  const { db, clock, outbox } = deps;

  /** Audit entries and webhook events of the products made or changed, in the import's transaction. */
  async function record(tx: Db, workspaceId: number, changes: readonly Change[], actor: Actor, now: Date): Promise<void> {
    await auditRepo.recordAudits(
      tx,
      workspaceId,
      changes.map(({ action, id, title }) => ({
        action,
        actorUserId: actor.userId,
        subjectType: 'product',
        subjectId: id,
        ipAddress: actor.ipAddress,
        details: { title },
      })),
      now,
    );
    // The outbox finds no endpoint for an event nobody subscribed to: the products are read again only for those that did.
    const subscribed = new Set((await webhooksRepo.listEndpoints(tx, workspaceId)).flatMap((endpoint) => endpoint.events));
    const sent = changes.filter((change) => subscribed.has(change.action));
    if (sent.length === 0) return;
    const read = await productsRepo.findProducts(
      tx,
      workspaceId,
      sent.map((change) => change.id),
    );
    const products = new Map(read.map((product) => [product.id, product]));
    for (const change of sent) {
      await outbox.emit(tx, workspaceId, change.action, { product: presentProduct(products.get(change.id)!) }, now);
    }
  }

  /** The import's writes, in one transaction: every check first, then the products made and changed. */
  async function applyFile(tx: Db, workspaceId: number, file: ReadFile, actor: Actor, shape: ShapeCheck) {
    const { header, groups } = file;
    const errors: FieldErrors = { ...file.errors };
    if (!header) throw refusal(errors, null);
    // Every quantity the file changes is an import's, in the stock movements.
    await productsRepo.explainStockChange(tx, { reason: 'import', actorUserId: actor.userId, at: clock.now() });
    const owners = await ownersOf(tx, workspaceId, skusOf(groups, header));
    const matching = matchGroups(groups, header, owners);
    merge(errors, matching.errors);
    const ids = matching.matches.filter((id): id is number => id !== null);
    const stored = new Map((await productsRepo.findProducts(tx, workspaceId, ids, true)).map((p) => [p.id, p]));
    const plans = groups.map((group, i) => {
      const current = stored.get(matching.matches[i] ?? 0) ?? null;
      const built = buildProduct(group, header, current && presentProduct(current));
      merge(errors, problemsOf(built, current, shape));
      return { built, current };
    });
    if (Object.keys(errors).length > 0) throw refusal(errors, header);

    const now = clock.now();
    const made = await createProducts(
      tx,
      workspaceId,
      plans.filter((plan) => !plan.current).map((plan) => plan.built.input),
      now,
    );
    const updates = plans.flatMap(({ built, current }) => (current ? (updateOf(current, built.input) ?? []) : []));
    await updateProducts(tx, updates, now);
    await deps.listings.productsChanged(
      tx,
      updates.map((update) => update.current.id),
    );
    const updated = new Set(updates.map((update) => update.current.id));
    let next = 0;
    const changes = plans.flatMap(({ built, current }): Change[] => {
      if (!current) return [{ action: 'product.created', id: made[next++]!, title: built.input.title }];
      return updated.has(current.id) ? [{ action: 'product.updated', id: current.id, title: built.input.title }] : [];
    });
    await record(tx, workspaceId, changes, actor, now);
    return { created: made.length, updated: updates.length };
  }

  return {
    /** The whole catalogue, one row per variant; products are read a batch at a time as the answer is sent. */
    async exportCsv(workspaceId: number): Promise<Readable> {
      const keys = sortedKeys(await productsRepo.attributeKeys(db, workspaceId));
      async function* rows() {
        yield csvHeader(keys);
        for await (const product of productsRepo.allProducts(db, workspaceId)) yield* productRows(presentProduct(product), keys);
      }
      const csv = stringify();
      // A failure half way (the database gone) destroys the stream, which ends the answer short.
      pipeline(Readable.from(rows()), csv, () => {});
      return csv;
    },

    /**
     * Creates and updates products from a CSV body. Every row is checked before anything is written; any problem is a
     * 422 naming every bad cell (`line N.column`), with nothing written. `shape` is POST /products's schema check.
     */
    async importCsv(
      workspaceId: number,
      source: AsyncIterable<Buffer | string>,
      actor: Actor,
      shape: ShapeCheck,
    ): Promise<{ created: number; updated: number }> {
      // The file is read before the transaction begins: a slow upload holds no lock and no connection.
      const file = await readFile(source);
      const result = await skuRace(() => db.transaction((tx) => applyFile(tx, workspaceId, file, actor, shape)));
      // The planner's statistics, after a change that may have moved them: PGlite has no autovacuum to gather them, and
      // without them it reads a search's whole match to sort it where it could stop at the first page.
      if (result.created + result.updated >= ANALYZE_AFTER) await productsRepo.analyzeCatalogue(db);
      return result;
    },
  };
}

interface Change {
  action: 'product.created' | 'product.updated';
  id: number;
  title: string;
}

interface ReadFile {
  /** Null when a required column is missing: no row can be read. */
  header: CsvHeader | null;
  groups: CsvGroup[];
  errors: FieldErrors;
}

/** The records of the body as they arrive: the header, then rows grouped by handle; line N is the N-th record. */
async function readFile(source: AsyncIterable<Buffer | string>): Promise<ReadFile> {
  const parser = parse(CSV_PARSE_OPTIONS);
  // An error of the source (a body over the limit) destroys the parser, which ends the loop below with it.
  pipeline(source, parser, () => {});
  const errors: FieldErrors = {};
  let header: CsvHeader | null = null;
  let reader: ReturnType<typeof createRowReader> | null = null;
  let line = 0;
  try {
    for await (const cells of parser as AsyncIterable<string[]>) {
      line += 1;
      if (line > 1) reader?.add(line, cells);
      else ({ header, reader } = headerOf(cells, errors));
    }
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    // The parser reads ahead of the records handed out: its own count says which record broke.
    const records = (error as CsvError & { records?: unknown }).records;
    addError(errors, `line ${typeof records === 'number' ? records + 1 : line + 1}.row`, notCsv(error));
    merge(errors, reader?.errors ?? {});
    return { header: null, groups: [], errors };
  }
  if (line === 0) headerOf([], errors);
  merge(errors, reader?.errors ?? {});
  return { header: reader ? header : null, groups: reader ? [...reader.groups.values()] : [], errors };
}

function headerOf(cells: readonly string[], errors: FieldErrors) {
  const read = readHeader(cells);
  merge(errors, read.errors);
  return { header: read.header, reader: read.usable ? createRowReader(read.header) : null };
}

function notCsv(error: CsvError): string {
  if (error.code === 'CSV_QUOTE_NOT_CLOSED') return 'The file is not valid CSV: a quoted cell is never closed.';
  if (error.code === 'CSV_INVALID_CLOSING_QUOTE') return 'The file is not valid CSV: a quote inside a quoted cell must be doubled ("").';
  return `The file is not valid CSV: ${error.message}`;
}

function merge(into: FieldErrors, from: FieldErrors): void {
  for (const [key, messages] of Object.entries(from)) for (const message of messages) addError(into, key, message);
}

/** A 422 with its keys in the file's order: by line, then by column. */
function refusal(errors: FieldErrors, header: CsvHeader | null): AppError {
  const place = (key: string) => {
    const [, line = '0', column = ''] = /^line (\d+)\.(.*)$/s.exec(key) ?? [];
    const index = header?.index.get(column) ?? Number.MAX_SAFE_INTEGER;
    return [Number(line), index] as const;
  };
  const keys = Object.keys(errors).sort((a, b) => {
    const [x, y] = [place(a), place(b)];
    return x[0] - y[0] || x[1] - y[1];
  });
  return new AppError('validation_failed', { fields: Object.fromEntries(keys.map((key) => [key, errors[key]!])) });
}

function skusOf(groups: readonly CsvGroup[], header: CsvHeader): string[] {
  const at = header.index.get('sku')!;
  // Only a sku a variant can have is looked up: any other is refused on its cell, and one with a NUL cannot even be sent.
  return [...new Set(groups.flatMap((group) => group.rows.map((row) => row.cells[at] ?? '')))].filter((sku) => SKU_PATTERN.test(sku));
}

async function ownersOf(tx: Db, workspaceId: number, skus: readonly string[]): Promise<Map<string, number>> {
  const owners = new Map<string, number>();
  for (let i = 0; i < skus.length; i += SKU_BATCH) {
    for (const [sku, id] of await productsRepo.productsOfSkus(tx, workspaceId, skus.slice(i, i + SKU_BATCH))) owners.set(sku, id);
  }
  return owners;
}

/**
 * Everything wrong with a group, by `line N.column`: its cells, then POST /products's schema and the catalogue's rules
 * on the input it makes, each field path led back to its cell. A field already refused is not checked again.
 */
function problemsOf(built: BuiltProduct, current: ProductRecord | null, shape: ShapeCheck): FieldErrors {
  const known: FieldErrors = { ...built.errors };
  for (const [path, messages] of Object.entries(shape(built.input))) known[path] ??= messages;
  const existing = {
    variantIds: new Set(current?.variants.map((v) => v.id) ?? []),
    imageIds: new Set(current?.images.map((i) => i.id) ?? []),
  };
  const { input } = built;
  const candidate = { currency: input.currency, options: input.options, variants: input.variants, images: input.images ?? [] };
  const problems: FieldErrors = { ...built.cellErrors };
  for (const [path, messages] of Object.entries({ ...known, ...checkProduct(candidate, ALL_GIVEN, existing, known) })) {
    for (const message of messages) addError(problems, ...built.locate(path, message));
  }
  return problems;
}

/** New products with their variants and images, a few multi-row statements per thousand; their ids in order. */
async function createProducts(tx: Db, workspaceId: number, inputs: readonly ProductInput[], now: Date): Promise<number[]> {
  if (inputs.length === 0) return [];
  const ids = await productsRepo.insertProducts(tx, workspaceId, inputs.map(productFields), now);
  const product = (id: number) => ({ id, workspaceId });
  await productsRepo.insertVariants(
    tx,
    ids.map((id, i) => ({ product: product(id), variants: inputs[i]!.variants.map(variantFields) })),
    now,
  );
  const images = ids.map((id, i) => ({ productId: id, images: (inputs[i]!.images ?? []).map((image) => imageFields(image, null)) }));
  await productsRepo.insertImages(tx, images, now);
  return ids;
}

/** What an import changes of a stored product: its fields, and its variants and images where they differ; null for nothing. */
interface Update {
  current: ProductRecord;
  fields: productsRepo.ProductFields;
  variants: productsRepo.VariantFields[] | null;
  images: productsRepo.ImageFields[] | null;
}

function updateOf(current: ProductRecord, input: ProductInput): Update | null {
  const fields = productFields(input);
  const variants = input.variants.map(variantFields);
  const images = (input.images ?? []).map((image) => imageFields(image, current));
  const update = {
    current,
    fields,
    variants: sameVariants(current, variants) ? null : variants,
    images: sameImages(current, images) ? null : images,
  };
  return update.variants || update.images || Object.keys(changedFields(current, fields)).length > 0 ? update : null;
}

/** The changed products written with multi-row statements: every field, a new version, variants and images that differ. */
async function updateProducts(tx: Db, updates: readonly Update[], now: Date): Promise<void> {
  if (updates.length === 0) return;
  await productsRepo.updateProducts(
    tx,
    updates.map(({ current, fields }) => ({ id: current.id, fields })),
    now,
  );
  const variants = updates.flatMap(({ current, variants }) => (variants ? [{ product: current, variants }] : []));
  await productsRepo.replaceVariantsOfProducts(tx, variants, now);
  const images = updates.flatMap(({ current, images }) => (images ? [{ productId: current.id, images }] : []));
  await productsRepo.replaceImagesOfProducts(tx, images, now);
}
