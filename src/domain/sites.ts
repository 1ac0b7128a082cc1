/** Connected sites (DESIGN §5). */

export const SITE_STATUSES = ['connected', 'reauthorization_required', 'disconnected'] as const;
export type SiteStatus = (typeof SITE_STATUSES)[number];

/** An Amazon Ads profile: one per marketplace the seller advertises in. */
export interface AdvertisingProfile {
  id: string;
  country_code: string;
  name: string;
  /** The SP-API marketplace the profile advertises in (`accountInfo.marketplaceStringId`); absent on profiles stored before it was kept. */
  marketplace_id?: string;
  /** The currency its budgets and bids are in (`currencyCode`); absent likewise. */
  currency?: string;
}
