/**
 * GET /platforms: what a workspace can connect, as the dashboard's catalogue shows it. Each track with the platform id
 * and fields POST /authenticate-site takes for it, what its connection allows in Storelink, and whether this server
 * runs it against its sandbox (no credentials configured) rather than the platform itself.
 */

import Type from 'typebox';
import type { Config } from '../config.js';
import { TRACKS, type Track } from '../domain/index.js';
import type { App } from './access.js';
import { Ok, OneOf, ok } from './schemas.js';

const ABOUT: Readonly<Record<Track, { name: string; platformId: 1 | 4 | 5; needsSite: boolean; allows: string[] }>> = {
  etsy: {
    name: 'Etsy',
    platformId: 1,
    needsSite: false,
    allows: ['Publish catalogue products as Etsy listings', 'Import the shop’s listings', 'Keep prices and stock in sync'],
  },
  'tiktok-shop': {
    name: 'TikTok Shop',
    platformId: 4,
    needsSite: false,
    allows: ['Publish products to each shop of the account', 'Import the shops’ products', 'Follow TikTok’s review'],
  },
  'amazon-seller': {
    name: 'Amazon',
    platformId: 5,
    needsSite: false,
    allows: ['List products or offers on existing ASINs', 'Import the account’s listings', 'Keep prices and stock in sync'],
  },
  'amazon-ads': {
    name: 'Amazon Ads',
    platformId: 5,
    needsSite: true,
    allows: ['Advertising profiles for a connected Amazon seller site'],
  },
};

const CONFIG_OF: Readonly<Record<Track, keyof Config['platforms']>> = {
  etsy: 'etsy',
  'tiktok-shop': 'tiktokShop',
  'amazon-seller': 'amazonSeller',
  'amazon-ads': 'amazonAds',
};

const PlatformSchema = Type.Object({
  track: OneOf(TRACKS),
  name: Type.String(),
  platform_id: Type.Integer({ description: 'What POST /authenticate-site takes' }),
  needs_site: Type.Boolean({ description: 'Connected onto a site of the workspace (its site_id): Amazon Ads onto an Amazon seller site' }),
  allows: Type.Array(Type.String(), { description: 'What the connection gives in Storelink' }),
  sandbox: Type.Boolean({ description: "Run against this server's simulator: no credentials for the platform are configured" }),
});

/** The services the routes use. */
export interface PlatformRoutesServices {
  readonly config: Pick<Config, 'sandbox' | 'platforms'>;
}

export function registerPlatformRoutes(app: App, deps: PlatformRoutesServices) {
  const platforms = TRACKS.map((track) => {
    const about = ABOUT[track];
    return {
      track,
      name: about.name,
      platform_id: about.platformId,
      needs_site: about.needsSite,
      allows: about.allows,
      sandbox: deps.config.sandbox && deps.config.platforms[CONFIG_OF[track]] === null,
    };
  });
  app.get(
    '/platforms',
    {
      config: { access: 'user' },
      schema: {
        summary: 'The platforms a workspace can connect, what each allows, and which run against the sandbox',
        tags: ['connect'],
        response: { 200: Ok(Type.Array(PlatformSchema)) },
      },
    },
    async () => ok(platforms),
  );
}
