/** One adapter per track: the real platform when its credentials are configured, else its sandbox simulator (DESIGN §6). */
import { type AmazonRegion, perAmazonRegion, type SitePlatform, type Track } from '../domain/index.js';
import type { Clock } from '../lib/clock.js';
import { createAmazonAdsAdvertisingAdapter } from './amazon-ads/advertising.js';
import { type AmazonAdsConfig, createAmazonAdsConnectAdapter } from './amazon-ads/connect.js';
import { type AmazonSellerConfig, createAmazonSellerConnectAdapter } from './amazon-seller/connect.js';
import { AMAZON_SELLER_LISTING_SETTINGS } from './amazon-seller/listing-settings.js';
import { createAmazonSellerListingsAdapter } from './amazon-seller/listings.js';
import { createAmazonOrderQueue } from './amazon-seller/order-notifications.js';
import { createAmazonSellerOrdersAdapter } from './amazon-seller/orders.js';
import type { AdvertisingAdapter } from './contracts/advertising.js';
import type { ConnectAdapter } from './contracts/connect.js';
import type { ListingSettingsSpec, ListingsAdapter } from './contracts/listings.js';
import type { NotificationQueue, NotificationsAdapter } from './contracts/notifications.js';
import type { OrdersAdapter } from './contracts/orders.js';
import { createEtsyConnectAdapter, type EtsyConfig } from './etsy/connect.js';
import { ETSY_LISTING_SETTINGS } from './etsy/listing-settings.js';
import { createEtsyListingsAdapter } from './etsy/listings.js';
import { createEtsyNotificationsAdapter } from './etsy/notifications.js';
import { createEtsyOrdersAdapter } from './etsy/orders.js';
import { DEFAULT_ETSY_SCOPES } from './etsy/requests.js';
import type { PlatformHttp } from './http.js';
import { createTikTokShopConnectAdapter, type TikTokShopConfig } from './tiktok-shop/connect.js';
import { TIKTOK_SHOP_LISTING_SETTINGS } from './tiktok-shop/listing-settings.js';
import { createTikTokShopListingsAdapter } from './tiktok-shop/listings.js';
import { createTikTokShopNotificationsAdapter } from './tiktok-shop/notifications.js';
import { createTikTokShopOrdersAdapter } from './tiktok-shop/orders.js';

/** Each track's connect adapter; null when the track has neither credentials nor a sandbox to run against. */
export type Adapters = Readonly<Record<Track, ConnectAdapter | null>>;

/**
 * The client credentials the simulators accept. They are the sandbox's to define, so the composition root passes
 * them in (src/sandbox/context.ts's SANDBOX_CLIENTS) rather than the platforms importing the sandbox.
 */
export interface SandboxClients {
  readonly etsy: { readonly clientId: string; readonly sharedSecret: string; readonly webhookSecret: string };
  readonly tiktokShop: { readonly appKey: string; readonly appSecret: string; readonly serviceId: string };
  readonly amazonSeller: { readonly appId: string; readonly lwaClientId: string; readonly lwaClientSecret: string };
  /** The sandbox's AWS account, its queue of Amazon's order notifications and the key that reads it. */
  readonly amazonSqs: {
    readonly accessKeyId: string;
    readonly secretAccessKey: string;
    readonly region: string;
    readonly accountId: string;
    readonly queueName: string;
  };
  readonly amazonAds: { readonly clientId: string; readonly clientSecret: string };
}

/**
 * What the registry reads of the service's configuration: src/config.ts's Config fits it. Spelled out here because
 * platforms import nothing outside src/platforms, src/domain and src/lib.
 */
export interface RegistryConfig {
  readonly appUrl: string;
  /** Whether platforms without credentials run against the simulators. */
  readonly sandbox: boolean;
  /** Where the simulators are served: this service's own `/sandbox`, or another server's. */
  readonly sandboxUrl: string;
  /** The service the simulators this server hosts work for: itself, or another (SANDBOX_APP_URL). */
  readonly sandboxAppUrl: string;
  /** Each platform's real credentials and URLs, or null. */
  readonly platforms: {
    readonly etsy: EtsyConfig | null;
    readonly tiktokShop: TikTokShopConfig | null;
    readonly amazonSeller: AmazonSellerConfig | null;
    readonly amazonAds: AmazonAdsConfig | null;
    /** Hosts a caller's TikTok Shop `authorization_url` may point at, over https. */
    readonly tiktokAuthorizationHosts: readonly string[];
  };
}

/** A track's simulator under `sandboxUrl`: the browser opens its pages and the adapters call it at the same address. */
export function sandboxBaseUrl(sandboxUrl: string, track: Track): string {
  return `${sandboxUrl}/${track}`;
}

