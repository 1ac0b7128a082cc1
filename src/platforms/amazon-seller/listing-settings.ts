/** Amazon's listing settings (DESIGN §10): the marketplace a site's listings are offered in, and their condition. */
import Type from 'typebox';
import type { ListingSettingsSpec } from '../contracts/listings.js';
import { nullable } from '../settings-fields.js';
import { marketplaceOf } from './listing-requests.js';

export const AMAZON_SELLER_LISTING_SETTINGS = {
  fields: {
    marketplace_id: nullable(Type.String({ pattern: '^[A-Z0-9]{10,16}$' })),
    condition_type: Type.String({ pattern: '^[a-z_]{3,40}$', description: 'Amazon condition_type (default new_new)' }),
  },
  required: ['marketplace_id'],
  defaults: { condition_type: 'new_new' },
  // A seller account sells in several marketplaces: each listing is in the one the site's settings name.
  marketplaceField: 'marketplace_id',
  // A listing is in its marketplace's currency: the site (a seller across marketplaces) has none.
  currencyOf: (settings) => marketplaceOf(settings.marketplace_id)?.currency ?? null,
} as const satisfies ListingSettingsSpec;
