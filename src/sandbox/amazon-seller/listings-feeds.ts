/**
 * The Feeds API 2021-06-30's `JSON_LISTINGS_FEED` (listings.md §3.10), "the bulk equivalent of the Listings Items
 * API": createFeedDocument (201 `{feedDocumentId, url}`), the feed's JSON PUT to that link with the content type it
 * was asked for, createFeed (202 `{feedId}`), getFeed (`processingStatus` IN_QUEUE, then DONE with
 * `resultFeedDocumentId`, or FATAL for a document that is no feed), getFeedDocument (the processing report's link), and
 * the documents at their links, for 5 minutes as Amazon's presigned URLs. Each `PATCH` message is applied as
 * patchListingsItem applies it; `DELETE` removes the SKU; the report's `issues` name each refused message.
 *
 * ASSUMPTIONS: a feed is processed FEED_PROCESSING_MS after it is created (Amazon's take minutes); the report is not
 * compressed; the sandbox serves `PATCH` and `DELETE` messages (`UPDATE` and `PARTIAL_UPDATE` are refused per message
 * with an issue saying so); the wording of the 400s and of the per-message issues is the sandbox's.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AmazonRegion } from '../../domain/index.js';
import type { SandboxMarketplace } from '../amazon-marketplaces.js';
import type { SandboxContext } from '../context.js';
import type { SpApiGuard } from './listings-guard.js';
import { readPatches } from './listings-patches.js';
import type { ListingsStore } from './listings-store.js';
import type { Issue } from './listings-validation.js';
import { patchSku } from './listings-writes.js';

export const FEED_TYPE = 'JSON_LISTINGS_FEED';
/** How long after its creation a feed is processed. */
export const FEED_PROCESSING_MS = 2_000;
const DOCUMENT_TTL_MS = 5 * 60_000;
/** listings.md §3.10: at most 25,000 messages a feed. */
const MESSAGES_MAX = 25_000;
/**
 * The largest feed document the sandbox takes: 25,000 messages of up to about 2 KB each. ASSUMPTION: the sandbox's
 * choice; Amazon uploads the document to S3 at the link it gives, which takes far more in one PUT.
 */
export const FEED_DOCUMENT_BYTES_MAX = 50 * 1024 * 1024;

interface FeedDocument {
  id: string;
  sellerId: string;
  contentType: string;
  text: string | null;
}

interface Feed {
  feedId: string;
  sellerId: string;
  account: number;
  marketplace: SandboxMarketplace;
  inputDocumentId: string;
  createdAt: number;
  status: 'IN_QUEUE' | 'DONE' | 'FATAL';
  processedAt?: number;
  resultDocumentId?: string;
}

interface FeedsState {
  documents: Map<string, FeedDocument>;
  feeds: Map<string, Feed>;
  next: number;
}

const feedsOf = new WeakMap<ListingsStore, FeedsState>();

function feedsFor(store: ListingsStore): FeedsState {
  let found = feedsOf.get(store);
  if (!found) feedsOf.set(store, (found = { documents: new Map(), feeds: new Map(), next: 60_000_000_000 }));
  return found;
}

const messageIssue = (code: string, message: string): Issue => ({ code, message, severity: 'ERROR', categories: [] });

/** The feed's messages applied, in order: its processing report's issues and summary. */
function processFeed(store: ListingsStore, feed: Feed, text: string) {
  let body: { header?: { sellerId?: unknown; version?: unknown }; messages?: unknown };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return null;
  }
  if (body.header?.version !== '2.0' || body.header.sellerId !== feed.sellerId || !Array.isArray(body.messages)) return null;
  if (body.messages.length === 0 || body.messages.length > MESSAGES_MAX) return null;
  const issues: (Issue & { messageId: number; sku: string })[] = [];
  let accepted = 0;
  for (const raw of body.messages as Record<string, unknown>[]) {
    const messageId = Number(raw?.messageId);
    const sku = typeof raw?.sku === 'string' ? raw.sku : '';
    const refuse = (issue: Issue) => issues.push({ messageId, sku, ...issue });
    if (!Number.isInteger(messageId) || messageId < 1 || sku === '') {
      refuse(messageIssue('4000003', 'The message must have a messageId of 1 or more and a sku.'));
      continue;
    }
    const at = { account: feed.account, marketplace: feed.marketplace, sku, preview: false };
    if (raw.operationType === 'DELETE') {
      const listing = store.get(feed.account, feed.marketplace.id, sku);
      if (listing) store.remove(listing);
      accepted++;
      continue;
    }
    if (raw.operationType !== 'PATCH') {
      refuse(messageIssue('4000004', `The sandbox serves PATCH and DELETE messages only, not ${String(raw.operationType)}.`));
      continue;
    }
    const patches = readPatches(raw.patches);
    if (typeof patches === 'string') {
      refuse(messageIssue('4000001', patches));
      continue;
    }
    const patched = patchSku(store, at, patches);
    for (const issue of patched.issues) refuse(issue);
    if (!patched.issues.some((issue) => issue.severity === 'ERROR')) accepted++;
  }
  const processed = body.messages.length;
  return {
    issues,
    summary: {
      errors: issues.filter((issue) => issue.severity === 'ERROR').length,
      warnings: issues.filter((issue) => issue.severity !== 'ERROR').length,
      messagesProcessed: processed,
      messagesAccepted: accepted,
      messagesInvalid: processed - accepted,
    },
  };
}

