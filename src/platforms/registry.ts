/** One adapter per track: the real platform when its credentials are configured, else its sandbox simulator (DESIGN §6). */
import type { Clock } from '../lib/clock.js';
import type { Adapters } from '../core/connect/connect.service.js';
import type { ResolvedConfig } from '../secrets.js';
import { createAmazonAdsAdapter } from './amazon-ads/connect.js';
import { createAmazonSellerAdapter } from './amazon-seller/connect.js';
import { createEtsyAdapter } from './etsy/connect.js';
import { createTikTokShopAdapter } from './tiktok-shop/connect.js';
import type { PlatformHttp } from './http.js';
import { isValidRedirectUrl } from '../core/connect/redirects.js';
import { SANDBOX_CLIENTS } from '../sandbox/context.js';

export const DEFAULT_ETSY_SCOPES = ['shops_r', 'listings_r', 'listings_w', 'transactions_r'];

/** Where the simulators are served: the browser opens their pages and the adapters call them at the same address. */
export function sandboxBaseUrl(appUrl: string, track: string): string {
  return `${appUrl}/sandbox/${track}`;
}

export function createAdapters(config: ResolvedConfig, deps: { http: PlatformHttp; clock: Clock }): Adapters {
  const { platforms } = config;
  const sandbox = (track: string) => (config.sandbox ? sandboxBaseUrl(config.appUrl, track) : null);

  const etsyBase = sandbox('etsy');
  const etsy = platforms.etsy
    ? createEtsyAdapter({ ...platforms.etsy, sandbox: false }, deps)
    : etsyBase
      ? createEtsyAdapter({ ...SANDBOX_CLIENTS.etsy, scopes: DEFAULT_ETSY_SCOPES, connectUrl: `${etsyBase}/authorize`, apiUrl: etsyBase, sandbox: true }, deps)
      : null;

  const tiktokBase = sandbox('tiktok-shop');
  const tiktokShop = platforms.tiktokShop
    ? createTikTokShopAdapter({ ...platforms.tiktokShop, sandbox: false }, deps)
    : tiktokBase
      ? createTikTokShopAdapter({ ...SANDBOX_CLIENTS.tiktokShop, authorizeUrl: `${tiktokBase}/authorize`, authUrl: tiktokBase, apiUrl: tiktokBase, sandbox: true }, deps)
      : null;

  const sellerBase = sandbox('amazon-seller');
  const amazonSeller = platforms.amazonSeller
    ? createAmazonSellerAdapter({ ...platforms.amazonSeller, consentUrl: `${platforms.amazonSeller.sellerCentralUrl}/apps/authorize/consent`, sandbox: false }, deps)
    : sellerBase
      ? createAmazonSellerAdapter({ ...SANDBOX_CLIENTS.amazonSeller, consentUrl: `${sellerBase}/authorize`, lwaTokenUrl: `${sellerBase}/auth/o2/token`, draft: false, sandbox: true }, deps)
      : null;

  const adsBase = sandbox('amazon-ads');
  const amazonAds = platforms.amazonAds
    ? createAmazonAdsAdapter({ ...platforms.amazonAds, sandbox: false }, deps)
    : adsBase
      ? createAmazonAdsAdapter({ ...SANDBOX_CLIENTS.amazonAds, authorizeUrl: `${adsBase}/authorize`, tokenUrl: `${adsBase}/auth/o2/token`, apiUrl: adsBase, sandbox: true }, deps)
      : null;

  return { etsy, 'tiktok-shop': tiktokShop, 'amazon-seller': amazonSeller, 'amazon-ads': amazonAds };
}

/**
 * A caller's TikTok Shop `authorization_url` (DESIGN §4): https on a configured authorization host, or, while TikTok Shop
 * runs against the sandbox, the simulator's own authorize page.
 */
export function isAllowedTikTokAuthorizationUrl(config: ResolvedConfig, raw: string): boolean {
  if (!isValidRedirectUrl(raw)) return false;
  const url = new URL(raw);
  if (!config.platforms.tiktokShop && config.sandbox) {
    // Compared parsed, so `/authorize/../..` or `/authorizeX` cannot pass for the simulator's page.
    const sandboxPage = new URL(`${sandboxBaseUrl(config.appUrl, 'tiktok-shop')}/authorize`);
    if (url.origin === sandboxPage.origin && url.pathname === sandboxPage.pathname) return true;
  }
  return url.protocol === 'https:' && config.platforms.tiktokAuthorizationHosts.includes(url.hostname.toLowerCase());
}
