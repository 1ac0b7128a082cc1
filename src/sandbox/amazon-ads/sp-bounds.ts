/**
 * Sponsored Products' bounds on a campaign's daily budget and on a bid (an ad group's default bid, a keyword's bid),
 * per currency of the profile, in that currency, for the sandbox's six marketplaces (amazon-marketplaces.ts).
 * - US dollars: budget 1 to 1,000,000 and bid 0.02 to 1,000, as DESIGN §13 states them.
 * - Bid minima: ScaleLeap/amazon-marketplaces (`sponsoredProducts` bids, kept there in minor units: 2 cents, 2 yen,
 *   10 Australian cents), second-hand.
 * - ASSUMPTION: budgets other than the US dollar's, and the bid maxima other than the US dollar's, are the
 *   campaign-manager figures sellers quote (no primary table was retrieved): CAD, GBP, EUR as the US dollar; JPY budget
 *   100 to 21,000,000 and bid up to 100,000; AUD budget 1.40 to 1,500,000 and bid up to 1,410.
 */
export interface SpBounds {
  budget: readonly [min: number, max: number];
  bid: readonly [min: number, max: number];
}

const DOLLARISH: SpBounds = { budget: [1, 1_000_000], bid: [0.02, 1_000] };

export const SP_BOUNDS: Readonly<Record<string, SpBounds>> = {
  USD: DOLLARISH,
  CAD: DOLLARISH,
  GBP: DOLLARISH,
  EUR: DOLLARISH,
  JPY: { budget: [100, 21_000_000], bid: [2, 100_000] },
  AUD: { budget: [1.4, 1_500_000], bid: [0.1, 1_410] },
};

/** Currencies counted in whole units (no minor unit): money in them is rounded to units, not cents. */
export const WHOLE_UNIT_CURRENCIES: readonly string[] = ['JPY'];
