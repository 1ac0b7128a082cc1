/**
 * The Reports API 2021-06-30's path an import takes past searchListingsItems' 1,000 SKUs (listings.md §3.7: "Full
 * catalogue import needs reports"): createReport of `GET_MERCHANT_LISTINGS_ALL_DATA` (202 `{reportId}`), getReport
 * (`processingStatus`, `reportDocumentId`), getReportDocument (`{reportDocumentId, url}`), and the document itself at
 * that URL, without auth and for 5 minutes as Amazon's presigned URL: tab-separated text with the All Listings
 * report's header (as Amazon's files carry it, seen in many integrations' parsers), one row per SKU and marketplace.
 *
 * ASSUMPTIONS: the report is DONE as soon as it is made (Amazon's take minutes); the document is UTF-8 and not
 * compressed (no `compressionAlgorithm`); `open-date` is written `YYYY-MM-DD HH:MM:SS UTC` (Amazon writes the
 * marketplace's local time and zone); `item-description` and `image-url` are filled (Amazon often leaves them empty);
 * a variation family's parent is a row of its own, without a price; only this report type is served.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { AmazonRegion } from '../../domain/index.js';
import type { SandboxContext } from '../context.js';
import type { SpApiGuard } from './listings-guard.js';
import { decimalOf, itemNameOf } from './listings-present.js';
import { firstValue, type ListingsStore, mainImageOf, priceOf, quantityOf, type StoredListing, textOf } from './listings-store.js';

export const REPORT_TYPE = 'GET_MERCHANT_LISTINGS_ALL_DATA';
export const REPORT_COLUMNS = [
  'item-name',
  'item-description',
  'listing-id',
  'seller-sku',
  'price',
  'quantity',
  'open-date',
  'image-url',
  'item-is-marketplace',
  'product-id-type',
  'zshop-shipping-fee',
  'item-note',
  'item-condition',
  'zshop-category1',
  'zshop-browse-path',
  'zshop-storefront-feature',
  'asin1',
  'asin2',
  'asin3',
  'will-ship-internationally',
  'expedited-shipping',
  'zshop-boldface',
  'product-id',
  'bid-for-featured-placement',
  'add-delete',
  'pending-quantity',
  'fulfillment-channel',
  'merchant-shipping-group',
  'status',
] as const;
const DOCUMENT_TTL_MS = 5 * 60_000;
/** The flat file's condition numbers (11 new, 1–4 used, 5–8 collectible, 10 refurbished). */
const CONDITION_NUMBERS: Record<string, string> = {
  new_new: '11',
  new_open_box: '11',
  new_oem: '11',
  used_like_new: '1',
  used_very_good: '2',
  used_good: '3',
  used_acceptable: '4',
  collectible_like_new: '5',
  collectible_very_good: '6',
  collectible_good: '7',
  collectible_acceptable: '8',
  refurbished_refurbished: '10',
  club_club: '11',
};

interface Report {
  reportId: string;
  sellerId: string;
  marketplaceIds: string[];
  createdTime: string;
  reportDocumentId: string;
  text: string;
}

