/** Which of a seller's Amazon Ads profiles advertises in a marketplace, and in what currency (platforms.md §4.4). */
import type { AdvertisingProfile } from '../../domain/index.js';
import { marketplaceOf } from '../amazon-seller/listing-requests.js';

/** Ads profiles spell the United Kingdom `UK` where SP-API says `GB` (platforms.md §4.4). */
const adsCountry = (country: string) => (country === 'GB' ? 'UK' : country);

/**
 * The profile that advertises in the marketplace (an SP-API marketplace id): by its marketplace id, else (profiles
 * stored before it was kept) by country; its currency is the profile's, else the marketplace's. Null when none does.
 */
export function profileInMarketplace(
  profiles: readonly AdvertisingProfile[],
  marketplaceId: string,
): { profile: AdvertisingProfile; currency: string | null } | null {
  const marketplace = marketplaceOf(marketplaceId);
  const profile =
    profiles.find((candidate) => candidate.marketplace_id === marketplaceId) ??
    (marketplace && profiles.find((candidate) => !candidate.marketplace_id && candidate.country_code === adsCountry(marketplace.country)));
  return profile ? { profile, currency: profile.currency ?? marketplace?.currency ?? null } : null;
}
