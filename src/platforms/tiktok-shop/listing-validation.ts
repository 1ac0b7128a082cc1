/**
 * A listing checked before it is sent (listings.md §2.6): whether the shop may list at all (Check Prerequisites),
 * TikTok's rules and the category's that Storelink checks itself, and Check Product Listing, the dry run behind
 * `mode: "validate"`.
 */
import type { Static } from 'typebox';
import type { ListingIssue } from '../../domain/index.js';
import { ListingRefused } from '../contracts/errors.js';
import type { ListingDraft, ListingsAdapter, ListingsCall } from '../contracts/listings.js';
import type { TikTokCategories } from './categories.js';
import type { CategoryRules } from './category-rules.js';
import { contentBody, skusBody } from './listing-requests.js';
import { categoryAttributesOf, ListingCheck, Prerequisites, platformIssue, reader, type TikTokAttribute } from './listing-responses.js';
import { checkCertifications, checkEmptyChoices, checkTikTokDraft } from './listing-rules.js';
import { type OpenApi, PRODUCT_API, type TikTokListingsDeps, warehouseOf } from './open-api.js';

/** How long a shop found ready to list is taken as ready (a publish of many products asks once). */
const READY_TTL_MS = 10 * 60_000;
/**
 * TikTok's "main image required" and "required qualification miss": the dry run is sent without images and
 * certificates (uploading them is no dry run), and Storelink checked both itself.
 */
const NOT_SENT_IN_A_DRY_RUN: ReadonlySet<string> = new Set(['12052028', '12052105']);

/** Check Product Listing's answer as issues: its failures but the missing images and certificates, and its diagnoses as warnings. */
function listingCheckIssues(checked: Static<typeof ListingCheck>): ListingIssue[] {
  const failures = (checked.fail_reasons ?? []).filter((reason) => !NOT_SENT_IN_A_DRY_RUN.has(String(reason.code)));
  const diagnoses = (checked.diagnoses ?? []).flatMap((d) =>
    (d.diagnosis_results ?? []).map((result) =>
      platformIssue(
        result.code ?? 'diagnosis',
        result.how_to_solve ?? 'TikTok Shop suggests improving this field.',
        d.field ?? null,
        'warning',
      ),
    ),
  );
  return [...failures.map((reason) => platformIssue(reason.code ?? 'check_failed', reason.message, null)), ...diagnoses];
}

/** The checks of one adapter. */
export function createListingValidation(
  { send }: OpenApi,
  categories: Pick<TikTokCategories, 'rawAttributes'>,
  rules: CategoryRules,
  deps: Pick<TikTokListingsDeps, 'clock'>,
) {
  // When each shop (by cipher) was last found ready to list.
  const readyAt = new Map<string, number>();

  /** A certification the rules require and the listing names no file for refuses the product before it is sent. */
  async function refuseUncertified(call: ListingsCall, draft: ListingDraft, attributes: readonly TikTokAttribute[]) {
    const issues = checkCertifications(await rules.rulesOf(call, draft.categoryId), draft, categoryAttributesOf(attributes));
    if (issues.length > 0) throw new ListingRefused(issues);
  }

  const checks = {
    /**
     * Check Prerequisites: each failed item is an issue of the site in TikTok's words. A shop found ready is taken as
     * ready for ten minutes (a publish of many products asks once); one that is not is asked again every time.
     */
    async readiness(call) {
      const key = String(call.data.cipher);
      const now = deps.clock.nowMs();
      if ((readyAt.get(key) ?? Number.NEGATIVE_INFINITY) > now - READY_TTL_MS) return [];
      const { check_results: results } = await send(call, 'GET', '/product/202312/prerequisites', reader(Prerequisites));
      const failed = results.filter((result) => result.is_failed);
      if (failed.length === 0) readyAt.set(key, now);
      return failed.map((result) => {
        const reasons = (result.fail_reasons ?? []).join(' ') || 'see Seller Center.';
        return platformIssue(
          result.check_item,
          `TikTok Shop says the shop cannot list products yet (${result.check_item}): ${reasons}`,
          null,
        );
      });
    },

    /** TikTok's rules on the product, then the category's as categoryAttributes() read them for the shop just before. */
    check: (draft, attributes, call) => [
      ...checkTikTokDraft(draft),
      ...checkCertifications(rules.knownRules(call, draft.categoryId), draft, attributes),
      ...checkEmptyChoices(draft, attributes),
    ],

    /**
     * Check Product Listing (listings.md §2.6) on the product as it would be created, without its images and
     * certificates: uploading them is not a dry run, and Storelink checked them itself, so TikTok's "main image
     * required" and "required qualification miss" are not repeated.
     */
    async validate(call, draft) {
      const attributes = (await categories.rawAttributes(call, draft.categoryId)) ?? [];
      const body = { ...contentBody(draft, [], attributes), skus: skusBody(draft, warehouseOf(call), attributes, {}, true) };
      const checked = await send(call, 'POST', `${PRODUCT_API}/products/listing_check`, reader(ListingCheck), { json: body });
      return listingCheckIssues(checked);
    },
  } satisfies Pick<ListingsAdapter, 'readiness' | 'check' | 'validate'>;

  return { refuseUncertified, ...checks };
}

export type TikTokListingValidation = ReturnType<typeof createListingValidation>;