const clean = (value: string) => value.replace(/[\t\r\n]+/g, ' ');
const openDate = (ms: number) => `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

/** One row of the All Listings report. */
function rowOf(store: ListingsStore, listing: StoredListing): string {
  const price = priceOf(listing);
  const barcode = firstValue(listing.attributes, 'externally_assigned_product_identifier');
  const barcodeType = { upc: '3', ean: '4', gtin: '4' }[String(barcode?.type)];
  const verdict = store.verdictOf(listing);
  const listingId = `${new Date(listing.createdAt).toISOString().slice(5, 10).replace('-', '')}${createHash('sha256')
    .update(`${listing.account}:${listing.marketplaceId}:${listing.sku}`)
    .digest('hex')
    .slice(0, 7)
    .toUpperCase()}`;
  const cells: Record<(typeof REPORT_COLUMNS)[number], string> = {
    'item-name': itemNameOf(store, listing),
    'item-description': textOf(listing.attributes, 'product_description') ?? '',
    'listing-id': listingId,
    'seller-sku': listing.sku,
    price: price ? decimalOf(price.amount, price.currency) : '',
    quantity: String(quantityOf(listing)),
    'open-date': openDate(listing.createdAt),
    'image-url': mainImageOf(store, listing) ?? '',
    'item-is-marketplace': 'y',
    'product-id-type': barcodeType && typeof barcode?.value === 'string' ? barcodeType : '1',
    'zshop-shipping-fee': '',
    'item-note': '',
    'item-condition': CONDITION_NUMBERS[textOf(listing.attributes, 'condition_type') ?? ''] ?? '',
    'zshop-category1': '',
    'zshop-browse-path': '',
    'zshop-storefront-feature': '',
    asin1: listing.asin,
    asin2: '',
    asin3: '',
    'will-ship-internationally': '',
    'expedited-shipping': '',
    'zshop-boldface': '',
    'product-id': barcodeType && typeof barcode?.value === 'string' ? barcode.value : listing.asin,
    'bid-for-featured-placement': '',
    'add-delete': '',
    'pending-quantity': '0',
    'fulfillment-channel': 'DEFAULT',
    'merchant-shipping-group': 'Migrated Template',
    status: verdict.status.includes('BUYABLE') ? 'Active' : 'Inactive',
  };
  return REPORT_COLUMNS.map((column) => clean(cells[column])).join('\t');
}

const reportsOf = new WeakMap<ListingsStore, { reports: Map<string, Report>; next: number }>();

function reportsFor(store: ListingsStore) {
  let found = reportsOf.get(store);
  if (!found) reportsOf.set(store, (found = { reports: new Map(), next: 50_000_000_000 }));
  return found;
}

export function registerReports(
  app: FastifyInstance,
  context: SandboxContext,
  guard: SpApiGuard,
  store: ListingsStore,
  region: AmazonRegion,
) {
  const state = reportsFor(store);
  const notFound = (id: string, what: string) => ({ code: 'NotFound', message: `The ${what} '${id}' was not found.` });

  app.post('/reports/2021-06-30/reports', async (request, reply) => {
    const caller = await guard.admit(request, reply, { operation: 'createReport', fault: 'listings' });
    if (!caller) return reply;
    const body = (request.body ?? {}) as { reportType?: unknown; marketplaceIds?: unknown };
    const ids = Array.isArray(body.marketplaceIds) ? body.marketplaceIds.map(String) : [];
    // ASSUMPTION: the wording of these 400s.
    if (body.reportType !== REPORT_TYPE)
      return guard.fail(reply, 400, 'InvalidInput', `The sandbox serves only the ${REPORT_TYPE} report type.`);
    if (ids.length === 0 || ids.some((id) => !caller.marketplaces.some((each) => each.id === id)))
      return guard.fail(
        reply,
        400,
        'InvalidInput',
        "'marketplaceIds' must name marketplaces the seller participates in through this endpoint.",
      );
    const at = context.clock.now().toISOString();
    const listings = store.ofAccount(caller.account).filter((listing) => ids.includes(listing.marketplaceId));
    const report: Report = {
      reportId: String(state.next++),
      sellerId: caller.sellerId,
      marketplaceIds: ids,
      createdTime: at,
      reportDocumentId: `amzn1.spdoc.1.4.${region.toLowerCase()}.${randomUUID()}`,
      text: [REPORT_COLUMNS.join('\t'), ...listings.map((listing) => rowOf(store, listing))].join('\n') + '\n',
    };
    state.reports.set(report.reportId, report);
    return guard.answer(reply, 'listings', { reportId: report.reportId }, 202);
  });

  app.get('/reports/2021-06-30/reports/:reportId', async (request, reply) => {
    const caller = await guard.admit(request, reply, { operation: 'getReport', fault: 'listings' });
    if (!caller) return reply;
    const id = (request.params as { reportId: string }).reportId;
    const report = state.reports.get(id);
    if (!report || report.sellerId !== caller.sellerId) return reply.code(404).send({ errors: [notFound(id, 'report')] });
    return reply.send({
      reportType: REPORT_TYPE,
      processingEndTime: report.createdTime,
      processingStatus: 'DONE',
      marketplaceIds: report.marketplaceIds,
      reportDocumentId: report.reportDocumentId,
      reportId: report.reportId,
      dataEndTime: report.createdTime,
      createdTime: report.createdTime,
      processingStartTime: report.createdTime,
      dataStartTime: report.createdTime,
    });
  });

  app.get('/reports/2021-06-30/documents/:reportDocumentId', async (request, reply) => {
    const caller = await guard.admit(request, reply, { operation: 'getReportDocument', fault: 'listings' });
    if (!caller) return reply;
    const id = (request.params as { reportDocumentId: string }).reportDocumentId;
    const report = [...state.reports.values()].find((each) => each.reportDocumentId === id && each.sellerId === caller.sellerId);
    if (!report) return reply.code(404).send({ errors: [notFound(id, 'report document')] });
    const token = context.tokens.issue('amazon-report-document', { r: report.reportId }, new Date(context.clock.nowMs() + DOCUMENT_TTL_MS));
    const url = `${context.sandboxUrl}/amazon-seller/report-documents/${encodeURIComponent(id)}?X-Amz-Expires=300&X-Amz-Signature=${token}`;
    return reply.send({ reportDocumentId: id, url });
  });
}

/** The documents at their presigned-like URLs (sandbox-wide, at the NA simulator's base); an expired link is S3's 403. */
export function registerReportDocuments(app: FastifyInstance, context: SandboxContext, store: ListingsStore) {
  const state = reportsFor(store);
  app.get('/report-documents/:reportDocumentId', async (request, reply) => {
    const signature = (request.query as { 'X-Amz-Signature'?: unknown })['X-Amz-Signature'];
    const claims = context.tokens.read('amazon-report-document', typeof signature === 'string' ? signature : '', context.clock.now());
    const report = claims ? state.reports.get(String(claims.r)) : undefined;
    if (!report || report.reportDocumentId !== (request.params as { reportDocumentId: string }).reportDocumentId)
      return reply.code(403).type('application/xml').send('<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>');
    return reply.type('text/plain; charset=utf-8').send(report.text);
  });
}
