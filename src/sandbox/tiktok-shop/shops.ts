/**
 * The shops a sandbox TikTok seller authorizes, shaped as Get Authorized Shops answers them (platforms.md §2.6,
 * https://partner.tiktokshop.com/docv2/page/get-authorized-shops-202309): `{id, name, region, seller_type, cipher, code}`.
 */

/** How many shops one authorization may cover in the sandbox; the consent page offers 1 to this. */
export const MAX_SHOPS = 5;

/** One country per shop of a cross-border seller, in order; a seller with one shop is local to the first. */
const REGIONS = ['GB', 'US', 'DE', 'FR', 'ES'] as const;

/**
 * The EU markets a sandbox seller may instead be local to (the consent page's `market`): one shop there, whose rules
 * ask for the EU's responsible person and manufacturer (categories.ts), as TikTok's do for local sellers in the EU.
 */
export const LOCAL_MARKETS = ['DE'] as const;
export type LocalMarket = (typeof LOCAL_MARKETS)[number];
/** Where a local EU shop's id sits, apart from the five cross-border positions so that no id is given twice. */
const LOCAL_POSITION = 9;
const EU_REGIONS: ReadonlySet<string> = new Set(['DE', 'FR', 'ES', 'IT', 'IE']);

export interface SandboxShop {
  /** A numeric string, as TikTok's `id` ("7000714532876273420"). */
  id: string;
  name: string;
  region: string;
  /** Documented as CROSS_BORDER for sellers "with multiple shops in different countries", LOCAL for "only 1 shop". */
  seller_type: 'LOCAL' | 'CROSS_BORDER';
  /** The `shop_cipher` of later calls, like TikTok's "GCP_XF90igAAAABh00qsWgtvOiGFNqyubMt3". */
  cipher: string;
  /** The short shop code Seller Center shows. */
  code: string;
}

const shopId = (position: number, account: number) => String(7_000_714_532_000_000 + position * 1_000_000 + account);

/** The one shop of a seller local to an EU market. */
function localShop(account: number, market: LocalMarket): SandboxShop {
  const padded = String(account).padStart(6, '0');
  return {
    id: shopId(LOCAL_POSITION, account),
    name: `Sandbox TikTok Shop ${account} ${market}`,
    region: market,
    seller_type: 'LOCAL',
    cipher: `GCP_SANDBOX${padded}${market}`,
    code: `${market}SBX${padded}L`,
  };
}

/**
 * The `count` shops of an account, or its one shop in `market` for a seller local to an EU market. Each shop's id,
 * cipher and code depend only on the account and the shop's position (or market), so they stay the same across
 * authorizations and differ between accounts and shops; the first shop's are the ones the simulator gave before it
 * offered several.
 */
export function sandboxShops(account: number, count: number, market: LocalMarket | null = null): SandboxShop[] {
  if (market) return [localShop(account, market)];
  const padded = String(account).padStart(6, '0');
  return REGIONS.slice(0, count).map((region, index) => {
    const suffix = index === 0 ? '' : String(index + 1);
    return {
      id: shopId(index, account),
      name: `Sandbox TikTok Shop ${account}${suffix && `-${suffix}`}`,
      region,
      seller_type: count === 1 ? 'LOCAL' : 'CROSS_BORDER',
      cipher: `GCP_SANDBOX${padded}${suffix && `N${suffix}`}`,
      code: `${region}SBX${padded}${suffix}`,
    };
  });
}

/** Every shop an account can authorize, whichever way: what the inspection and the account's webhooks cover. */
export const everyShopOf = (account: number): SandboxShop[] => [
  ...sandboxShops(account, MAX_SHOPS),
  ...LOCAL_MARKETS.map((market) => localShop(account, market)),
];

/** The sandbox account a shop belongs to (its id ends in the account's number). */
export const accountOf = (shop: Pick<SandboxShop, 'id'>) => Number(BigInt(shop.id) % 1_000_000n);

/** A shop of a seller local to an EU market: the EU's rules for responsible persons and manufacturers apply to it. */
export const isEuLocal = (shop: Pick<SandboxShop, 'region' | 'seller_type'>) => shop.seller_type === 'LOCAL' && EU_REGIONS.has(shop.region);
