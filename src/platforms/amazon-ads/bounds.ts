/**
 * Sponsored Products' bounds on a campaign's daily budget and a bid, per currency of the profile, in that currency.
 * Bids: ScaleLeap/amazon-marketplaces (its `sponsoredProducts` bids, kept there in minor units), second-hand but in
 * line with Amazon's campaign manager. Budgets: US dollars as DESIGN §13 states them (1.00 to 1,000,000); the others
 * are Amazon's campaign-manager figures as sellers quote them (ASSUMPTION: no primary table was retrieved). A currency
 * without an entry is left to Amazon, whose refusal becomes the advertising's issue.
 */
export interface AdBounds {
  budget: readonly [min: number, max: number];
  bid: readonly [min: number, max: number];
}

const DOLLARISH: AdBounds = { budget: [1, 1_000_000], bid: [0.02, 1_000] };

export const AD_BOUNDS: Readonly<Record<string, AdBounds>> = {
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

export const adBoundsOf = (currency: string): AdBounds | null => AD_BOUNDS[currency] ?? null;
