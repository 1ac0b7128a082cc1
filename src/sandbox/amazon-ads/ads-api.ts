/**
 * The sandbox Amazon Ads' campaign management and reporting (listings.md §4, DESIGN §13), registered by each region's
 * simulator: Sponsored Products v3 (sp-api.ts) and reporting v3 (reporting.ts) behind the guard (guard.ts), the report
 * files at their links (report-files.ts), and, once at NA's base, the sandbox's inspection and limits. One store holds
 * every region's entities, since profile ids are unique across regions.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import type { AmazonRegion } from '../../domain/index.js';
import type { SandboxContext } from '../context.js';
import type { LwaSimulator } from '../lwa/simulator.js';
import { createAdsGuard } from './guard.js';
import { registerReportFiles } from './report-files.js';
import { registerReporting } from './reporting.js';
import { registerAdsSandboxRoutes } from './sandbox-routes.js';
import { registerSponsoredProducts } from './sp-api.js';
import { ADS_FAULT_ANSWERS, adsError } from './sp-errors.js';
import { adsStoreOf } from './sp-store.js';

// A batch of 1000 items is well within this; the app's own limit (64 KiB by default) is for Storelink's API.
const BODY_LIMIT = 4 * 1024 * 1024;
const VENDOR_JSON = [/^application\/vnd\.sp[a-z]+\.v3\+json/i, /^application\/vnd\.createasyncreportrequest\.v3\+json/i];

/** `base` is the region's sandbox URL (`<app url>/sandbox/amazon-ads[/eu|/fe]`), where its report files are linked. */
export function registerAmazonAdsApi(app: FastifyInstance, context: SandboxContext, region: AmazonRegion, lwa: LwaSimulator, base: string) {
  const store = adsStoreOf(context);
  const guard = createAdsGuard(context, lwa, region);
  void app.register(async (api) => {
    answerAsAdsApi(api);
    registerSponsoredProducts(api, guard, store);
    registerReporting(api, context, guard, store, base);
  });
  registerReportFiles(app, context);
  if (region === 'NA') registerAdsSandboxRoutes(app, context, store);
}

/**
 * The Ads scope's bodies and errors: the vendor media types are JSON here only (the main API stays JSON-only); any
 * other body is kept as text so the guard answers its 415 after the auth checks, as Amazon's gateway would; a body or
 * error the scope cannot take is answered in the Ads API's `{code, details}`. ASSUMPTION: those codes and words.
 */
function answerAsAdsApi(scope: FastifyInstance) {
  for (const type of VENDOR_JSON)
    scope.addContentTypeParser(type, { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_request, body, done) => {
      if (String(body).trim() === '') return done(null, undefined);
      try {
        done(null, JSON.parse(String(body)));
      } catch {
        done(Object.assign(new Error('The request body is not valid JSON'), { statusCode: 400 }), undefined);
      }
    });
  scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_request, body, done) => done(null, body));
  scope.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status === 413) return reply.code(413).send(adsError('REQUEST_ENTITY_TOO_LARGE', 'The request body is too large'));
    if (status < 500) return reply.code(status).send(adsError('INVALID_ARGUMENT', error.message));
    request.log.error({ err: error }, 'the sandbox Amazon Ads failed');
    return reply.code(500).send(ADS_FAULT_ANSWERS.error);
  });
}