/** Whether the simulators this server calls are its own (SANDBOX_URL left at its `/sandbox`). */
const simulatorsHere = (config: RegistryConfig) => config.sandboxUrl === `${config.appUrl}/sandbox`;

/** Whether this server's simulators are the ones it calls and they work for another service (SANDBOX_APP_URL). */
const servesAnother = (config: RegistryConfig) => simulatorsHere(config) && config.sandboxAppUrl !== config.appUrl;

/** A simulated Amazon region's base: NA at the track's own base, the others under `/eu` and `/fe` (src/sandbox/amazon-*). */
export function sandboxRegionUrl(base: string, region: AmazonRegion): string {
  return region === 'NA' ? base : `${base}/${region.toLowerCase()}`;
}

/** Each platform's configuration: its real credentials, else its simulator's when the sandbox runs, else null. */
export function platformConfigs(config: RegistryConfig, clients: SandboxClients) {
  const { platforms } = config;
  // A track's configuration for its simulator, when platforms without credentials run against the sandbox.
  const simulated = <T>(track: Track, build: (base: string) => T): T | null =>
    config.sandbox ? build(sandboxBaseUrl(config.sandboxUrl, track)) : null;

  const etsy =
    platforms.etsy ??
    simulated('etsy', (base) => ({
      ...clients.etsy,
      scopes: DEFAULT_ETSY_SCOPES,
      connectUrl: `${base}/authorize`,
      apiUrl: base,
    }));
  const tiktokShop =
    platforms.tiktokShop ??
    simulated('tiktok-shop', (base) => ({
      ...clients.tiktokShop,
      authorizeUrl: `${base}/authorize`,
      authUrl: base,
      apiUrl: base,
    }));
  const amazonSeller =
    platforms.amazonSeller ??
    simulated('amazon-seller', (base) => ({
      ...clients.amazonSeller,
      lwaTokenUrl: `${base}/auth/o2/token`,
      draft: false,
      regions: perAmazonRegion((region) => ({ sellerCentralUrl: sandboxRegionUrl(base, region), apiUrl: sandboxRegionUrl(base, region) })),
      // The simulator's SQS, served at `{base}/sqs/` with its queues below it, as SQS serves them at its root. Its
      // notifications are for the service its simulators work for: a server whose own simulators work for another
      // leaves that service's queue alone, or it would take (and drop) the messages meant for it.
      orderQueue: servesAnother(config)
        ? null
        : {
            arn: `arn:aws:sqs:${clients.amazonSqs.region}:${clients.amazonSqs.accountId}:${clients.amazonSqs.queueName}`,
            url: `${base}/sqs/${clients.amazonSqs.accountId}/${clients.amazonSqs.queueName}`,
            region: clients.amazonSqs.region,
            accessKeyId: clients.amazonSqs.accessKeyId,
            secretAccessKey: clients.amazonSqs.secretAccessKey,
          },
    }));
  const amazonAds =
    platforms.amazonAds ??
    simulated('amazon-ads', (base) => ({
      ...clients.amazonAds,
      regions: perAmazonRegion((region) => {
        const regional = sandboxRegionUrl(base, region);
        return { authorizeUrl: `${regional}/authorize`, tokenUrl: `${regional}/auth/o2/token`, apiUrl: regional };
      }),
    }));

  return { etsy, tiktokShop, amazonSeller, amazonAds };
}

/** Every track's connect adapter; `clients` are what the simulators accept (src/deps.ts passes SANDBOX_CLIENTS). */
export function createAdapters(config: RegistryConfig, deps: { http: PlatformHttp; clock: Clock }, clients: SandboxClients): Adapters {
  const { etsy, tiktokShop, amazonSeller, amazonAds } = platformConfigs(config, clients);
  return {
    etsy: etsy ? createEtsyConnectAdapter(etsy, deps) : null,
    'tiktok-shop': tiktokShop
      ? createTikTokShopConnectAdapter(tiktokShop, deps, {
          hosts: config.platforms.tiktokAuthorizationHosts,
          // Against the simulator, its own authorize page is a link a caller may hand in too.
          simulatorPage: config.platforms.tiktokShop ? null : tiktokShop.authorizeUrl,
        })
      : null,
    'amazon-seller': amazonSeller ? createAmazonSellerConnectAdapter(amazonSeller, deps) : null,
    'amazon-ads': amazonAds ? createAmazonAdsConnectAdapter(amazonAds, deps) : null,
  };
}

/**
 * Each seller platform's listing settings, declared in its folder (`listing-settings.ts`). Known without configuration,
 * unlike the adapters: a site's settings are read and replaced while its platform has no credentials.
 */
