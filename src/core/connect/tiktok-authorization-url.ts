/** Which TikTok Shop authorization links a caller may hand to POST /authenticate-site (DESIGN §4). */
import type { Config } from '../../config.js';
import { sandboxBaseUrl } from '../../platforms/registry.js';
import { isValidRedirectUrl } from './redirects.js';

/** What of the configuration the rule reads: whether TikTok Shop runs against the sandbox, and the allowed hosts. */
export type TikTokAuthorizationConfig = Pick<Config, 'appUrl' | 'sandbox'> & {
  readonly platforms: Pick<Config['platforms'], 'tiktokShop' | 'tiktokAuthorizationHosts'>;
};

/**
 * A caller's TikTok Shop `authorization_url`: https on a configured authorization host, or, while TikTok Shop runs
 * against the sandbox, the simulator's own authorize page.
 */
export function isAllowedTikTokAuthorizationUrl(config: TikTokAuthorizationConfig, raw: string): boolean {
  if (!isValidRedirectUrl(raw)) return false;
  const url = new URL(raw);
  if (!config.platforms.tiktokShop && config.sandbox) {
    // Compared parsed, so `/authorize/../..` or `/authorizeX` cannot pass for the simulator's page.
    const sandboxPage = new URL(`${sandboxBaseUrl(config.appUrl, 'tiktok-shop')}/authorize`);
    if (url.origin === sandboxPage.origin && url.pathname === sandboxPage.pathname) return true;
  }
  return url.protocol === 'https:' && config.platforms.tiktokAuthorizationHosts.includes(url.hostname.toLowerCase());
}