export function registerFeeds(
  app: FastifyInstance,
  context: SandboxContext,
  guard: SpApiGuard,
  store: ListingsStore,
  region: AmazonRegion,
) {
  const state = feedsFor(store);
  const notFound = (id: string, what: string) => ({
    errors: [{ code: 'NotFound', message: `The ${what} '${id}' was not found.`, details: '' }],
  });
  const link = (documentId: string) => {
    const token = context.tokens.issue('amazon-feed-document', { d: documentId }, new Date(context.clock.nowMs() + DOCUMENT_TTL_MS));
    return `${context.sandboxUrl}/amazon-seller/feed-documents/${encodeURIComponent(documentId)}?X-Amz-Expires=300&X-Amz-Signature=${token}`;
  };
  const newDocument = (sellerId: string, contentType: string, text: string | null) => {
    const document: FeedDocument = { id: `amzn1.tortuga.4.${region.toLowerCase()}.${randomUUID()}`, sellerId, contentType, text };
    state.documents.set(document.id, document);
    return document;
  };

  /** Processes the feed once it is due (the clock decides: getFeed, or the timer set at its creation, finds it so). */
  const settle = (feed: Feed) => {
    if (feed.status !== 'IN_QUEUE' || context.clock.nowMs() < feed.createdAt + FEED_PROCESSING_MS) return;
    const report = processFeed(store, feed, state.documents.get(feed.inputDocumentId)?.text ?? '');
    feed.processedAt = context.clock.nowMs();
    if (!report) {
      feed.status = 'FATAL';
      return;
    }
    const header = { sellerId: feed.sellerId, version: '2.0', feedId: feed.feedId };
    feed.resultDocumentId = newDocument(feed.sellerId, 'application/json', JSON.stringify({ header, ...report })).id;
    feed.status = 'DONE';
  };

  app.post('/feeds/2021-06-30/documents', async (request, reply) => {
    const caller = await guard.admit(request, reply, { operation: 'createFeedDocument', fault: 'listings' });
    if (!caller) return reply;
    const contentType = (request.body as { contentType?: unknown } | undefined)?.contentType;
    if (typeof contentType !== 'string' || contentType.trim() === '')
      return guard.fail(reply, 400, 'InvalidInput', "Missing required 'contentType'.");
    const document = newDocument(caller.sellerId, contentType, null);
    return guard.answer(reply, 'listings', { feedDocumentId: document.id, url: link(document.id) }, 201);
  });

  app.post('/feeds/2021-06-30/feeds', async (request, reply) => {
    const caller = await guard.admit(request, reply, { operation: 'createFeed', fault: 'listings' });
    if (!caller) return reply;
    const body = (request.body ?? {}) as { feedType?: unknown; marketplaceIds?: unknown; inputFeedDocumentId?: unknown };
    if (body.feedType !== FEED_TYPE) return guard.fail(reply, 400, 'InvalidInput', `The sandbox serves only the ${FEED_TYPE} feed type.`);
    const ids = Array.isArray(body.marketplaceIds) ? body.marketplaceIds.map(String) : [];
    const marketplace = ids.length === 1 ? caller.marketplaces.find((each) => each.id === ids[0]) : undefined;
    if (!marketplace)
      return guard.fail(
        reply,
        400,
        'InvalidInput',
        "'marketplaceIds' must name one marketplace the seller participates in through this endpoint.",
      );
    const document = state.documents.get(String(body.inputFeedDocumentId));
    if (!document || document.sellerId !== caller.sellerId || document.text === null)
      return guard.fail(reply, 400, 'InvalidInput', "'inputFeedDocumentId' names no uploaded feed document of this seller.");
    const feed: Feed = {
      feedId: String(state.next++),
      sellerId: caller.sellerId,
      account: caller.account,
      marketplace,
      inputDocumentId: document.id,
      createdAt: context.clock.nowMs(),
      status: 'IN_QUEUE',
    };
    state.feeds.set(feed.feedId, feed);
    setTimeout(() => settle(feed), FEED_PROCESSING_MS + 10).unref();
    return guard.answer(reply, 'listings', { feedId: feed.feedId }, 202);
  });

  app.get('/feeds/2021-06-30/feeds/:feedId', async (request, reply) => {
    const caller = await guard.admit(request, reply, { operation: 'getFeed', fault: 'listings' });
    if (!caller) return reply;
    const id = (request.params as { feedId: string }).feedId;
    const feed = state.feeds.get(id);
    if (!feed || feed.sellerId !== caller.sellerId) return reply.code(404).send(notFound(id, 'feed'));
    settle(feed);
    const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
    return reply.send({
      feedId: feed.feedId,
      feedType: FEED_TYPE,
      marketplaceIds: [feed.marketplace.id],
      createdTime: iso(feed.createdAt),
      processingStatus: feed.status,
      ...(feed.processedAt === undefined ? {} : { processingStartTime: iso(feed.processedAt), processingEndTime: iso(feed.processedAt) }),
      ...(feed.resultDocumentId ? { resultFeedDocumentId: feed.resultDocumentId } : {}),
    });
  });

  app.get('/feeds/2021-06-30/documents/:feedDocumentId', async (request, reply) => {
    const caller = await guard.admit(request, reply, { operation: 'getFeedDocument', fault: 'listings' });
    if (!caller) return reply;
    const id = (request.params as { feedDocumentId: string }).feedDocumentId;
    const document = state.documents.get(id);
    if (!document || document.sellerId !== caller.sellerId) return reply.code(404).send(notFound(id, 'feed document'));
    return reply.send({ feedDocumentId: id, url: link(id) });
  });
}

