/**
 * The Listings Items API's writes (listings.md §3.3–3.6): putListingsItem (create or fully replace a SKU in one
 * marketplace), patchListingsItem (JSON Patch of top-level attributes) and deleteListingsItem, each answering the
 * submission response `{sku, status, submissionId, issues, identifiers}`: INVALID with issues (nothing stored),
 * VALID with `mode=VALIDATION_PREVIEW` (nothing stored), or ACCEPTED (stored, processed after the review time).
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SandboxMarketplace } from '../amazon-marketplaces.js';
import { type Caller, listOf, type SpApiGuard } from './listings-guard.js';
import { applyPatches, type Patch, readPatches } from './listings-patches.js';
import type { ListingsStore } from './listings-store.js';
import { checkPatch, checkPut, selectorsOf } from './listings-submissions.js';
import type { Issue } from './listings-validation.js';
import { productTypeOf, REQUIREMENTS, type Requirements } from './product-types.js';

export const ITEM_PATH = '/listings/2021-08-01/items/:sellerId/:sku';
const WRITE_INCLUDED = ['identifiers', 'issues'] as const;

/** The offer's attributes: a patch of these alone changes what a SKU sells for and how many, not the product. */
const OFFER_ATTRIBUTES = new Set(['purchasable_offer', 'fulfillment_availability']);
type WriteIncluded = (typeof WRITE_INCLUDED)[number];
type Params = { sellerId: string; sku: string };

/**
 * ASSUMPTION: the code for a SKU that does not exist in the marketplace, which patchListingsItem and deleteListingsItem
 * answer as INVALID (the model gives neither call a 404); the wording is getListingsItem's 404's.
 */
const notFoundIssue = (sku: string, marketplaceId: string): Issue => ({
  code: 'NOT_FOUND',
  message: `SKU '${sku}' not found in marketplace ${marketplaceId}`,
  severity: 'ERROR',
  categories: [],
});

/**
 * A SKU's patches applied as patchListingsItem applies them (and a JSON_LISTINGS_FEED's PATCH message): its issues
 * (nothing stored), or stored unless `preview`. The SKU's ASIN either way.
 */
export function patchSku(
  store: ListingsStore,
  at: { account: number; marketplace: SandboxMarketplace; sku: string; preview: boolean },
  patches: readonly Patch[],
): { issues: Issue[]; asin?: string } {
  const listing = store.get(at.account, at.marketplace.id, at.sku);
  if (!listing) return { issues: [notFoundIssue(at.sku, at.marketplace.id)] };
  const type = productTypeOf(listing.productType)!;
  const patched = applyPatches(listing.attributes, patches, selectorsOf(type, at.marketplace));
  const checked = checkPatch(store, listing, type, at.marketplace, patched);
  if (checked.issues.length > 0 || at.preview) return checked;
  // ASSUMPTION: a change of the offer alone (price, stock) on a SKU Amazon has processed is no new review of the
  // product; the sandbox applies it at once, so a listing switched back on by its stock is buyable again at once (its
  // ads resume within DESIGN §13's 30 s), not after SANDBOX_REVIEW_SECONDS. A SKU still in review stays in it.
  const offerOnly = patches.every((patch) => OFFER_ATTRIBUTES.has(patch.attribute)) && !store.inReview(listing);
  store.accept({ ...listing, attributes: checked.attributes, asin: checked.asin }, { settled: offerOnly });
  return checked;
}

interface WriteContext {
  caller: Caller;
  marketplace: SandboxMarketplace;
  included: WriteIncluded[];
  preview: boolean;
  sku: string;
}

