/**
 * The sandbox Amazon's listings (DESIGN §10 "Sandbox", listings.md §3), registered by each region's seller
 * simulator: the Product Type Definitions API, the Listings Items API and the All Listings report on the region's
 * SP-API host, and, once at NA's base (`/sandbox/amazon-seller`), what the sandbox serves for all regions: the
 * schemas, report documents and images at their links, the inspection, the seller's edits and the usage plans'
 * multiplier. One store holds every region's listings.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import type { AmazonRegion } from '../../domain/index.js';
import { SANDBOX_MARKETPLACES } from '../amazon-marketplaces.js';
import type { SandboxContext } from '../context.js';
import type { LwaSimulator } from '../lwa/simulator.js';
import { registerDefinitions, registerSchemaHosting } from './listings-definitions.js';
import { registerFeedDocuments, registerFeeds } from './listings-feeds.js';
import { createSpApiGuard, spApiErrors } from './listings-guard.js';
import { registerListingsReads } from './listings-reads.js';
import { registerReportDocuments, registerReports } from './listings-reports.js';
import { registerSandboxRoutes } from './listings-sandbox.js';
import { type StockChoice, stockAccount } from './listings-stock.js';
import { amazonListingsOf } from './listings-store.js';
import { registerListingsWrites } from './listings-writes.js';

/** Registers the region's listing APIs; answers how to stock an account with listings made outside Storelink. */
export function registerAmazonListingsApi(app: FastifyInstance, context: SandboxContext, region: AmazonRegion, lwa: LwaSimulator) {
  const store = amazonListingsOf(context);
  const guard = createSpApiGuard(context, lwa, region);
  void app.register(async (spApi) => {
    answerAsSpApi(spApi);
    registerDefinitions(spApi, guard, `${context.sandboxUrl}/amazon-seller/schemas`);
    registerListingsWrites(spApi, guard, store);
    registerListingsReads(spApi, guard, store);
    registerReports(spApi, context, guard, store, region);
    registerFeeds(spApi, context, guard, store, region);
  });
  if (region === 'NA') {
    registerSchemaHosting(app);
    registerReportDocuments(app, context, store);
    registerFeedDocuments(app, context, store);
    registerSandboxRoutes(app, context, store);
  }
  return {
    /** Stocks the account in the region's first marketplace, once. */
    stock: (account: number, choice: StockChoice) =>
      stockAccount(store, account, SANDBOX_MARKETPLACES[region][0]!, choice, context.clock.nowMs()),
  };
}

/**
 * The SP-API scope's body parsing and errors: a JSON body may be empty (a DELETE sent with a JSON content type), and
 * a body or content type the scope cannot take is answered as an ErrorList, not in Storelink's own error shape.
 * ASSUMPTION: the codes and wording of the 400, 413 and 415 (the model lists those statuses with ErrorList bodies).
 */
function answerAsSpApi(scope: FastifyInstance) {
  scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    if (String(body).trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(String(body)));
    } catch {
      done(Object.assign(new Error('The request body is not valid JSON.'), { statusCode: 400 }), undefined);
    }
  });
  scope.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status === 413) return reply.code(413).send(spApiErrors('RequestEntityTooLarge', 'The request body is too large.'));
    if (status === 415)
      return reply.code(415).send(spApiErrors('UnsupportedMediaType', 'The Content-Type of the request must be application/json.'));
    if (status < 500) return reply.code(status).send(spApiErrors('InvalidInput', error.message));
    request.log.error({ err: error }, 'the sandbox Amazon failed');
    return reply.code(500).send(spApiErrors('InternalFailure', 'We encountered an internal error. Please try again.'));
  });
}
