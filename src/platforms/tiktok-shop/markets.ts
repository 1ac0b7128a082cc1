/** TikTok Shop's markets: what each sells in. */

/**
 * The currency each market sells in (listings.md §2.5: by region; USD, GBP, EUR, …): a site's currency, read from its
 * shop's region at connect (the shop list names no currency). Migration 0018 holds a copy for sites connected before.
 */
export const MARKET_CURRENCIES: Readonly<Record<string, string>> = {
  US: 'USD',
  GB: 'GBP',
  DE: 'EUR',
  FR: 'EUR',
  ES: 'EUR',
  IT: 'EUR',
  IE: 'EUR',
  MX: 'MXN',
  BR: 'BRL',
  JP: 'JPY',
};