export function registerListingsWrites(app: FastifyInstance, guard: SpApiGuard, store: ListingsStore) {
  /** Admits the call and reads its query; the write's context, or null once an answer was sent. */
  const admitWrite = async (
    request: FastifyRequest,
    reply: FastifyReply,
    operation: 'putListingsItem' | 'patchListingsItem' | 'deleteListingsItem',
  ) => {
    const { sellerId, sku } = request.params as Params;
    const caller = await guard.admit(request, reply, { operation, fault: 'listing', sellerId });
    if (!caller) return null;
    const marketplace = guard.marketplacesOf(reply, caller, 1)?.[0];
    if (!marketplace) return null;
    const included = listOf(caller.query.includedData, WRITE_INCLUDED, ['issues']);
    if (operation !== 'deleteListingsItem' && !included)
      return (void guard.fail(reply, 400, 'InvalidInput', `includedData may only hold ${WRITE_INCLUDED.join(', ')}.`), null);
    const mode = caller.query.mode;
    if (operation !== 'deleteListingsItem' && mode !== undefined && mode !== 'VALIDATION_PREVIEW')
      return (void guard.fail(reply, 400, 'InvalidInput', "mode may only be 'VALIDATION_PREVIEW'."), null);
    const context: WriteContext = { caller, marketplace, included: included ?? ['issues'], preview: mode === 'VALIDATION_PREVIEW', sku };
    return context;
  };

  const submission = (write: WriteContext, status: 'ACCEPTED' | 'INVALID' | 'VALID', issues: Issue[], asin?: string) => ({
    sku: write.sku,
    status,
    submissionId: randomUUID().replaceAll('-', ''),
    ...(write.included.includes('issues') ? { issues } : {}),
    ...(write.included.includes('identifiers') ? { identifiers: asin ? [{ marketplaceId: write.marketplace.id, asin }] : [] } : {}),
  });

  /** The body as a JSON object, or null once a 400 was answered. */
  const bodyOf = (request: FastifyRequest, reply: FastifyReply): Record<string, unknown> | null => {
    const body = request.body;
    if (typeof body === 'object' && body !== null && !Array.isArray(body)) return body as Record<string, unknown>;
    return (void guard.fail(reply, 400, 'InvalidInput', 'The request body must be a JSON object.'), null);
  };

  app.put(ITEM_PATH, async (request, reply) => {
    const write = await admitWrite(request, reply, 'putListingsItem');
    const body = write && bodyOf(request, reply);
    if (!write || !body) return reply;
    const type = productTypeOf(body.productType);
    const requirements = (body.requirements ?? 'LISTING') as Requirements;
    // ASSUMPTION: an unknown product type or requirements set, or attributes that are no object, is a 400.
    if (!type) return guard.fail(reply, 400, 'InvalidInput', `Invalid 'productType': ${String(body.productType)} is not a product type.`);
    if (!REQUIREMENTS.includes(requirements))
      return guard.fail(reply, 400, 'InvalidInput', `'requirements' must be one of ${REQUIREMENTS.join(', ')}.`);
    const raw = body.attributes;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
      return guard.fail(reply, 400, 'InvalidInput', "'attributes' must be a JSON object.");
    const { account } = write.caller;
    const checked = checkPut(
      store,
      { account, sku: write.sku, marketplace: write.marketplace, preview: write.preview },
      type,
      requirements,
      raw as Record<string, unknown>,
    );
    if (checked.issues.length > 0) return reply.send(submission(write, 'INVALID', checked.issues));
    if (write.preview) return reply.send(submission(write, 'VALID', [], checked.asin));
    store.accept({
      account,
      marketplaceId: write.marketplace.id,
      sku: write.sku,
      productType: type.name,
      requirements,
      attributes: checked.attributes,
      asin: checked.asin,
    });
    return guard.answer(reply, 'listing', submission(write, 'ACCEPTED', [], checked.asin));
  });

  app.patch(ITEM_PATH, async (request, reply) => {
    const write = await admitWrite(request, reply, 'patchListingsItem');
    const body = write && bodyOf(request, reply);
    if (!write || !body) return reply;
    if (!productTypeOf(body.productType))
      return guard.fail(reply, 400, 'InvalidInput', `Invalid 'productType': ${String(body.productType)} is not a product type.`);
    const patches = readPatches(body.patches);
    if (typeof patches === 'string') return guard.fail(reply, 400, 'InvalidInput', patches);
    const { account } = write.caller;
    const patched = patchSku(store, { account, marketplace: write.marketplace, sku: write.sku, preview: write.preview }, patches);
    if (patched.issues.length > 0) return reply.send(submission(write, 'INVALID', patched.issues));
    if (write.preview) return reply.send(submission(write, 'VALID', [], patched.asin));
    return guard.answer(reply, 'listing', submission(write, 'ACCEPTED', [], patched.asin));
  });

  app.delete(ITEM_PATH, async (request, reply) => {
    const write = await admitWrite(request, reply, 'deleteListingsItem');
    if (!write) return reply;
    const listing = store.get(write.caller.account, write.marketplace.id, write.sku);
    if (!listing) return reply.send(submission(write, 'INVALID', [notFoundIssue(write.sku, write.marketplace.id)]));
    store.remove(listing);
    return guard.answer(reply, 'listing', submission(write, 'ACCEPTED', []));
  });
}
