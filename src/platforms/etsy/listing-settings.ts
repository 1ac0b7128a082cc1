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

/** The countries of the European Union (ISO 3166-1): Etsy asks their shops' listings for no return policy. */
export const EU_COUNTRIES: ReadonlySet<string> = new Set(
  'AT BE BG CY CZ DE DK EE ES FI FR GR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK'.split(' '),
);

/** Whether the shop connecting stored is in the EU (its `country`, Etsy's `shop_location_country_iso`). */
export const isEuShop = (data: Readonly<Record<string, unknown>>) => typeof data.country === 'string' && EU_COUNTRIES.has(data.country);

/** Etsy's return deadlines in days (createShopReturnPolicy: "must be one of the following"). */
export const ETSY_RETURN_DEADLINES = [7, 14, 21, 30, 45, 60, 90] as const;

const CountryCode = Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2, as `US`' });
const Money = Type.String({ pattern: '^[0-9]{1,6}(\\.[0-9]{1,2})?$', description: "In the shop's currency, as `4.50`" });
const Days = (description: string) => Type.Integer({ minimum: 1, maximum: 45, description });
const ProcessingTime = (description: string) => Type.Integer({ minimum: 1, maximum: 10, description });

/**
 * What Storelink can create on a shop that lacks them (listings.md §1.3, scope `shops_w`): a shipping profile
 * (createShopShippingProfile: one destination, a country or a region; delivery days rather than a carrier), a return
 * policy (createShopReturnPolicy) and a processing profile (createShopReadinessStateDefinition). The cross-field rules
 * (one destination; a deadline when returns or exchanges are accepted; a minimum at most its maximum) are checked by
 * the settings service before anything is sent.
 */
export const ETSY_SETTINGS_CREATES = {
  new_shipping_profile: {
    fills: 'shipping_profile_id',
    scope: 'shops_w',
    schema: Type.Object(
      {
        title: Type.String({ minLength: 1, maxLength: 100 }),
        origin_country_iso: CountryCode,
        origin_postal_code: Type.Optional(Type.String({ minLength: 1, maxLength: 20 })),
        primary_cost: Money,
        secondary_cost: Money,
        destination_country_iso: Type.Optional(CountryCode),
        destination_region: Type.Optional(oneOf(['eu', 'non_eu'] as const)),
        min_delivery_days: Days('Business days the parcel travels at least'),
        max_delivery_days: Days('Business days the parcel travels at most'),
      },
      { additionalProperties: false },
    ),
  },
  new_return_policy: {
    fills: 'return_policy_id',
    scope: 'shops_w',
    schema: Type.Object(
      {
        accepts_returns: Type.Boolean(),
        accepts_exchanges: Type.Boolean(),
        return_deadline: Type.Optional(
          Type.Unsafe<number>({ anyOf: ETSY_RETURN_DEADLINES.map((days) => ({ type: 'integer', const: days })) }),
        ),
      },
      { additionalProperties: false },
    ),
  },
  new_processing_profile: {
    fills: 'readiness_state_id',
    scope: 'shops_w',
    schema: Type.Object(
      {
        readiness_state: oneOf(['ready_to_ship', 'made_to_order'] as const),
        min_processing_time: ProcessingTime('At least this many days (or weeks)'),
        max_processing_time: ProcessingTime('At most this many days (or weeks)'),
        processing_time_unit: Type.Optional(oneOf(['days', 'weeks'] as const)),
      },
      { additionalProperties: false },
    ),
  },
} as const;

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
  // "Required for active physical listings... does not apply to listings of EU-based shops" (listings.md §1.4).
  optionalFor: (data) => (isEuShop(data) ? ['return_policy_id'] : []),
  creates: ETSY_SETTINGS_CREATES,
  defaults: { is_supply: false },
} as const satisfies ListingSettingsSpec;
