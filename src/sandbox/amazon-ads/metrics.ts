/**
 * The figures of the sandbox's advertised-product report (spAdvertisedProduct, DAILY), made up but never random: each
 * product ad's day comes from sha256(`${adId}:${date}`), so the same query answers the same figures every time.
 *
 * - A row per product ad and UTC day of the range, from the day the ad was made (UTC) up to today; none before.
 * - A day is dark (every figure 0) when the ad, its ad group or its campaign was paused or archived at any moment of it
 *   (each keeps the times of its state changes), or it is before the campaign's start date.
 * - Plausible and consistent: 40 to 2,000 impressions; clicks 0.2 % to 2 % of them; a click costs 35 % to 95 % of the
 *   lowest default bid the ad group had that day; a campaign's day never costs more than the lowest daily budget it had
 *   that day (its ads' clicks and impressions are scaled down to fit); purchases 4 % to 20 % of clicks (1-day ≤ 7-day
 *   ≤ 14-day ≤ 30-day ≤ clicks); sales = purchases × the ad's price, which is fixed per ad (sha256(`price:${adId}`)).
 * - Money has two decimals, rounded down (whole yen in JPY); `clickThroughRate` is clicks / impressions (ASSUMPTION: as a
 *   fraction, four decimals), `costPerClick` cost / clicks.
 * - Ids are JSON numbers, as Amazon's report files carry them (every sandbox id is below 2^53, so exact).
 */
import { createHash } from 'node:crypto';
import { WHOLE_UNIT_CURRENCIES } from './sp-bounds.js';
import type { AdGroup, AdsStore, Campaign, Entity, ProductAd, Version } from './sp-store.js';

export const REPORT_COLUMNS = [
  'date',
  'campaignId',
  'campaignName',
  'adGroupId',
  'adGroupName',
  'adId',
  'advertisedSku',
  'advertisedAsin',
  'impressions',
  'clicks',
  'cost',
  'purchases1d',
  'purchases7d',
  'purchases14d',
  'purchases30d',
  'sales1d',
  'sales7d',
  'sales14d',
  'sales30d',
  'unitsSoldClicks7d',
  'costPerClick',
  'clickThroughRate',
] as const;
export type ReportColumn = (typeof REPORT_COLUMNS)[number];

const DAY_MS = 86_400_000;

export const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
export const addDays = (date: string, days: number) => dayOf(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS);

/** Eight fractions in [0, 1) from a text's sha256. */
function draws(text: string): number[] {
  const digest = createHash('sha256').update(text).digest();
  return Array.from({ length: 8 }, (_, i) => digest.readUInt32BE(i * 4) / 2 ** 32);
}

/** The versions of an entity in effect at some moment of the UTC day, up to `now`. */
function versionsOn(entity: Entity, date: string, now: number): Version[] {
  const start = Date.parse(`${date}T00:00:00Z`);
  const end = Math.min(start + DAY_MS, now + 1);
  const before = entity.history.filter((version) => version.at <= start).at(-1);
  return [...(before ? [before] : []), ...entity.history.filter((version) => version.at > start && version.at < end)];
}

/** The ad's campaign and ad group, and whether all three served the whole day. */
interface AdDay {
  ad: ProductAd;
  campaign: Campaign;
  adGroup: AdGroup;
  live: boolean;
  /** The lowest default bid the ad group had that day. */
  bid: number;
}

function adDay(store: AdsStore, ad: ProductAd, date: string, now: number): AdDay {
  const campaign = store.find('campaign', ad.profileId, ad.campaignId)!;
  const adGroup = store.find('adGroup', ad.profileId, ad.adGroupId)!;
  const enabled = [ad, adGroup, campaign].every((entity) => versionsOn(entity, date, now).every((version) => version.state === 'ENABLED'));
  const bid = Math.min(...versionsOn(adGroup, date, now).map((version) => version.defaultBid ?? adGroup.defaultBid));
  return { ad, campaign, adGroup, live: enabled && date >= campaign.startDate, bid };
}

/** What an ad's day would be without the budget: impressions, clicks, the cost of a click, the conversion rate. */
function unbudgeted(day: AdDay, date: string) {
  const [a, b, c, d] = draws(`${day.ad.id}:${date}`) as [number, number, number, number];
  const impressions = 40 + Math.floor(a * 1960);
  const clicks = Math.floor(impressions * (0.002 + b * 0.018));
  return { impressions, clicks, costPerClick: day.bid * (0.35 + c * 0.6), conversion: 0.04 + d * 0.16 };
}

/** Money rounded down to cents, or to whole units in a currency without cents. */
const moneyDown = (value: number, whole: boolean) => (whole ? Math.floor(value + 1e-9) : Math.floor(value * 100 + 1e-9) / 100);
const moneyNear = (value: number, whole: boolean) => (whole ? Math.round(value) : Math.round(value * 100) / 100);

