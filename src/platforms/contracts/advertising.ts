/** The advertising capability (DESIGN §13): Amazon Ads' Sponsored Products for one listing, and its daily report. */
import type { AdvertisingProfile, AmazonRegion, ListingIssue } from '../../domain/index.js';

/** What an Amazon Ads call needs: a valid advertising token, the profile it acts in, and that profile's region. */
export interface AdsCall {
  readonly accessToken: string;
  readonly profileId: string;
  readonly region: AmazonRegion;
  readonly signal?: AbortSignal;
  /** Awaited before every call: the engine's pacing (it may wait, or throw `unavailable` to put the work off). */
  readonly beforeCall?: () => Promise<void>;
}

/** A Sponsored Products entity's state on Amazon; `other` for one Amazon reports that Storelink does not set. */
export type AdEntityState = 'enabled' | 'paused' | 'archived' | 'other';

export interface AdEntity {
  id: string;
  state: AdEntityState;
}

/** One row of the advertised-product report: a product ad's figures on one day (money as Amazon's numbers). */
export interface AdReportRow {
  date: string;
  adId: string;
  impressions: number;
  clicks: number;
  cost: number;
  orders: number;
  sales: number;
}

export type AdReportStatus = { status: 'pending' } | { status: 'failed'; reason: string } | { status: 'completed'; url: string };

/**
 * The advertising capability (Amazon Ads, Sponsored Products v3, listings.md §4): create the campaign, ad group, product
 * ads and keywords of one listing, find them again by what identifies them (a job run again after a lost answer creates
 * nothing twice), change their budget, bid and state, archive them, and read the advertised-product report.
 * Amazon's per-item refusals (its 207 answers) are thrown as `ListingRefused`; a refused grant as `rejected`.
 */
export interface AdvertisingAdapter {
  /** Amazon's bounds on a daily budget and a bid in `currency` (`[min, max]`); null where Storelink does not know them. */
  bounds(currency: string): { budget: readonly [number, number]; bid: readonly [number, number] } | null;
  /**
   * Which of the site's profiles advertises its listings in the marketplace (the listing's), and the currency its
   * budgets and bids are in (null where neither the profile nor Storelink knows it); null when none of them does.
   */
  profileFor(
    profiles: readonly AdvertisingProfile[],
    marketplaceId: string,
  ): { profile: AdvertisingProfile; currency: string | null } | null;
  campaignNamed(call: AdsCall, name: string): Promise<AdEntity | null>;
  createCampaign(
    call: AdsCall,
    campaign: { name: string; targeting: 'auto' | 'manual'; dailyBudget: number; state: 'enabled' | 'paused' },
  ): Promise<string>;
  adGroupsOf(call: AdsCall, campaignId: string): Promise<AdEntity[]>;
  createAdGroup(
    call: AdsCall,
    adGroup: { campaignId: string; name: string; defaultBid: number; state: 'enabled' | 'paused' },
  ): Promise<string>;
  productAdsOf(call: AdsCall, adGroupId: string): Promise<Array<AdEntity & { sku: string }>>;
  /** The ad id of each SKU Amazon took, and its refusals of the others (a SKU it cannot advertise, say). */
  createProductAds(
    call: AdsCall,
    ads: { campaignId: string; adGroupId: string; skus: readonly string[]; state: 'enabled' | 'paused' },
  ): Promise<{ adIds: Record<string, string>; refused: ListingIssue[] }>;
  keywordsOf(call: AdsCall, adGroupId: string): Promise<Array<AdEntity & { text: string; matchType: string }>>;
  createKeywords(
    call: AdsCall,
    keywords: {
      campaignId: string;
      adGroupId: string;
      keywords: ReadonlyArray<{ text: string; matchType: 'exact' | 'phrase' | 'broad'; bid: number }>;
    },
  ): Promise<string[]>;
  updateCampaign(call: AdsCall, campaignId: string, change: { dailyBudget?: number; state?: 'enabled' | 'paused' }): Promise<void>;
  updateAdGroup(call: AdsCall, adGroupId: string, change: { defaultBid?: number; state?: 'enabled' | 'paused' }): Promise<void>;
  updateProductAds(call: AdsCall, adIds: readonly string[], state: 'enabled' | 'paused'): Promise<void>;
  /** Archives the campaign (Amazon's delete: final, its ads stop with it). */
  archiveCampaign(call: AdsCall, campaignId: string): Promise<void>;
  /** Asks for the daily advertised-product report of the profile from `from` to `to` (at most 31 days); its id. */
  requestReport(call: AdsCall, range: { from: string; to: string }): Promise<string>;
  reportStatus(call: AdsCall, reportId: string): Promise<AdReportStatus>;
  /** Downloads and reads a completed report's file (a presigned URL: no Amazon headers go with it). */
  downloadReport(url: string, signal?: AbortSignal): Promise<AdReportRow[]>;
}
