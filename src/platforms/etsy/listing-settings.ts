/**
 * Etsy's listing settings (DESIGN §10, listings.md §1.4): the shop's shipping profile, return policy and readiness
 * state, and what every listing says of who made it, when, and whether it is a supply.
 */
import Type from 'typebox';
import type { ListingSettingsSpec } from '../contracts/listings.js';
import { nullable, oneOf, PlatformIdText } from '../settings-fields.js';

/**
 * Etsy's `who_made` and `when_made` (listings.md §1.4). The first year bucket moves with the calendar (`2020_2024`,
 * then `2020_2025`; `2020_2026` in 2026): the simulator keeps its own copy of the list (src/sandbox/etsy/listing-fields.ts),
 * and Etsy's own refusal of a stale bucket reaches the listing's issues in Etsy's words.
 */
export const ETSY_WHO_MADE = ['i_did', 'someone_else', 'collective'] as const;
export const ETSY_WHEN_MADE = [
  'made_to_order',
  '2020_2026',
  '2010_2019',
  '2004_2009',
  '2000_2003',
  '1990s',
  '1980s',
  '1970s',
  '1960s',
  '1950s',
  '1940s',
  '1930s',
  '1920s',
  '1910s',
  '1900s',
  '1800s',
  '1700s',
  'before_1700',
] as const;

export const ETSY_LISTING_SETTINGS = {
  fields: {
    shipping_profile_id: nullable(PlatformIdText),
    return_policy_id: nullable(PlatformIdText),
    readiness_state_id: nullable(PlatformIdText),
    who_made: nullable(oneOf(ETSY_WHO_MADE)),
    when_made: nullable(oneOf(ETSY_WHEN_MADE)),
    is_supply: Type.Boolean(),
  },
  required: ['shipping_profile_id', 'return_policy_id', 'readiness_state_id', 'who_made', 'when_made'],
  defaults: { is_supply: false },
} as const satisfies ListingSettingsSpec;