export const LISTING_SETTINGS: Readonly<Record<SitePlatform, ListingSettingsSpec>> = {
  etsy: ETSY_LISTING_SETTINGS,
  'tiktok-shop': TIKTOK_SHOP_LISTING_SETTINGS,
  'amazon-seller': AMAZON_SELLER_LISTING_SETTINGS,
};

/**
 * The listings capability of each seller platform. Amazon's calls go to the region of the listing's marketplace
 * (`config.regions[region].apiUrl`): connecting stores the site's marketplaces, not its region, and a marketplace
 * belongs to one region (amazon-seller/listing-requests.ts).
 */
export type ListingsAdapters = Readonly<Partial<Record<SitePlatform, ListingsAdapter>>>;

export function createListingsAdapters(
  config: RegistryConfig,
  deps: { http: PlatformHttp; clock: Clock },
  clients: SandboxClients,
): ListingsAdapters {
  const { etsy, tiktokShop, amazonSeller } = platformConfigs(config, clients);
  return {
    ...(etsy ? { etsy: createEtsyListingsAdapter(etsy, deps) } : {}),
    ...(tiktokShop ? { 'tiktok-shop': createTikTokShopListingsAdapter(tiktokShop, deps) } : {}),
    ...(amazonSeller ? { 'amazon-seller': createAmazonSellerListingsAdapter(amazonSeller, deps) } : {}),
  };
}

/** The orders capability of each seller platform (DESIGN §14). */
export type OrdersAdapters = Readonly<Partial<Record<SitePlatform, OrdersAdapter>>>;

export function createOrdersAdapters(
  config: RegistryConfig,
  deps: { http: PlatformHttp; clock: Clock },
  clients: SandboxClients,
): OrdersAdapters {
  const { etsy, tiktokShop, amazonSeller } = platformConfigs(config, clients);
  return {
    ...(etsy ? { etsy: createEtsyOrdersAdapter(etsy, deps) } : {}),
    ...(tiktokShop ? { 'tiktok-shop': createTikTokShopOrdersAdapter(tiktokShop, deps) } : {}),
    ...(amazonSeller ? { 'amazon-seller': createAmazonSellerOrdersAdapter(amazonSeller, deps) } : {}),
  };
}

/** The advertising capability (Amazon Ads' Sponsored Products); null when Amazon Ads has neither credentials nor a sandbox. */
export function createAdvertisingAdapter(
  config: RegistryConfig,
  deps: { http: PlatformHttp; clock: Clock },
  clients: SandboxClients,
): AdvertisingAdapter | null {
  const { amazonAds } = platformConfigs(config, clients);
  return amazonAds ? createAmazonAdsAdvertisingAdapter(amazonAds, deps) : null;
}

/** The notifications capability of each seller platform that pushes any (TikTok Shop's webhooks, Etsy's ORDER_PAID). */
export type NotificationsAdapters = Readonly<Partial<Record<SitePlatform, NotificationsAdapter>>>;

/** The queues platforms deliver notifications to, which Storelink reads: Amazon's order queue, where one is configured. */
export type NotificationQueues = Readonly<Partial<Record<SitePlatform, NotificationQueue>>>;

export function createNotificationQueues(
  config: RegistryConfig,
  deps: { http: PlatformHttp; clock: Clock },
  clients: SandboxClients,
): NotificationQueues {
  const { amazonSeller } = platformConfigs(config, clients);
  const queue = amazonSeller?.orderQueue;
  return queue ? { 'amazon-seller': createAmazonOrderQueue({ ...amazonSeller, orderQueue: queue }, deps) } : {};
}

/**
 * Whether Amazon's order queue is the simulator this server serves itself (no Amazon credentials, the sandbox here).
 * That queue is held in this process's memory and filled only by its simulators, so it is empty until they are built
 * on their first request: read before then, its long poll alone would build them (docs/decisions.md, "The simulators
 * load on their first request").
 */
export function ordersQueueIsOwnSimulator(config: RegistryConfig): boolean {
  return config.sandbox && !config.platforms.amazonSeller && simulatorsHere(config);
}

/**
 * Each platform's notifications, checked against its app's credentials (its simulator's when the sandbox stands in), and
 * their times against the service's clock.
 */
export function createNotificationsAdapters(config: RegistryConfig, clients: SandboxClients, clock: Clock): NotificationsAdapters {
  const { etsy, tiktokShop } = platformConfigs(config, clients);
  return {
    ...(etsy?.webhookSecret ? { etsy: createEtsyNotificationsAdapter(etsy.webhookSecret, clock) } : {}),
    ...(tiktokShop ? { 'tiktok-shop': createTikTokShopNotificationsAdapter(tiktokShop) } : {}),
  };
}
