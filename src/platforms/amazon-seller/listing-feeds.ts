/**
 * Bulk changes as one `JSON_LISTINGS_FEED` (Feeds API 2021-06-30, listings.md §3.10): a feed document asked for, the
 * feed's JSON uploaded to the link Amazon gives, the feed created from it, and its processing report read once Amazon
 * is done. Each message is one SKU's PATCH, as patchListingsItem would send it; the report's issues name the messages
 * Amazon refused. createFeed's plan is one call every two minutes (burst 15): the engine gathers a site's changes into
 * one feed rather than one a listing.
 */
import { gunzipSync } from 'node:zlib';
import Type from 'typebox';
import { PlatformError } from '../contracts/errors.js';
import type { BulkFeeds, FeedOutcome, ListingsCall } from '../contracts/listings.js';
import { parseBody } from '../parse.js';
import { marketplaceOf } from './listing-requests.js';
import { issuesOf, reader } from './listing-responses.js';
import type { AmazonListingsDeps, SpApi } from './sp-api.js';

const FEEDS = '/feeds/2021-06-30';
/** listings.md §3.10: a JSON_LISTINGS_FEED carries at most 25,000 messages; Amazon ends a larger one FATAL. */
export const FEED_MESSAGES_MAX = 25_000;
/** The feed's content type, named when the document is asked for and sent with the upload (its link is signed for it). */
const CONTENT_TYPE = 'application/json; charset=UTF-8';

const FeedDocument = Type.Object({ feedDocumentId: Type.String({ minLength: 1 }), url: Type.String({ minLength: 1 }) });
const CreatedFeed = Type.Object({ feedId: Type.String({ minLength: 1 }) });
const Feed = Type.Object({ processingStatus: Type.String(), resultFeedDocumentId: Type.Optional(Type.String()) });
const ResultDocument = Type.Object({
  url: Type.String({ minLength: 1 }),
  compressionAlgorithm: Type.Optional(Type.String()),
});
const ProcessingReport = Type.Object({
  issues: Type.Optional(
    Type.Array(
      Type.Object({
        messageId: Type.Optional(Type.Number()),
        sku: Type.Optional(Type.String()),
        code: Type.String(),
        message: Type.String(),
        severity: Type.String(),
        attributeName: Type.Optional(Type.String()),
      }),
    ),
  ),
});

/** The bulk feeds of one adapter, through its SP-API caller; `offerChange` is the delivery's. */
export function createListingFeeds({ send }: SpApi, deps: Pick<AmazonListingsDeps, 'http'>, offerChange: BulkFeeds['offerChange']) {
  const marketplace = (id: string) => {
    const found = marketplaceOf(id);
    if (!found) throw new PlatformError('misconfigured', `Storelink does not know the Amazon marketplace ${id}.`);
    return found;
  };

  /** Reads a document at Amazon's link: the bytes, unzipped where Amazon compressed them. */
  async function download(call: ListingsCall, url: string, compression: string | undefined): Promise<Buffer> {
    const answer = await deps.http.request(url, { method: 'GET', signal: call.signal, read: 'bytes' });
    if (answer.status !== 200) throw new PlatformError('unavailable', `Amazon's feed document answered HTTP ${answer.status}`);
    return compression === 'GZIP' ? gunzipSync(answer.body as Buffer) : (answer.body as Buffer);
  }

  return {
    messagesMax: FEED_MESSAGES_MAX,
    offerChange,
    async submit(call, marketplaceId, messages) {
      const where = marketplace(marketplaceId);
      const document = await send(call, where, 'createFeedDocument', 'POST', `${FEEDS}/documents`, reader(FeedDocument), {
        json: { contentType: CONTENT_TYPE },
      });
      const feed = {
        header: { sellerId: call.externalId, version: '2.0', issueLocale: where.language },
        messages: messages.map((message, index) => ({ messageId: index + 1, ...message })),
      };
      const upload = await deps.http.request(document.url, {
        method: 'PUT',
        headers: { 'content-type': CONTENT_TYPE },
        json: feed,
        signal: call.signal,
        read: 'bytes',
      });
      if (upload.status !== 200) throw new PlatformError('unavailable', `Amazon's feed upload answered HTTP ${upload.status}`);
      const created = await send(call, where, 'createFeed', 'POST', `${FEEDS}/feeds`, reader(CreatedFeed), {
        json: { feedType: 'JSON_LISTINGS_FEED', marketplaceIds: [marketplaceId], inputFeedDocumentId: document.feedDocumentId },
      });
      return created.feedId;
    },
    async outcome(call, marketplaceId, feedId): Promise<FeedOutcome> {
      const where = marketplace(marketplaceId);
      const feed = await send(call, where, 'getFeed', 'GET', `${FEEDS}/feeds/${encodeURIComponent(feedId)}`, reader(Feed));
      if (feed.processingStatus === 'CANCELLED' || feed.processingStatus === 'FATAL')
        return { failed: true, reason: `Amazon's feed ${feedId} ended ${feed.processingStatus}` };
      if (feed.processingStatus !== 'DONE' || !feed.resultFeedDocumentId) return null;
      const path = `${FEEDS}/documents/${encodeURIComponent(feed.resultFeedDocumentId)}`;
      const result = await send(call, where, 'getFeedDocument', 'GET', path, reader(ResultDocument));
      const bytes = await download(call, result.url, result.compressionAlgorithm);
      let report: unknown;
      try {
        report = JSON.parse(new TextDecoder().decode(bytes));
      } catch {
        throw new PlatformError('unavailable', `Amazon's processing report of feed ${feedId} is not JSON`);
      }
      const parsed = parseBody(ProcessingReport, report);
      if (!parsed) throw new PlatformError('unavailable', `Amazon's processing report of feed ${feedId} has an unexpected shape`);
      const refusals = new Map<number, ReturnType<typeof issuesOf>>();
      for (const issue of parsed.issues ?? []) {
        if (issue.severity !== 'ERROR' || issue.messageId === undefined) continue;
        const index = issue.messageId - 1;
        const named = issuesOf(
          [{ ...issue, ...(issue.attributeName ? { attributeNames: [issue.attributeName] } : {}) }],
          issue.sku ? `${issue.sku}: ` : '',
        );
        refusals.set(index, [...(refusals.get(index) ?? []), ...named]);
      }
      return { failed: false, refusals };
    },
  } satisfies BulkFeeds;
}
