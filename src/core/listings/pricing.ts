/**
 * The site's rules on what is listed (DESIGN §10, §15): the price converted into the listing's currency by the site's
 * exchange rate, adjusted by its percentage and rounded once, to the cent; the quantity less the site's stock buffer.
 * Money stays exact: cents and rates as BigInt, never a float.
 */
import { type ListingIssue, storelinkIssue } from '../../domain/index.js';

/** How a product's prices become a listing's: the listing's currency, the rate into it (null: the product's own), the adjustment. */
export interface ListingPricing {
  readonly currency: string;
  /** `exchange_rates`' rate from the product's currency, a decimal string; null when the product is in the listing's currency. */
  readonly rate: string | null;
  readonly percent: number;
  readonly buffer: number;
}

/** Rates carry at most six decimals (EXCHANGE_RATE_PATTERN): a rate in millionths. */
const RATE_SCALE = 1_000_000n;

const centsOf = (price: string) => {
  const [whole, fraction = ''] = price.split('.');
  return BigInt(whole!) * 100n + BigInt(fraction.padEnd(2, '0'));
};
const millionthsOf = (rate: string) => {
  const [whole, fraction = ''] = rate.split('.');
  return BigInt(whole!) * RATE_SCALE + BigInt(fraction.padEnd(6, '0'));
};
const priceOf = (cents: bigint) => `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;

/**
 * `price` (a decimal string of at most two decimals) times `rate`, raised or lowered by `percent` (to 0.01 %), rounded
 * half up to the cent once, at the end.
 */
export function listedPrice(price: string, percent: number, rate: string | null = null): string {
  // The percentage in hundredths of a percent: 12.5 % is 1,250 of 10,000.
  const factor = 10_000n + BigInt(Math.round(percent * 100));
  const scale = 10_000n * RATE_SCALE;
  const exact = centsOf(price) * factor * (rate === null ? RATE_SCALE : millionthsOf(rate));
  return priceOf((exact + scale / 2n) / scale);
}

/**
 * The catalogue price whose listed price (after `rate` and `percent`) is `listed`, to the cent; the nearest one when no
 * price lists exactly so (a 33 % adjustment skips some cents, a rate below 1 lists several prices alike).
 */
export function cataloguePrice(listed: string, percent: number, rate: string | null = null): string {
  if (percent === 0 && rate === null) return listed;
  const multiplier = (1 + percent / 100) * (rate === null ? 1 : Number(rate));
  const guess = Math.round(Number(centsOf(listed)) / multiplier);
  const candidates = [guess, guess - 1, guess + 1, guess - 2, guess + 2].filter((c) => c > 0);
  const text = (c: number) => priceOf(BigInt(c));
  return text(candidates.find((c) => listedPrice(text(c), percent, rate) === listed) ?? Math.max(guess, 1));
}

/** The quantity offered: the stock less the buffer kept back, never below 0. */
export function listedQuantity(quantity: number, stockBuffer: number): number {
  return Math.max(0, quantity - stockBuffer);
}

/**
 * How the site lists a product in `productCurrency`: in `listingCurrency` (the site's, or its marketplace's; null when
 * Storelink does not know it), by the settings' rate. Without a rate the pricing keeps the product's prices, which
 * reads can compare, and `issue` says why nothing may be sent: a listing never goes out at another currency's figure.
 */
export function pricingOf(
  productCurrency: string,
  listingCurrency: string | null,
  settings: Readonly<Record<string, unknown>>,
): { pricing: ListingPricing; issue: ListingIssue | null } {
  const percent = Number(settings.price_adjustment_percent ?? 0);
  const buffer = Number(settings.stock_buffer ?? 0);
  const same = { currency: listingCurrency ?? productCurrency, rate: null, percent, buffer };
  if (listingCurrency === null)
    return {
      pricing: same,
      issue: storelinkIssue(
        'currency',
        'currency_unknown',
        'Storelink does not know the currency this site lists in: connect the site again, so that its currency is read from the platform.',
      ),
    };
  if (listingCurrency === productCurrency) return { pricing: same, issue: null };
  const rates = (settings.exchange_rates ?? {}) as Readonly<Record<string, string>>;
  const rate = rates[productCurrency];
  if (rate !== undefined) return { pricing: { currency: listingCurrency, rate, percent, buffer }, issue: null };
  return {
    pricing: same,
    issue: storelinkIssue(
      'exchange_rates',
      'exchange_rate_missing',
      `The product is priced in ${productCurrency} and this site lists in ${listingCurrency}: set the site's exchange rate from ${productCurrency} to ${listingCurrency} in its listing settings.`,
    ),
  };
}
