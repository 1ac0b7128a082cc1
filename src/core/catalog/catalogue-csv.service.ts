/**
 * The catalogue as CSV (DESIGN §9): the export streamed while its products are read a batch at a time; the import read
 * from the request's stream, every row held to the API's rules before anything is written, then written in one
 * transaction with multi-row statements, leaving alone each product whose content is unchanged.
 */
import { pipeline, Readable } from 'node:stream';
import { isDeepStrictEqual } from 'node:util';
import { CsvError, parse } from 'csv-parse';
import { stringify } from 'csv-stringify';
import * as auditRepo from '../../db/audit.repo.js';
import type { Db } from '../../db/client.js';
import * as productsRepo from '../../db/products.repo.js';
import * as webhooksRepo from '../../db/webhooks.repo.js';
import { type Actor, handleFrom, type ProductInput, SKU_PATTERN } from '../../domain/index.js';
import { AppError, type FieldErrors } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { Outbox } from '../webhooks/outbox.js';
import {
  addError,
  type BuiltProduct,
  buildProduct,
  CSV_PARSE_OPTIONS,
  CSV_STRINGIFY_OPTIONS,
  type CsvGroup,
  type CsvHeader,
  createRowReader,
  csvHeader,
  groupBySku,
  matchGroups,
  productRows,
  readHeader,
  sortedKeys,
  unescapeCell,
} from './csv.js';
import { presentProduct } from './present.js';
import { productChanges } from './product-changes.js';
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
      changes.map(({ action, id, title, changed }) => ({
        action,
        actorUserId: actor.userId,
        subjectType: 'product',
        subjectId: id,
        ipAddress: actor.ipAddress,
        // A change an import made says so: the log tells an import from an edit.
        details: { title, via: 'CSV import', ...changed },
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

  /**
   * The import's writes, in one transaction: every check first, then the products made and changed. A dry run stops
   * after the checks, with what the import would change, and writes nothing.
   */
  async function applyFile(tx: Db, workspaceId: number, file: ReadFile, actor: Actor, shape: ShapeCheck, options: ImportOptions) {
    const { header } = file;
    const errors: FieldErrors = { ...file.errors };
    if (!header) throw refusal(errors, null);
    // Every quantity the file changes is an import's, in the stock movements.
    await productsRepo.explainStockChange(tx, { reason: 'import', actorUserId: actor.userId, at: clock.now() });
    const owners = await ownersOf(tx, workspaceId, skusOf(file.groups, header));
    // A file without handles (a stock file) names each row's product by its sku.
    let groups = file.groups;
    if (!header.index.has('handle')) {
      const gathered = groupBySku(groups, owners);
      merge(errors, gathered.errors);
      groups = gathered.groups;
    }
    const handles = header.index.has('handle')
      ? await productsRepo.productsOfHandles(
          tx,
          workspaceId,
          groups.map((g) => handleFrom(g.handle)),
        )
      : new Map();
    const matching = matchGroups(groups, header, owners, handles);
    merge(errors, matching.errors);
    const ids = matching.matches.filter((id): id is number => id !== null);
    const stored = new Map((await productsRepo.findProducts(tx, workspaceId, ids, true)).map((p) => [p.id, p]));
    const checked = groups.map((group, i) => {
      const current = stored.get(matching.matches[i] ?? 0) ?? null;
      const built = buildProduct(group, header, current && presentProduct(current), options);
      merge(errors, problemsOf(built, current, shape));
      return { group, built, current };
    });
    if (Object.keys(errors).length > 0) throw refusal(errors, header);
    // What each changes, once every cell is known good.
    const plans = checked.map((plan) => ({ ...plan, update: plan.current && updateOf(plan.current, plan.built.input) }));
    const counts = {
      created: plans.filter((plan) => !plan.current).length,
      updated: plans.filter((plan) => plan.update).length,
      unchanged: plans.filter((plan) => plan.current && !plan.update).length,
      removed: plans.reduce((sum, plan) => sum + (plan.update ? plan.built.removed.length : 0), 0),
      ignored: [...header.ignored],
    };
    if (options.dryRun) return { ...counts, changes: plans.flatMap(changesOf) };

    const now = clock.now();
    const made = await createProducts(
      tx,
      workspaceId,
      plans.filter((plan) => !plan.current).map((plan) => plan.built.input),
      now,
    );
    const updates = plans.flatMap((plan) => plan.update ?? []);
    await updateProducts(tx, updates, now);
    await deps.listings.productsChanged(
      tx,
      updates.map((update) => update.current.id),
    );
    // Each changed product as it now is: its entry says what changed, from → to, as an edit's does.
    const after = new Map(
      (
        await productsRepo.findProducts(
          tx,
          workspaceId,
          updates.map((update) => update.current.id),
        )
      ).map((product) => [product.id, product]),
    );
    let next = 0;
    const changes = plans.flatMap(({ built, current }): Change[] => {
      if (!current) return [{ action: 'product.created', id: made[next++]!, title: built.input.title }];
      const stored = after.get(current.id);
      return stored
        ? [{ action: 'product.updated', id: current.id, title: built.input.title, changed: productChanges(current, stored) }]
        : [];
    });
    await record(tx, workspaceId, changes, actor, now);
    return counts;
  }

  return {
    /** The whole catalogue, one row per variant; products are read a batch at a time as the answer is sent. */
    async exportCsv(workspaceId: number): Promise<Readable> {
      const keys = sortedKeys(await productsRepo.attributeKeys(db, workspaceId));
      async function* rows() {
        yield csvHeader(keys);
        for await (const product of productsRepo.allProducts(db, workspaceId)) yield* productRows(presentProduct(product), keys);
      }
      // Every cell neutralised against spreadsheet formulas; readFile undoes it (unescapeCell).
      const csv = stringify(CSV_STRINGIFY_OPTIONS);
      // A failure half way (the database gone) destroys the stream, which ends the answer short.
      pipeline(Readable.from(rows()), csv, () => {});
      return csv;
    },

    /**
     * Creates and updates products from a CSV body. Every row is checked before anything is written; any problem is a
     * 422 naming every bad cell (`line N.column`), with nothing written. `shape` is POST /products's schema check.
     * A dry run answers what the import would do, and writes nothing.
     */
    async importCsv(
      workspaceId: number,
      source: AsyncIterable<Buffer | string>,
      actor: Actor,
      shape: ShapeCheck,
      options: ImportOptions = { dryRun: false, removeMissing: false, currency: 'USD' },
    ): Promise<ImportResult> {
      // The file is read before the transaction begins: a slow upload holds no lock and no connection.
      const file = await readFile(source);
      const result = await skuRace(() => db.transaction((tx) => applyFile(tx, workspaceId, file, actor, shape, options)));
      // The planner's statistics, after a change that may have moved them: PGlite has no autovacuum to gather them, and
      // without them it reads a search's whole match to sort it where it could stop at the first page.
      if (result.created + result.updated >= ANALYZE_AFTER) await productsRepo.analyzeCatalogue(db);
      return result;
    },
  };
}

/**
 * How an import goes: `dryRun` answers what it would do and writes nothing; `removeMissing` drops the variants a
 * product's rows leave out; `currency` is that of the products a file without a currency column makes.
 */
export interface ImportOptions {
  dryRun: boolean;
  removeMissing: boolean;
  currency: string;
}

/** One value an import changes (a dry run's preview): on which line, of which product and variant, from what to what. */
export interface ImportChange {
  line: number | null;
  product_id: number | null;
  sku: string | null;
  field: string;
  from: unknown;
  to: unknown;
}

export interface ImportResult {
  created: number;
  updated: number;
  /** Stored products the file names and leaves as they are. */
  unchanged: number;
  /** Variants removed (`remove_missing`). */
  removed: number;
  /** The file's columns the catalogue does not know, left out. */
  ignored: string[];
  /** A dry run's preview. */
  changes?: ImportChange[];
}

/** The product fields a preview compares, as the API names them. */
const PREVIEW_FIELDS = ['title', 'description', 'brand', 'tags', 'attributes', 'currency', 'options', 'package'] as const;

/** What a plan would change, value by value: a new product and its variants; a stored one's fields, variants and images. */
function changesOf(plan: { group: CsvGroup; built: BuiltProduct; current: ProductRecord | null; update: Update | null }): ImportChange[] {
  const { group, built, current } = plan;
  const { input } = built;
  if (!current)
    return [
      { line: group.line, product_id: null, sku: null, field: 'product', from: null, to: input.title },
      ...input.variants.map((v, i) => ({
        line: built.lines[i] ?? null,
        product_id: null,
        sku: v.sku,
        field: 'variant',
        from: null,
        to: v.sku,
      })),
    ];
  if (!plan.update) return [];
  const was = presentProduct(current);
  const next = { ...productFields(input) } as Record<string, unknown>;
  const changes: ImportChange[] = PREVIEW_FIELDS.filter((field) => !isDeepStrictEqual(was[field] ?? null, next[field] ?? null)).map(
    (field) => ({ line: group.line, product_id: current.id, sku: null, field, from: was[field] ?? null, to: next[field] ?? null }),
  );
  const storedBySku = new Map(was.variants.map((v) => [v.sku, v]));
  input.variants.forEach((v, i) => {
    const line = built.lines[i] ?? null;
    const stored = storedBySku.get(v.sku);
    if (!stored) {
      changes.push({ line, product_id: current.id, sku: v.sku, field: 'variant', from: null, to: v.sku });
      return;
    }
    const fields = variantFields(v);
    const pairs: [string, unknown, unknown][] = [
      ['price', stored.price, fields.price],
      ['quantity', stored.quantity, fields.quantity],
      ['barcode', stored.barcode, fields.barcode],
      ['option_values', stored.option_values, fields.optionValues],
    ];
    for (const [field, from, to] of pairs)
      if (!isDeepStrictEqual(from, to)) changes.push({ line, product_id: current.id, sku: v.sku, field, from, to });
  });
  for (const sku of built.removed) changes.push({ line: null, product_id: current.id, sku, field: 'variant', from: sku, to: null });
  const urls = (images: readonly { url?: string }[]) => images.map((image) => image.url ?? null);
  if (!isDeepStrictEqual(urls(was.images), urls(input.images ?? [])))
    changes.push({
      line: group.line,
      product_id: current.id,
      sku: null,
      field: 'images',
      from: urls(was.images),
      to: urls(input.images ?? []),
    });
  return changes;
}

interface Change {
  action: 'product.created' | 'product.updated';
  id: number;
  title: string;
  /** A change's fields, from → to (productChanges). */
  changed?: Record<string, string>;
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
    for await (const record of parser as AsyncIterable<string[]>) {
      line += 1;
      const cells = record.map(unescapeCell);
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
async function createProducts(tx: Db, workspaceId: number, inputs: readonly BuiltProduct['input'][], now: Date): Promise<number[]> {
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

function updateOf(current: ProductRecord, input: BuiltProduct['input']): Update | null {
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
