/**
 * (g) The catalogue: a CSV import of one row per product (10,000 in the full bench) through POST /products/import,
 * timed, with the server's memory around it; then the same file with every price and quantity changed, previewed
 * (`dry_run=true`) and merged, each timed; then GET /products?q= of that catalogue is loaded like GET /user.
 */
import type { ServerProcess } from './server-process.js';
import type { BenchUser } from './storelink-api.js';

/** Half the products are mugs: the search finds 5,000 of 10,000 and answers the first page of 25. */
export const CATALOGUE_PATH = '/api/v1/products?q=mug&per_page=25';

/** The catalogue as a file; `repriced`: every price a euro up and every quantity one up, the rest as made. */
export function catalogueCsv(products: number, repriced = false): string {
  const rows = ['handle,title,currency,sku,price,quantity'];
  const up = repriced ? 1 : 0;
  for (let i = 1; i <= products; i++) {
    const title = i % 2 === 0 ? `Stoneware mug ${i}` : `Linen tote ${i}`;
    rows.push(`p${i},${title},EUR,SKU-${i},${(i % 500) + 1 + up}.99,${(i % 100) + up}`);
  }
  return `${rows.join('\n')}\n`;
}

export interface ImportResult {
  readonly rows: number;
  readonly seconds: number;
  /** The repriced file's preview (every row a change of price and quantity), and then its merge. */
  readonly dryRunSeconds: number;
  readonly mergeSeconds: number;
  /** RSS just before the import, and the process's peak RSS since start, read after it (bytes). */
  readonly rssBefore: number;
  readonly peakAfter: number;
}

export async function importCatalogue(server: ServerProcess, user: BenchUser, rows: number): Promise<ImportResult> {
  const body = catalogueCsv(rows);
  const rssBefore = server.memory().rss;
  const started = performance.now();
  const response = await fetch(`${server.url}/api/v1/products/import`, {
    method: 'POST',
    headers: { ...user.headers, 'content-type': 'text/csv' },
    body,
  });
  const seconds = (performance.now() - started) / 1000;
  const answer = await response.text();
  if (response.status !== 200 || JSON.parse(answer).data?.created !== rows) {
    throw new Error(`${server.name}: the import of ${rows} rows answered ${response.status} ${answer.slice(0, 300)}`);
  }
  const repriced = catalogueCsv(rows, true);
  const dryRunSeconds = await timedImport(server, user, repriced, '?dry_run=true', (data) => data.changes?.length === 2 * rows);
  const mergeSeconds = await timedImport(server, user, repriced, '', (data) => data.updated === rows);
  return { rows, seconds, dryRunSeconds, mergeSeconds, rssBefore, peakAfter: server.memory().peak };
}

/** Seconds an import of `body` took, checked by `expected` on its answer's data. */
async function timedImport(
  server: ServerProcess,
  user: BenchUser,
  body: string,
  query: string,
  expected: (data: { updated?: number; changes?: unknown[] }) => boolean,
): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${server.url}/api/v1/products/import${query}`, {
    method: 'POST',
    headers: { ...user.headers, 'content-type': 'text/csv' },
    body,
  });
  const answer = await response.text();
  const seconds = (performance.now() - started) / 1000;
  if (response.status !== 200 || !expected(JSON.parse(answer).data ?? {}))
    throw new Error(`${server.name}: the import${query} answered ${response.status} ${answer.slice(0, 300)}`);
  return seconds;
}

/** Checks the search answers a full first page of the catalogue. */
export async function checkCatalogue(server: ServerProcess, user: BenchUser): Promise<void> {
  const response = await fetch(`${server.url}${CATALOGUE_PATH}`, { headers: user.headers });
  const body = await response.text();
  const data = response.status === 200 ? JSON.parse(body).data : null;
  if (!Array.isArray(data) || data.length !== 25)
    throw new Error(`${server.name}: GET ${CATALOGUE_PATH} answered ${response.status} ${body.slice(0, 300)}`);
}
