/** TikTok Shop's listing settings (DESIGN §10): the warehouse a shop's listings ship from. */
import type { ListingSettingsSpec } from '../contracts/listings.js';
import { nullable, PlatformIdText } from '../settings-fields.js';

export const TIKTOK_SHOP_LISTING_SETTINGS = {
  fields: { warehouse_id: nullable(PlatformIdText) },
  required: ['warehouse_id'],
  defaults: {},
} as const satisfies ListingSettingsSpec;
