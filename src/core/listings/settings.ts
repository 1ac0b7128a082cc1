/** A site's listing settings (DESIGN §10): what is stored, what a listing reads, and what is missing to publish. */
import { COMMON_LISTING_SETTINGS, type ListingIssue, type ListingOverrides, type SitePlatform } from '../../domain/index.js';
import type { ListingSettingsSpec } from '../../platforms/contracts/listings.js';
import { LISTING_SETTINGS } from '../../platforms/registry.js';
import { type ListingPricing, pricingOf } from './pricing.js';

export type ListingSettings = Record<string, unknown>;

/**
 * Every setting of the platform, as GET answers it and listings read it: what was stored, else the default, else null
 * (a field never set). `stored` may hold fields of an older version of the platform's list: they are left out.
 */
export function settingsOf(platform: SitePlatform, stored: Readonly<Record<string, unknown>>): ListingSettings {
  const { fields, defaults } = LISTING_SETTINGS[platform];
  const settings: ListingSettings = {};
  for (const [name, fallback] of Object.entries(COMMON_LISTING_SETTINGS)) settings[name] = stored[name] ?? fallback;
  for (const name of Object.keys(fields)) settings[name] = stored[name] ?? defaults[name] ?? null;
  return settings;
}

/**
 * The platform's own settings fields (beside the common ones) with the schema of each, which PUT checks values
 * against, and the things PUT can create on the platform (Etsy's `new_shipping_profile` and the like).
 */
export function settingsFields(platform: SitePlatform): ListingSettingsSpec['fields'] {
  const { fields, creates = {} } = LISTING_SETTINGS[platform];
  return { ...fields, ...Object.fromEntries(Object.entries(creates).map(([name, create]) => [name, create.schema])) };
}

/** What PUT can create on the platform, by its field: the made thing's id fills the setting `fills`. */
export function settingsCreates(platform: SitePlatform): NonNullable<ListingSettingsSpec['creates']> {
  return LISTING_SETTINGS[platform].creates ?? {};
}

/**
 * The settings a listing on the site needs and the site does not have (each a 422 on publishing); `data`, what
 * connecting stored of the account, may make one unneeded (an EU Etsy shop's return policy).
 */
export function missingSettings(platform: SitePlatform, settings: ListingSettings, data: Readonly<Record<string, unknown>> = {}): string[] {
  const spec = LISTING_SETTINGS[platform];
  const unneeded = new Set(spec.optionalFor?.(data) ?? []);
  return spec.required.filter((name) => !unneeded.has(name) && (settings[name] === null || settings[name] === undefined));
}

/**
 * The currency a listing of the site is in (DESIGN §15): the site's (Etsy's shop, TikTok Shop's market), else its
 * marketplace's (Amazon); null when Storelink does not know it (a site connected before its currency was read).
 */
export function listingCurrencyOf(site: { platform: SitePlatform; currency: string | null }, settings: ListingSettings): string | null {
  return site.currency ?? LISTING_SETTINGS[site.platform].currencyOf?.(settings) ?? null;
}

/**
 * How the site lists the product, and why nothing may be sent when it cannot (pricing.ts): a listing whose overrides
 * price every variant in its currency needs no rate (DESIGN §15).
 */
export function sitePricing(
  site: { platform: SitePlatform; currency: string | null },
  product: { currency: string; variants: readonly { sku: string }[] },
  settings: ListingSettings,
  overrides: ListingOverrides | null = null,
): { pricing: ListingPricing; issue: ListingIssue | null } {
  const priced = pricingOf(product.currency, listingCurrencyOf(site, settings), settings);
  const overridden = new Set(overrides?.variants?.map((v) => v.sku));
  const everyPrice = product.variants.every((v) => overridden.has(v.sku));
  return priced.issue?.code === 'exchange_rate_missing' && everyPrice ? { ...priced, issue: null } : priced;
}

/** The marketplace a listing of the site is in, where its platform's settings name one (Amazon's); null elsewhere. */
export function marketplaceIdOf(platform: SitePlatform, settings: ListingSettings): string | null {
  const field = LISTING_SETTINGS[platform].marketplaceField;
  const value = field === undefined ? null : settings[field];
  return typeof value === 'string' ? value : null;
}
