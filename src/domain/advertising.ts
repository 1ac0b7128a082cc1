/** Advertising a listing on Amazon with Sponsored Products (DESIGN §13). */

/** Where a listing's advertising stands: being set up, running, paused, ended (archived on Amazon), or given up. */
export const ADVERTISING_STATES = ['pending', 'enabled', 'paused', 'archived', 'error'] as const;
export type AdvertisingState = (typeof ADVERTISING_STATES)[number];

/** What the seller can ask of running advertising (PATCH): the listing's own state pauses it too, and resumes it. */
export const SELLER_AD_STATES = ['enabled', 'paused'] as const;
export type SellerAdState = (typeof SELLER_AD_STATES)[number];

export const KEYWORD_MATCH_TYPES = ['exact', 'phrase', 'broad'] as const;
export type KeywordMatchType = (typeof KEYWORD_MATCH_TYPES)[number];

/** A keyword of a manual campaign, its bid a decimal string in the marketplace's currency. */
export interface AdvertisingKeyword {
  text: string;
  match_type: KeywordMatchType;
  bid: string;
}

/** Amazon finds shoppers on its own (`auto`), or the seller's keywords decide (a manual campaign). */
export type AdvertisingTargeting = 'auto' | { keywords: AdvertisingKeyword[] };

/** One day of an advertised listing's performance, as Amazon's advertised-product report gives it. */
export interface AdvertisingDay {
  date: string;
  impressions: number;
  clicks: number;
  /** Money as decimal strings in the marketplace's currency. */
  spend: string;
  orders: number;
  sales: string;
}
