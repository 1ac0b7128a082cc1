/**
 * The shops a sandbox TikTok seller authorizes, shaped as Get Authorized Shops answers them (platforms.md §2.6,
 * https://partner.tiktokshop.com/docv2/page/get-authorized-shops-202309): `{id, name, region, seller_type, cipher, code}`.
 */

/** How many shops one authorization may cover in the sandbox; the consent page offers 1 to this. */
export const MAX_SHOPS = 5;

/** One country per shop of a cross-border seller, in order; a seller with one shop is local to the first. */
const REGIONS = ['GB', 'US', 'DE', 'FR', 'ES'] as const;

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

/**
 * The `count` shops of an account. Each shop's id, cipher and code depend only on the account and the shop's position,
 * so they stay the same across authorizations and differ between accounts and shops; the first shop's are the ones
 * the simulator gave before it offered several.
 */
export function sandboxShops(account: number, count: number): SandboxShop[] {
  const padded = String(account).padStart(6, '0');
  return REGIONS.slice(0, count).map((region, index) => {
    const suffix = index === 0 ? '' : String(index + 1);
    return {
      id: String(7_000_714_532_000_000 + index * 1_000_000 + account),
      name: `Sandbox TikTok Shop ${account}${suffix && `-${suffix}`}`,
      region,
      seller_type: count === 1 ? 'LOCAL' : 'CROSS_BORDER',
      cipher: `GCP_SANDBOX${padded}${suffix && `N${suffix}`}`,
      code: `${region}SBX${padded}${suffix}`,
    };
  });
}