/** The documents at their presigned-like links (sandbox-wide, at the NA simulator's base): a feed uploaded, a report read. */
export function registerFeedDocuments(app: FastifyInstance, context: SandboxContext, store: ListingsStore) {
  const state = feedsFor(store);
  const denied = (reply: FastifyReply) =>
    reply.code(403).type('application/xml').send('<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>');
  const documentOf = (request: FastifyRequest) => {
    const signature = (request.query as { 'X-Amz-Signature'?: unknown })['X-Amz-Signature'];
    const claims = context.tokens.read('amazon-feed-document', typeof signature === 'string' ? signature : '', context.clock.now());
    const document = claims ? state.documents.get(String(claims.d)) : undefined;
    return document && document.id === (request.params as { feedDocumentId: string }).feedDocumentId ? document : null;
  };
  void app.register(async (scope) => {
    // The upload is the feed's bytes as they are, in the content type its document was asked for.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    // The document's own size limit, not the API's (BODY_LIMIT_BYTES, 64 KB by default): S3 takes a feed of 25,000
    // messages whole, and a price change of 1,000 listings is about 600 KB.
    scope.put('/feed-documents/:feedDocumentId', { bodyLimit: FEED_DOCUMENT_BYTES_MAX }, async (request, reply) => {
      const document = documentOf(request);
      if (!document || document.text !== null) return denied(reply);
      // S3 signs the link for the content type asked for: another is refused.
      if (request.headers['content-type'] !== document.contentType)
        return reply
          .code(403)
          .type('application/xml')
          .send(
            '<Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match the signature you provided.</Message></Error>',
          );
      document.text = String(request.body ?? '');
      return reply.code(200).send();
    });
    scope.get('/feed-documents/:feedDocumentId', async (request, reply) => {
      const document = documentOf(request);
      if (!document || document.text === null) return denied(reply);
      return reply.type(document.contentType).send(document.text);
    });
  });
}
