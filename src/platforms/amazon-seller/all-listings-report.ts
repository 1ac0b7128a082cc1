/**
 * An account's listings imported from the All Listings report (listings.md §3.7; searchListingsItems reaches 1,000 SKUs
 * at most): asked for once, its document read a page of rows at a time from a fresh link (Amazon's is valid five
 * minutes), each SKU then read whole. A report Amazon has not finished is an empty page whose cursor looks again.
 */
import { gunzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import { PlatformError } from '../contracts/errors.js';
import type { ExistingListing, ExistingPage, ListingsAdapter, ListingsCall } from '../contracts/listings.js';
import type { ListingReads } from './listing-reads.js';
import type { AmazonMarketplace } from './listing-requests.js';
import { CreatedReport, isParentItem, parentOfItem, Report, ReportDocument, reader } from './listing-responses.js';
import type { ListingsItemsApi } from './listings-items-api.js';
import { type AmazonListingsDeps, marketplaceFor, type SpApi } from './sp-api.js';

/** Rows of the All Listings report an import page takes: each is then read whole (getListingsItem), 100 calls a page. */
const REPORT_PAGE_SIZE = 100;
/** A report Amazon has not finished is looked at again after this (Amazon's take minutes). */
const REPORT_WAIT_MS = 30_000;

interface ReportCursor {
  /** The report asked for, not yet done. */
  r?: string;
  /** Its document, once done. */
  d?: string;
  /** The rows taken so far. */
  o: number;
}
/** A cursor once the report is done: its document and the rows taken so far. */
type DocumentCursor = { d: string; o: number };

/** The report's rows (tab-separated, Amazon's header), from its document's bytes in the charset its answer names. */
function reportRows(bytes: Buffer, compression: string | undefined, contentType: string | null | undefined): Record<string, string>[] {
  const plain = compression === 'GZIP' ? gunzipSync(bytes) : bytes;
  const charset = /charset=([^;]+)/i.exec(contentType ?? '')?.[1]?.trim() ?? 'utf-8';
  let text: string;
  try {
    text = new TextDecoder(charset).decode(plain);
  } catch {
    text = new TextDecoder().decode(plain);
  }
  return parse(text, { delimiter: '\t', columns: true, quote: false, relax_column_count: true, skip_empty_lines: true, bom: true });
}

/** The import of one adapter. */
export function createAllListingsReport(
  { send }: SpApi,
  items: Pick<ListingsItemsApi, 'readItem'>,
  reads: Pick<ListingReads, 'existingOf' | 'existingFamilyOf'>,
  deps: Pick<AmazonListingsDeps, 'http'>,
) {
  /** The report asked for. */
  async function createReport(call: ListingsCall, marketplace: AmazonMarketplace): Promise<ReportCursor> {
    const created = await send(call, marketplace, 'createReport', 'POST', '/reports/2021-06-30/reports', reader(CreatedReport), {
      json: { reportType: 'GET_MERCHANT_LISTINGS_ALL_DATA', marketplaceIds: [marketplace.id] },
    });
    return { r: created.reportId, o: 0 };
  }

  /**
   * The cursor of the report's document once Amazon made it; else the page to answer meanwhile: none after a cancelled
   * report, an empty one that looks again the first time, and a passing failure after (the work is tried again later).
   */
  async function awaitReport(
    call: ListingsCall,
    marketplace: AmazonMarketplace,
    at: ReportCursor,
    cursor: string | null,
  ): Promise<ExistingPage | DocumentCursor> {
    const path = `/reports/2021-06-30/reports/${encodeURIComponent(at.r!)}`;
    const report = await send(call, marketplace, 'getReport', 'GET', path, reader(Report));
    if (report.processingStatus === 'CANCELLED') return { listings: [], next: null };
    if (report.processingStatus === 'FATAL') throw new PlatformError('unavailable', 'Amazon could not make the All Listings report');
    if (report.processingStatus !== 'DONE' || !report.reportDocumentId) {
      if (cursor?.includes('"r"')) throw new PlatformError('unavailable', 'Amazon is still making the All Listings report', REPORT_WAIT_MS);
      return { listings: [], next: JSON.stringify(at) };
    }
    return { d: report.reportDocumentId, o: 0 };
  }

  /** The report's rows, from a fresh link to its document. */
  async function readDocument(call: ListingsCall, marketplace: AmazonMarketplace, documentId: string) {
    const path = `/reports/2021-06-30/documents/${encodeURIComponent(documentId)}`;
    const document = await send(call, marketplace, 'getReportDocument', 'GET', path, reader(ReportDocument));
    const answer = await deps.http.request(document.url, { method: 'GET', signal: call.signal, read: 'bytes' });
    if (answer.status !== 200) throw new PlatformError('unavailable', `Amazon's report document answered HTTP ${answer.status}`);
    return reportRows(answer.body as Buffer, document.compressionAlgorithm, answer.headers?.get('content-type'));
  }

  /**
   * A page of the report's rows from row `from`, each SKU read whole. A variation family is one listing (DESIGN §15):
   * its parent's row reads the parent and its children; a child's row is left to its parent's (ASSUMPTION: the report
   * lists parents, as the sandbox's does); a child whose parent the report lacks is read as a SKU of its own.
   */
  async function readPage(call: ListingsCall, marketplace: AmazonMarketplace, documentId: string, from: number): Promise<ExistingPage> {
    const rows = await readDocument(call, marketplace, documentId);
    const reported = new Set(rows.map((row) => row['seller-sku']));
    const listings: ExistingListing[] = [];
    for (const row of rows.slice(from, from + REPORT_PAGE_SIZE)) {
      const sku = row['seller-sku'];
      if (!sku) continue;
      const item = await items.readItem(call, marketplace, sku);
      const parent = item && parentOfItem(item);
      if (!item || (parent && reported.has(parent))) continue;
      const found = isParentItem(item)
        ? await reads.existingFamilyOf(call, marketplace, item)
        : await reads.existingOf(call, marketplace, item);
      if (found) listings.push(found);
    }
    const next = from + REPORT_PAGE_SIZE;
    return { listings, next: next < rows.length ? JSON.stringify({ d: documentId, o: next }) : null };
  }

  return {
    async existing(call, cursor) {
      const marketplace = marketplaceFor(call);
      let at: ReportCursor = cursor ? (JSON.parse(cursor) as ReportCursor) : { o: 0 };
      if (!at.r && !at.d) at = await createReport(call, marketplace);
      const done = at.d ? { d: at.d, o: at.o } : await awaitReport(call, marketplace, at, cursor);
      return 'listings' in done ? done : readPage(call, marketplace, done.d, done.o);
    },
  } satisfies Pick<ListingsAdapter, 'existing'>;
}
