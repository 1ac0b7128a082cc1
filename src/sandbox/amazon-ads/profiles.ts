/** The advertising profiles of a sandbox account: what `GET /v2/profiles` lists and what the Scope header may name. */
import { AMAZON_REGIONS, type AmazonRegion } from '../../domain/index.js';
import { SANDBOX_MARKETPLACES } from '../amazon-marketplaces.js';
import { sandboxSellerId } from '../lwa/simulator.js';

/**
 * The profiles of a sandbox account in a region, in the shape of `GET /v2/profiles` (platforms.md §4.4). An account
 * granted with `profiles=none` on the consent form advertises nowhere: an empty list.
 */
export function sandboxProfiles(account: number, region: AmazonRegion = 'NA', withProfiles = true) {
  if (!withProfiles) return [];
  const regionIndex = AMAZON_REGIONS.indexOf(region);
  // Odd account numbers advertise in both of the region's marketplaces, even ones in the first.
  return SANDBOX_MARKETPLACES[region].slice(0, account % 2 === 1 ? 2 : 1).map((marketplace, index) => ({
    profileId: 1_400_000_000_000_000 + account * 100 + regionIndex * 10 + index,
    countryCode: marketplace.adsCountryCode,
    currencyCode: marketplace.currency,
    dailyBudget: 100,
    timezone: marketplace.timezone,
    accountInfo: {
      marketplaceStringId: marketplace.id,
      id: sandboxSellerId(account),
      type: 'seller',
      name: `Sandbox Amazon Seller ${account}`,
      validPaymentMethod: true,
    },
  }));
}

export type SandboxProfile = ReturnType<typeof sandboxProfiles>[number];
