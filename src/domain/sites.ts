/** Connected sites (DESIGN §5). */

export const SITE_STATUSES = ['connected', 'reauthorization_required', 'disconnected'] as const;
export type SiteStatus = (typeof SITE_STATUSES)[number];

/** An Amazon Ads profile: one per marketplace the seller advertises in. */
export interface AdvertisingProfile {
  id: string;
  country_code: string;
  name: string;
}
