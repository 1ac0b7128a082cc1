/** One adapter per track: the real platform when its credentials are configured, else its sandbox simulator (DESIGN §6). */
import type { Clock } from '../core/clock.js';
import type { Adapters } from '../core/connect.service.js';
import type { ResolvedConfig } from '../secrets.js';
import { createEtsyAdapter } from './etsy/adapter.js';
import type { PlatformHttp } from './http.js';
import { isValidRedirectUrl } from '../core/redirects.js';
import { SANDBOX_CLIENTS } from './sandbox/context.js';

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

  return { etsy, 'tiktok-shop': null, 'amazon-seller': null, 'amazon-ads': null };
}

/**
 * A caller's TikTok Shop `authorization_url` (DESIGN §4): https on a configured authorization host, or, while TikTok Shop
 * runs against the sandbox, the simulator's own authorize page.
 */
export function isAllowedTikTokAuthorizationUrl(config: ResolvedConfig, raw: string): boolean {
  if (!isValidRedirectUrl(raw)) return false;
  const url = new URL(raw);
  if (!config.platforms.tiktokShop && config.sandbox && raw.startsWith(`${sandboxBaseUrl(config.appUrl, 'tiktok-shop')}/authorize`)) return true;
  return url.protocol === 'https:' && config.platforms.tiktokAuthorizationHosts.includes(url.hostname.toLowerCase());
}
