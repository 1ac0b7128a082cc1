/**
 * Pieces the advertising pages share (DESIGN §13): the record's type, its states in words, Amazon's bounds on money as
 * the dashboard checks them before sending, and the sums of the daily figures.
 */
import type { components } from '../api/schema';
import { formatPrice } from './product-parts';

export type Advertising = components['schemas']['Advertising'];
export type Site = components['schemas']['Site'];
export type AdvertisingState = Advertising['state'];
export type AdvertisingDay = components['schemas']['AdvertisingDay'];
export type MatchType = 'exact' | 'phrase' | 'broad';

export const AD_STATE_LABEL: Record<AdvertisingState, string> = {
  pending: 'Starting',
  enabled: 'Enabled',
  paused: 'Paused',
  archived: 'Ended',
  error: 'Not started',
};

export const MATCH_TYPES: { value: MatchType; label: string }[] = [
  { value: 'broad', label: 'Broad' },
  { value: 'phrase', label: 'Phrase' },
  { value: 'exact', label: 'Exact' },
];

/** Whether Amazon's side of the advertising is still being set (the page reads it again every 2 s while it is). */
export const adInFlight = (ad: Advertising) => ad.state === 'pending' || ad.sync_status === 'syncing';

/** The issue the API adds while the site's Amazon Ads grant is gone (src/core/advertising/present.ts). */
export const RECONNECT_CODE = 'advertising_reauthorization_required';

/**
 * Sponsored Products' bounds per currency, as the API checks them (src/platforms/amazon-ads/bounds.ts, kept in step by
 * hand: the dashboard imports no server code). A currency without an entry is left to the API and Amazon.
 */
const DOLLARISH = { budget: [1, 1_000_000], bid: [0.02, 1_000] } as const;
const AD_BOUNDS: Readonly<Record<string, { budget: readonly [number, number]; bid: readonly [number, number] }>> = {
  USD: DOLLARISH,
  CAD: DOLLARISH,
  GBP: DOLLARISH,
  EUR: DOLLARISH,
  JPY: { budget: [100, 21_000_000], bid: [2, 100_000] },
  AUD: { budget: [1.4, 1_500_000], bid: [0.1, 1_410] },
  MXN: { budget: [1, 21_000_000], bid: [0.1, 20_000] },
  INR: { budget: [50, 21_000_000], bid: [1, 5_000] },
  SEK: { budget: [9, 9_300_000], bid: [0.18, 9_300] },
  AED: { budget: [4, 3_700_000], bid: [0.24, 184] },
};

/** The API's money: digits with at most two decimals ("10", "0.5", "0.50"). */
const MONEY = /^[0-9]{1,9}(\.[0-9]{1,2})?$/;

/**
 * The problem with an amount of money typed into `what` ("daily budget", "default bid", "keyword bid"), in the words
 * the API uses for the same check, or null when it is fine.
 */
export function moneyProblem(value: string, what: string, currency: string, kind: 'budget' | 'bid'): string | null {
  const text = value.trim();
  if (text === '') return `Enter the ${what}.`;
  if (!MONEY.test(text)) return `Enter the ${what} as an amount like 10.00 (digits, a point, at most two decimals).`;
  const amount = Number(text);
  if (!(amount > 0)) return `The ${what} must be more than 0.`;
  const range = AD_BOUNDS[currency]?.[kind];
  if (range && (amount < range[0] || amount > range[1]))
    return `The ${what} must be between ${range[0].toFixed(2)} and ${range[1].toFixed(2)} ${currency}.`;
  return null;
}

/** "at least 1.00 USD": the lower bound of a budget or bid, for the fields' hints; null when the dashboard has none. */
export function minimumOf(currency: string, kind: 'budget' | 'bid'): string | null {
  const range = AD_BOUNDS[currency]?.[kind];
  return range ? `at least ${range[0].toFixed(2)} ${currency}` : null;
}

/** Money in cents (the API's decimal strings summed without floating-point drift). */
const cents = (value: string) => Math.round(Number(value) * 100);

export interface Totals {
  spend: string;
  sales: string;
  clicks: number;
  impressions: number;
  orders: number;
  /** Advertising cost of sales: spend / sales, as a percentage; null without sales. */
  acos: number | null;
}

export function totalsOf(days: readonly AdvertisingDay[]): Totals {
  const spend = days.reduce((sum, d) => sum + cents(d.spend), 0);
  const sales = days.reduce((sum, d) => sum + cents(d.sales), 0);
  return {
    spend: (spend / 100).toFixed(2),
    sales: (sales / 100).toFixed(2),
    clicks: days.reduce((sum, d) => sum + d.clicks, 0),
    impressions: days.reduce((sum, d) => sum + d.impressions, 0),
    orders: days.reduce((sum, d) => sum + d.orders, 0),
    acos: sales > 0 ? (spend / sales) * 100 : null,
  };
}

export const formatAcos = (acos: number | null) => (acos === null ? 'No sales yet' : `${acos.toFixed(1)} %`);

export const formatCount = (value: number) => new Intl.NumberFormat().format(value);

/** A UTC day "2025-07-03" as "Jul 3" (the figures are Amazon's per UTC day). */
export const formatDay = (date: string, style: 'short' | 'long' = 'short') =>
  new Date(`${date}T00:00:00Z`).toLocaleDateString(undefined, {
    month: 'short',
    day: 'numeric',
    timeZone: 'UTC',
    ...(style === 'long' ? { year: 'numeric' } : {}),
  });

/** The UTC days of the last `days` days, today included, as the metrics query asks for them. */
export function lastDays(days: number, now = new Date()): { from: string; to: string } {
  const to = now.toISOString().slice(0, 10);
  const from = new Date(Date.parse(to) - (days - 1) * 86_400_000).toISOString().slice(0, 10);
  return { from, to };
}

export const money = (value: string, currency: string) => formatPrice(value, currency);