/** The ad's price: fixed per ad, 8.99 to 67.99 (800 to 6,700 yen). */
function priceOf(adId: string, whole: boolean): number {
  const units = 8 + Math.floor(draws(`price:${adId}`)[0]! * 60);
  return whole ? units * 100 : units + 0.99;
}

type Figures = Record<
  Exclude<ReportColumn, 'date' | 'campaignId' | 'campaignName' | 'adGroupId' | 'adGroupName' | 'adId' | 'advertisedSku' | 'advertisedAsin'>,
  number
>;

/** The ad's figures of the day, its clicks scaled by `share` (1, or less when the campaign's budget ran out). */
function figuresOf(day: AdDay, date: string, share: number, whole: boolean): Figures {
  const raw = unbudgeted(day, date);
  const [, , , , e, f, g, h] = draws(`${day.ad.id}:${date}`) as number[];
  const clicks = Math.floor(raw.clicks * share);
  // Rounded up: an ad that served at all was seen at least once.
  const impressions = Math.max(clicks, Math.ceil(raw.impressions * share));
  const cost = moneyDown(clicks * raw.costPerClick, whole);
  const purchases7d = Math.floor(clicks * raw.conversion);
  const purchases1d = Math.floor(purchases7d * (0.6 + e! * 0.4));
  const purchases14d = Math.min(clicks, purchases7d + (f! < 0.3 ? 1 : 0));
  const purchases30d = Math.min(clicks, purchases14d + (g! < 0.2 ? 1 : 0));
  const price = priceOf(day.ad.id, whole);
  const sales = (purchases: number) => moneyNear(purchases * price, whole);
  return {
    impressions,
    clicks,
    cost,
    purchases1d,
    purchases7d,
    purchases14d,
    purchases30d,
    sales1d: sales(purchases1d),
    sales7d: sales(purchases7d),
    sales14d: sales(purchases14d),
    sales30d: sales(purchases30d),
    unitsSoldClicks7d: purchases7d + (purchases7d > 0 && h! < 0.25 ? 1 : 0),
    costPerClick: clicks > 0 ? moneyDown(cost / clicks, false) : 0,
    clickThroughRate: impressions > 0 ? Math.round((clicks / impressions) * 10_000) / 10_000 : 0,
  };
}

const DARK: Figures = Object.fromEntries(REPORT_COLUMNS.slice(8).map((column) => [column, 0])) as Figures;

/** The share of each live ad's clicks the campaign's lowest budget of the day allows (1 when it suffices). */
function budgetShare(days: AdDay[], date: string, now: number): number {
  const live = days.filter((day) => day.live);
  if (live.length === 0) return 1;
  const campaign = live[0]!.campaign;
  const budget = Math.min(...versionsOn(campaign, date, now).map((version) => version.budget ?? campaign.budget));
  const spend = live.reduce((sum, day) => {
    const raw = unbudgeted(day, date);
    return sum + raw.clicks * raw.costPerClick;
  }, 0);
  return spend > budget ? budget / spend : 1;
}

/** The report's rows: the columns asked, per product ad and day from `startDate` to `endDate` (none after today). */
export function reportRows(
  store: AdsStore,
  input: { profileId: string; currency: string; startDate: string; endDate: string; columns: readonly ReportColumn[] },
): Record<string, unknown>[] {
  const now = store.now();
  const today = dayOf(now);
  const whole = WHOLE_UNIT_CURRENCIES.includes(input.currency);
  const ads = store.all('productAd', input.profileId);
  const rows: Record<string, unknown>[] = [];
  for (let date = input.startDate; date <= input.endDate && date <= today; date = addDays(date, 1)) {
    const days = ads.filter((ad) => dayOf(ad.createdAt) <= date).map((ad) => adDay(store, ad, date, now));
    const shares = new Map<string, number>();
    for (const day of days)
      if (!shares.has(day.campaign.id))
        shares.set(
          day.campaign.id,
          budgetShare(
            days.filter((each) => each.campaign === day.campaign),
            date,
            now,
          ),
        );
    for (const day of days) {
      const figures = day.live ? figuresOf(day, date, shares.get(day.campaign.id)!, whole) : DARK;
      rows.push(pick(cellsOf(day, date, figures), input.columns));
    }
  }
  return rows;
}

function cellsOf(day: AdDay, date: string, figures: Figures): Record<ReportColumn, unknown> {
  return {
    date,
    campaignId: Number(day.campaign.id),
    campaignName: day.campaign.name,
    adGroupId: Number(day.adGroup.id),
    adGroupName: day.adGroup.name,
    adId: Number(day.ad.id),
    advertisedSku: day.ad.sku,
    advertisedAsin: day.ad.asin,
    ...figures,
  };
}

const pick = (cells: Record<ReportColumn, unknown>, columns: readonly ReportColumn[]) =>
  Object.fromEntries(columns.map((column) => [column, cells[column]]));
