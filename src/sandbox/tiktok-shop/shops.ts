/**
 * The shops a sandbox TikTok seller authorizes, shaped as Get Authorized Shops answers them (platforms.md §2.6,
 * https://partner.tiktokshop.com/docv2/page/get-authorized-shops-202309): `{id, name, region, seller_type, cipher, code}`.
 */

/** How many shops one authorization may cover in the sandbox; the consent page offers 1 to this. */
export const MAX_SHOPS = 5;

/**
 * The country of each position a cross-border seller's shops take: a shop's id, cipher and code follow its country's
 * position, so a shop in the UK is the same shop whichever market its seller chose first.
 */
const REGIONS = ['GB', 'US', 'DE', 'FR', 'ES'] as const;

/**
 * The markets a sandbox seller may be in (the consent page's `market`), the first the default: the seller's first
 * shop is there, in its currency, and any further shops of a cross-border seller are in the other countries above.
 */
export const MARKETS = ['US', 'GB', 'DE'] as const;
export type Market = (typeof MARKETS)[number];
/** The market of a seller who chose none (a consent form without `market`): US. */
export const DEFAULT_MARKET: Market = 'US';

/**
 * The EU markets a sandbox seller may be local to: one shop there, whose rules ask for the EU's responsible person and
 * manufacturer (categories.ts), as TikTok's do for local sellers in the EU.
 */
export const LOCAL_MARKETS = ['DE'] as const;
export type LocalMarket = (typeof LOCAL_MARKETS)[number];
const isLocalMarket = (market: Market): market is LocalMarket => (LOCAL_MARKETS as readonly string[]).includes(market);
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
 * The `count` shops of an account whose seller is in `market`, its own country's first; for a seller local to an EU
 * market, its one shop there. Each shop's id, cipher and code depend only on the account and the shop's country (its
 * position in REGIONS, or the local market), so they stay the same across authorizations and differ between accounts
 * and shops; the UK shop's are the ones the simulator gave before it offered a market. Names follow the order the
 * seller's shops come in.
 */
export function sandboxShops(account: number, count: number, market: Market = DEFAULT_MARKET): SandboxShop[] {
  if (isLocalMarket(market)) return [localShop(account, market)];
  const padded = String(account).padStart(6, '0');
  const regions = [market, ...REGIONS.filter((region) => region !== market)].slice(0, count);
  return regions.map((region, index) => {
    const position = REGIONS.indexOf(region);
    const suffix = position === 0 ? '' : String(position + 1);
    return {
      id: shopId(position, account),
      name: `Sandbox TikTok Shop ${account}${index === 0 ? '' : `-${index + 1}`}`,
      region,
      seller_type: count === 1 ? 'LOCAL' : 'CROSS_BORDER',
      cipher: `GCP_SANDBOX${padded}${suffix && `N${suffix}`}`,
      code: `${region}SBX${padded}${suffix}`,
    };
  });
}

/** Every shop an account can authorize, whichever way: what the inspection and the account's webhooks cover. */
export const everyShopOf = (account: number): SandboxShop[] => [
  ...sandboxShops(account, MAX_SHOPS, 'GB'),
  ...LOCAL_MARKETS.map((market) => localShop(account, market)),
];

/** The sandbox account a shop belongs to (its id ends in the account's number). */
export const accountOf = (shop: Pick<SandboxShop, 'id'>) => Number(BigInt(shop.id) % 1_000_000n);

/** A shop of a seller local to an EU market: the EU's rules for responsible persons and manufacturers apply to it. */
export const isEuLocal = (shop: Pick<SandboxShop, 'region' | 'seller_type'>) => shop.seller_type === 'LOCAL' && EU_REGIONS.has(shop.region);
