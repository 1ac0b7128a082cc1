/**
 * Sponsored Products product ads (listings.md §4): `{campaignId, adGroupId, sku, state}` in an ad group of that campaign.
 * A seller's profile names the SKU; an `asin` is a vendor's, refused for a seller (every sandbox profile is a seller's).
 * A SKU already advertised in the ad group is refused (ASSUMPTION: `duplicateValueError`; whether Amazon answers the
 * existing ad instead is UNCONFIRMED). The sandbox does not check that the SKU is listed in the marketplace.
 */
import { asinFor } from '../amazon-seller/listings-store.js';
import { SETTABLE_STATES } from './sp-campaigns.js';
import { duplicateValue, otherError } from './sp-errors.js';
import { parentsOf, type SpResource } from './sp-resource.js';

// ASSUMPTION: Seller Central's limit on a SKU's length.
const SKU_MAX = 40;

export const PRODUCT_ADS: SpResource<'productAd'> = {
  kind: 'productAd',
  entityType: 'PRODUCT_AD',
  path: '/sp/productAds',
  media: 'application/vnd.spProductAd.v3+json',
  key: 'productAds',
  idField: 'adId',
  one: 'productAd',
  endpoint: 'sp-product-ads',
  idFilter: 'adIdFilter',
  filters: { campaignIdFilter: 'campaignId', adGroupIdFilter: 'adGroupId', adIdFilter: 'id', stateFilter: 'state' },

  create(fields, scope) {
    const parents = parentsOf(fields, scope, true);
    // ASSUMPTION: the error type and wording of an ASIN sent for a seller's profile.
    if (fields.has('asin'))
      fields.fail(otherError({ location: fields.at('asin') }, 'asin is for vendors: a seller profile advertises its products by sku'));
    const sku = fields.text('sku', { required: !fields.has('asin'), max: SKU_MAX });
    const state = fields.choice('state', SETTABLE_STATES);
    const adGroup = parents?.adGroup;
    const advertised = scope.store
      .all('productAd', scope.caller.profileId)
      .some((ad) => ad.adGroupId === adGroup?.id && ad.state !== 'ARCHIVED' && ad.sku === sku);
    if (advertised)
      fields.fail(
        duplicateValue({ location: fields.at('sku'), trigger: sku }, 'DUPLICATE_VALUE', 'The SKU is already advertised in the ad group'),
      );
    if (fields.errors.length > 0 || !adGroup) return undefined;
    return scope.store.add<'productAd'>({
      kind: 'productAd',
      profileId: scope.caller.profileId,
      campaignId: adGroup.campaignId,
      adGroupId: adGroup.id,
      sku: sku!,
      // The ASIN the sandbox seller simulator gives the same account's SKU.
      asin: asinFor(scope.caller.account, sku!),
      state: state!,
    });
  },

  changes(fields) {
    const state = fields.choice('state', SETTABLE_STATES, false);
    return state ? { state } : {};
  },
};
