/** Reads the environment once into a frozen, typed configuration; a bad value is reported per field (DESIGN §1). */

import { isIP } from 'node:net';
import { type AmazonRegion, perAmazonRegion } from './domain/index.js';
import type { AmazonAdsConfig } from './platforms/amazon-ads/connect.js';
import type { AmazonSellerConfig } from './platforms/amazon-seller/connect.js';
import { queueUrlOf, readQueueArn } from './platforms/amazon-seller/order-notifications.js';
import type { EtsyConfig } from './platforms/etsy/connect.js';
import { DEFAULT_ETSY_SCOPES } from './platforms/etsy/requests.js';
import type { TikTokShopConfig } from './platforms/tiktok-shop/connect.js';

export type NodeEnv = 'development' | 'production' | 'test';

export interface Config {
  readonly nodeEnv: NodeEnv;
  readonly port: number;
  readonly host: string;
  /** `{app_url}`, without a trailing slash. `{base_url}` is `appUrl + /api/v1`. */
  readonly appUrl: string;
  /** PostgreSQL when set; otherwise PGlite in `dataDir`. */
  readonly databaseUrl: string | null;
  readonly dataDir: string;
  /** PostgreSQL: the longest wait for a pooled connection, and for any one statement, before a request gets a 503. */
  readonly databaseTimeoutMs: number;
  /** Null when unset: outside production a generated secret kept in `dataDir` stands in (see secrets.ts). */
  readonly appSecret: string | null;
  /** Earlier APP_SECRET values, still accepted when verifying tokens so a rotation logs nobody out. */
  readonly previousAppSecrets: readonly string[];
  /** 32 bytes, or null when unset (same rule as appSecret). */
  readonly encryptionKey: Buffer | null;
  readonly allowSignup: boolean;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /**
   * Which proxies' X-Forwarded-For is believed: none (false), a number of hops, a list of proxy addresses or ranges,
   * or every hop (true: any client-supplied address is believed; only behind a proxy that overwrites the header).
   */
  readonly trustProxy: TrustProxy;
  readonly bodyLimitBytes: number;
  /** Login attempts allowed per client address and per email, each per minute. */
  readonly loginRateLimit: { readonly perAddress: number; readonly perEmail: number };
  /** Sign-ups allowed per client address per minute (each costs a password hash). */
  readonly signupRateLimit: { readonly perAddress: number };
  /** Deadline of every call to a platform (DESIGN §8). */
  readonly outboundTimeoutMs: number;
  /** What the HTTP server allows a client (the README gives each default's reason). */
  readonly server: ServerLimits;
  /** How long SIGINT/SIGTERM may take in all: work in flight is cut short to end within it, and the process exits at it. */
  readonly shutdownTimeoutMs: number;
  /** Whether platforms without credentials run against the built-in simulators: always outside production, with SANDBOX=true in it. */
  readonly sandbox: boolean;
  /** Access-token lifetime the simulators grant, to watch renewals happen; null for each platform's real lifetime. */
  readonly sandboxAccessTokenTtlSeconds: number | null;
  /** How long the simulated TikTok Shop's audit of a product takes (DESIGN §10: `SANDBOX_REVIEW_SECONDS`, default 5). */
  readonly sandboxReviewSeconds: number;
  /** Whether the simulators keep their state across restarts, in the database (SANDBOX_PERSIST, on by default). */
  readonly sandboxPersist: boolean;
  /**
   * Where this service finds the simulated platforms (SANDBOX_URL): its own `/sandbox` unless another server's are
   * named, so that any number of instances can sell on one simulated Etsy, as they would on the real one.
   */
  readonly sandboxUrl: string;
  /**
   * The service the simulators this server hosts work for (SANDBOX_APP_URL, APP_URL unless set): the consent pages
   * return to its callbacks and the platforms' notifications go to it.
   */
  readonly sandboxAppUrl: string;
  /** Real client credentials per platform; null runs the platform against its sandbox (DESIGN §6). */
  readonly platforms: PlatformsConfig;
  /** Whether this instance runs the token refresh worker, how often it looks, and how early it renews. */
  readonly refresh: { readonly worker: boolean; readonly pollMs: number; readonly marginMs: number };
  /** Whether this instance sends webhook deliveries, and whether endpoints may be loopback or private addresses. */
  readonly webhooks: { readonly worker: boolean; readonly allowPrivateTargets: boolean };
  /** Whether this instance works the listing queue (every platform write of a listing). */
  readonly listings: { readonly worker: boolean };
  /** E-mail (docs/e-mail.md): the SMTP server's URL (null: no mail is sent, the dashboard shows links) and the sender. */
  readonly mail: MailConfig;
}

export interface MailConfig {
  /** `smtp://` or `smtps://`, with the user and password if the server asks for them; a secret: never logged. */
  readonly smtpUrl: string | null;
  /** The From of every mail: MAIL_FROM, or `Storelink <storelink@` the host of APP_URL `>`. */
  readonly from: string;
}

export interface ServerLimits {
  /** A whole request, headers and body, must arrive within this (408 and the connection closed otherwise). */
  readonly requestTimeoutMs: number;
  /** The request line and headers must arrive within this; at most `requestTimeoutMs`. */
  readonly headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  readonly keepAliveTimeoutMs: number;
  /** A connection on which nothing moves either way for this long is closed (a client that stops reading an answer). */
  readonly connectionTimeoutMs: number;
}

export type TrustProxy = boolean | number | readonly string[];

export interface PlatformsConfig {
  readonly etsy: EtsyConfig | null;
  readonly tiktokShop: TikTokShopConfig | null;
  /** Hosts a caller's TikTok Shop `authorization_url` may point at (the sandbox's own host is added when it runs). */
  readonly tiktokAuthorizationHosts: readonly string[];
  readonly amazonSeller: AmazonSellerConfig | null;
  readonly amazonAds: AmazonAdsConfig | null;
}

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const MIN_SECRET_LENGTH = 32;

/** Builds the Config from `env`, or throws a ConfigError listing one line per bad field. */
export function loadConfig(env: Env): Config {
  const problems: string[] = [];
  const read = <T>(name: string, parse: (raw: string) => T, fallback: T): T => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    try {
      return parse(raw);
    } catch (error) {
      if (!(error instanceof Invalid)) throw error;
      problems.push(`${name}: ${error.message}`);
      return fallback;
    }
  };

  const nodeEnv = read<NodeEnv>('NODE_ENV', (v) => oneOf(v, ['development', 'production', 'test']), 'development');
  const port = read('PORT', (v) => integerIn(v, 0, 65535), 3000);
  const host = read('HOST', (v) => v, '127.0.0.1');
  const appUrl = read('APP_URL', httpUrl, `http://localhost:${port}`);
  const databaseUrl = read<string | null>('DATABASE_URL', postgresUrl, null);
  const dataDir = read('DATA_DIR', (v) => v, './data');
  const databaseTimeoutMs = read('DATABASE_TIMEOUT_MS', (v) => integerIn(v, 100, 600_000), 5_000);
  const appSecret = read<string | null>('APP_SECRET', secret, null);
  const previousAppSecrets = read<string[]>('APP_SECRET_PREVIOUS', secretList, []);
  const encryptionKey = read<Buffer | null>(
    'ENCRYPTION_KEY',
    (v) => parseEncryptionKey(v) ?? invalid('must be 32 bytes, as 64 hex characters or base64'),
    null,
  );
  const allowSignup = read('ALLOW_SIGNUP', boolean, true);
  const logLevel = read<Config['logLevel']>('LOG_LEVEL', (v) => oneOf(v, LOG_LEVELS), 'info');
  const trustProxy = read<TrustProxy>('TRUST_PROXY', trustedProxies, false);
  const bodyLimitBytes = read('BODY_LIMIT_BYTES', (v) => integerIn(v, 1024, 10 * 1024 * 1024), 64 * 1024);
  const perAddress = read('LOGIN_RATE_LIMIT_PER_ADDRESS', (v) => integerIn(v, 1, 100_000), 20);
  const perEmail = read('LOGIN_RATE_LIMIT_PER_EMAIL', (v) => integerIn(v, 1, 100_000), 5);
  const signupsPerAddress = read('SIGNUP_RATE_LIMIT_PER_ADDRESS', (v) => integerIn(v, 1, 1_000_000), 5);

  const outboundTimeoutMs = read('OUTBOUND_TIMEOUT_MS', (v) => integerIn(v, 50, 120_000), 10_000);
  const server = readServerLimits(read, problems);
  const shutdownTimeoutMs = read('SHUTDOWN_TIMEOUT_MS', (v) => integerIn(v, 3_000, 600_000), 9_000);
  const sandbox = nodeEnv !== 'production' || read('SANDBOX', boolean, false);
  const sandboxAccessTokenTtlSeconds = read<number | null>('SANDBOX_ACCESS_TOKEN_TTL_SECONDS', (v) => integerIn(v, 30, 30 * 86_400), null);
  const sandboxReviewSeconds = read('SANDBOX_REVIEW_SECONDS', (v) => integerIn(v, 0, 86_400), 5);
  const sandboxPersist = read('SANDBOX_PERSIST', boolean, true);
  const sandboxUrl = read('SANDBOX_URL', httpUrl, `${appUrl}/sandbox`);
  const sandboxAppUrl = read('SANDBOX_APP_URL', httpUrl, appUrl);
  const platforms = readPlatforms(env, read, problems);
  const webhooks = Object.freeze({
    worker: read('WEBHOOK_WORKER', boolean, true),
    allowPrivateTargets: read('ALLOW_PRIVATE_WEBHOOK_TARGETS', boolean, nodeEnv !== 'production'),
  });
  const listings = Object.freeze({ worker: read('LISTING_WORKER', boolean, true) });
  const mail = Object.freeze({
    smtpUrl: read<string | null>('SMTP_URL', smtpUrl, null),
    from: read('MAIL_FROM', mailbox, `Storelink <storelink@${new URL(appUrl).hostname}>`),
  });
  const refresh = Object.freeze({
    worker: read('REFRESH_WORKER', boolean, true),
    pollMs: read('REFRESH_POLL_SECONDS', (v) => integerIn(v, 1, 3600), 2) * 1000,
    marginMs: read('REFRESH_MARGIN_SECONDS', (v) => integerIn(v, 10, 86_400), 600) * 1000,
  });

  if (nodeEnv === 'production') {
    if (appSecret === null && !problems.some((p) => p.startsWith('APP_SECRET:')))
      problems.push('APP_SECRET: is required when NODE_ENV=production');
    if (encryptionKey === null && !problems.some((p) => p.startsWith('ENCRYPTION_KEY:')))
      problems.push('ENCRYPTION_KEY: is required when NODE_ENV=production');
  }
  if (problems.length > 0) throw new ConfigError(problems);

  return Object.freeze({
    nodeEnv,
    port,
    host,
    appUrl,
    databaseUrl,
    dataDir,
    databaseTimeoutMs,
    appSecret,
    previousAppSecrets: Object.freeze(previousAppSecrets),
    encryptionKey,
    allowSignup,
    logLevel,
    trustProxy,
    bodyLimitBytes,
    loginRateLimit: Object.freeze({ perAddress, perEmail }),
    signupRateLimit: Object.freeze({ perAddress: signupsPerAddress }),
    outboundTimeoutMs,
    server,
    shutdownTimeoutMs,
    sandbox,
    sandboxAccessTokenTtlSeconds,
    sandboxReviewSeconds,
    sandboxPersist,
    sandboxUrl,
    sandboxAppUrl,
    platforms,
    refresh,
    webhooks,
    listings,
    mail,
  });
}

type Reader = <T>(name: string, parse: (raw: string) => T, fallback: T) => T;

/**
 * The HTTP server's limits. Without them a client sending its body one byte every few seconds holds a connection
 * forever (Fastify leaves Node's request timeout off); the defaults and their reasons are in the README.
 */
function readServerLimits(read: Reader, problems: string[]): ServerLimits {
  const ms = (name: string, fallback: number) => read(name, (v) => integerIn(v, 1_000, 3_600_000), fallback);
  const requestTimeoutMs = ms('REQUEST_TIMEOUT_MS', 30_000);
  const headersTimeoutMs = ms('HEADERS_TIMEOUT_MS', Math.min(10_000, requestTimeoutMs));
  // Node refuses a headers timeout longer than the request timeout: it could never apply.
  if (headersTimeoutMs > requestTimeoutMs)
    problems.push(`HEADERS_TIMEOUT_MS: must not exceed REQUEST_TIMEOUT_MS (${headersTimeoutMs} > ${requestTimeoutMs})`);
  const keepAliveTimeoutMs = ms('KEEP_ALIVE_TIMEOUT_MS', 72_000);
  const connectionTimeoutMs = ms('CONNECTION_TIMEOUT_MS', 120_000);
  return Object.freeze({ requestTimeoutMs, headersTimeoutMs, keepAliveTimeoutMs, connectionTimeoutMs });
}

/**
 * Each platform is configured by all of its credentials or none; a partial set is a problem, not a silent sandbox.
 * URL overrides point a real adapter elsewhere, for example at a simulator in tests.
 */
function readPlatforms(env: Env, read: Reader, problems: string[]): PlatformsConfig {
  const group = (names: readonly string[]): string[] | null => {
    const values = names.map((name) => env[name] ?? '');
    if (values.every((v) => v === '')) return null;
    const missing = names.filter((_, i) => values[i] === '');
    if (missing.length === 0) return values;
    problems.push(
      `${missing[0]}: must be set together with ${names.filter((n) => !missing.includes(n)).join(', ')} (or leave all of ${names.join(', ')} unset to use the sandbox)`,
    );
    return null;
  };
  const url = (name: string, fallback: string) => read(name, httpUrl, fallback);
  const hosts = read(
    'TIKTOK_SHOP_AUTHORIZATION_HOSTS',
    (v) =>
      v
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean),
    ['services.tiktokshop.com', 'services.tiktokshops.us', 'services.us.tiktokshop.com'],
  );

  const etsy = group(['ETSY_CLIENT_ID', 'ETSY_CLIENT_SECRET']);
  const tiktok = group(['TIKTOK_SHOP_APP_KEY', 'TIKTOK_SHOP_APP_SECRET', 'TIKTOK_SHOP_SERVICE_ID']);
  const seller = group(['AMAZON_SP_APP_ID', 'AMAZON_LWA_CLIENT_ID', 'AMAZON_LWA_CLIENT_SECRET']);
  const ads = group(['AMAZON_ADS_CLIENT_ID', 'AMAZON_ADS_CLIENT_SECRET']);
  const queue = group(['AMAZON_ORDER_QUEUE_ARN', 'AMAZON_ORDER_QUEUE_ACCESS_KEY_ID', 'AMAZON_ORDER_QUEUE_SECRET_ACCESS_KEY']);
  const queueArn = queue && readQueueArn(queue[0]!);
  if (queue && !seller)
    problems.push('AMAZON_ORDER_QUEUE_ARN: Amazon order notifications need the Amazon seller app (AMAZON_SP_APP_ID and its kin)');
  if (queue && !queueArn) problems.push('AMAZON_ORDER_QUEUE_ARN: must be an SQS queue ARN, arn:aws:sqs:{region}:{account}:{name}');
  return Object.freeze({
    etsy: etsy && {
      clientId: etsy[0]!,
      sharedSecret: etsy[1]!,
      // shops_r is added to whatever is set here (platforms/etsy/requests.ts): no shop can be looked up without it.
      scopes: read('ETSY_SCOPES', (v) => v.split(/[\s,]+/).filter(Boolean), DEFAULT_ETSY_SCOPES),
      connectUrl: url('ETSY_CONNECT_URL', 'https://www.etsy.com/oauth/connect'),
      apiUrl: url('ETSY_API_URL', 'https://api.etsy.com'),
      // The signing secret of the app's webhooks (`whsec_...`, commercial apps only): without it ORDER_PAID is refused
      // and orders are read by polling alone.
      webhookSecret: read('ETSY_WEBHOOK_SECRET', (v) => v, null as string | null),
    },
    tiktokShop: tiktok && {
      appKey: tiktok[0]!,
      appSecret: tiktok[1]!,
      serviceId: tiktok[2]!,
      authorizeUrl: url('TIKTOK_SHOP_AUTHORIZE_URL', 'https://services.tiktokshop.com/open/authorize'),
      authUrl: url('TIKTOK_SHOP_AUTH_URL', 'https://auth.tiktok-shops.com'),
      apiUrl: url('TIKTOK_SHOP_API_URL', 'https://open-api.tiktokglobalshop.com'),
    },
    tiktokAuthorizationHosts: hosts,
    amazonSeller: seller && {
      appId: seller[0]!,
      lwaClientId: seller[1]!,
      lwaClientSecret: seller[2]!,
      lwaTokenUrl: url('AMAZON_LWA_TOKEN_URL', 'https://api.amazon.com/auth/o2/token'),
      draft: read('AMAZON_SP_APP_DRAFT', boolean, false),
      regions: perAmazonRegion((region) => ({
        sellerCentralUrl: url(regional('AMAZON_SELLER_CENTRAL_URL', region), AMAZON_HOSTS[region].sellerCentral),
        apiUrl: url(regional('AMAZON_SP_API_URL', region), AMAZON_HOSTS[region].spApi),
      })),
      // The SQS queue Amazon sends ORDER_CHANGE to, and the key that reads it (docs/orders.md): without it, polling only.
      orderQueue:
        queue && queueArn
          ? {
              arn: queue[0]!,
              url: url('AMAZON_ORDER_QUEUE_URL', queueUrlOf(queue[0]!)!),
              region: queueArn.region,
              accessKeyId: queue[1]!,
              secretAccessKey: queue[2]!,
            }
          : null,
    },
    amazonAds: ads && {
      clientId: ads[0]!,
      clientSecret: ads[1]!,
      regions: perAmazonRegion((region) => ({
        authorizeUrl: url(regional('AMAZON_ADS_AUTHORIZE_URL', region), AMAZON_HOSTS[region].adsAuthorize),
        tokenUrl: url(regional('AMAZON_ADS_TOKEN_URL', region), AMAZON_HOSTS[region].adsToken),
        apiUrl: url(regional('AMAZON_ADS_API_URL', region), AMAZON_HOSTS[region].adsApi),
      })),
    },
  });
}

/**
 * Each Amazon region's hosts (platforms.md §3.1 and §4.1): the Seller Central where sellers consent (the region's main
 * one), the SP-API endpoint, and the Ads grant page, LWA token URL and API host.
 */
const AMAZON_HOSTS: Readonly<
  Record<AmazonRegion, { sellerCentral: string; spApi: string; adsAuthorize: string; adsToken: string; adsApi: string }>
> = {
  NA: {
    sellerCentral: 'https://sellercentral.amazon.com',
    spApi: 'https://sellingpartnerapi-na.amazon.com',
    adsAuthorize: 'https://www.amazon.com/ap/oa',
    adsToken: 'https://api.amazon.com/auth/o2/token',
    adsApi: 'https://advertising-api.amazon.com',
  },
  EU: {
    sellerCentral: 'https://sellercentral-europe.amazon.com',
    spApi: 'https://sellingpartnerapi-eu.amazon.com',
    adsAuthorize: 'https://eu.account.amazon.com/ap/oa',
    adsToken: 'https://api.amazon.co.uk/auth/o2/token',
    adsApi: 'https://advertising-api-eu.amazon.com',
  },
  FE: {
    sellerCentral: 'https://sellercentral.amazon.co.jp',
    spApi: 'https://sellingpartnerapi-fe.amazon.com',
    adsAuthorize: 'https://apac.account.amazon.com/ap/oa',
    adsToken: 'https://api.amazon.co.jp/auth/o2/token',
    adsApi: 'https://advertising-api-fe.amazon.com',
  },
};

/** A region's variant of a URL override: the plain name is NA's (as before regions), `_EU` and `_FE` the others'. */
function regional(name: string, region: AmazonRegion): string {
  return region === 'NA' ? name : `${name}_${region}`;
}

/** 32 bytes from 64 hex characters or from base64 (standard or url-safe); null when it is neither. */
export function parseEncryptionKey(raw: string): Buffer | null {
  if (/^[0-9a-fA-F]{64}$/.test(raw)) return Buffer.from(raw, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(raw)) {
    const key = Buffer.from(raw, 'base64url');
    if (key.length === 32) return key;
  }
  return null;
}

/** A bad value of one variable; `read` turns it into a line of the report. */
class Invalid extends Error {}

function invalid(message: string): never {
  throw new Invalid(message);
}

function oneOf<T extends string>(value: string, allowed: readonly T[]): T {
  return (allowed as readonly string[]).includes(value) ? (value as T) : invalid(`must be one of ${allowed.join(', ')} (got "${value}")`);
}

function integerIn(value: string, min: number, max: number): number {
  if (!/^-?\d+$/.test(value)) return invalid(`must be an integer (got "${value}")`);
  const n = Number(value);
  return n >= min && n <= max ? n : invalid(`must be between ${min} and ${max} (got ${value})`);
}

function boolean(value: string): boolean {
  if (['true', '1', 'yes'].includes(value.toLowerCase())) return true;
  if (['false', '0', 'no'].includes(value.toLowerCase())) return false;
  return invalid(`must be true or false (got "${value}")`);
}

/** proxy-addr's names for the loopback, link-local and unique-local ranges (Fastify's trustProxy accepts them). */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/**
 * TRUST_PROXY: true or false (also yes/no), a number of proxy hops (0 is false), or a comma-separated list of proxy
 * addresses, CIDR ranges and proxy-addr's range names.
 */
function trustedProxies(value: string): TrustProxy {
  const lower = value.trim().toLowerCase();
  if (lower === 'true' || lower === 'yes') return true;
  if (lower === 'false' || lower === 'no') return false;
  if (/^[0-9]{1,3}$/.test(lower)) return Number(lower) === 0 ? false : Number(lower);
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length > 0 && entries.every(isProxyAddress)) return Object.freeze(entries);
  return invalid(
    `must be true, false, a number of proxy hops, or a comma-separated list of proxy addresses or CIDR ranges (got "${value}")`,
  );
}

function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.includes(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

function httpUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return invalid(`must be an http or https URL (got "${value}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return invalid(`must be an http or https URL (got "${value}")`);
  if (url.search || url.hash) return invalid('must not carry a query or fragment');
  return value.replace(/\/+$/, '');
}

/** SMTP_URL: never echoed in the problem, as it may carry the server's password. */
function smtpUrl(value: string): string {
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {}
  if (!url || (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || !url.hostname)
    return invalid('must be an smtp:// or smtps:// URL, such as smtps://user:password@mail.example.com:465');
  return value;
}

/** MAIL_FROM: an address, or a name and an address in angle brackets, on one line. */
function mailbox(value: string): string {
  const address = /<([^<>\s]+)>\s*$/.exec(value)?.[1] ?? value.trim();
  return /^[^@\s<>]+@[^@\s<>]+$/.test(address) && !/[\r\n]/.test(value)
    ? value.trim()
    : invalid(`must be an e-mail address, or a name and <address> (got "${value}")`);
}

function postgresUrl(value: string): string {
  return /^postgres(ql)?:\/\//.test(value) ? value : invalid('must be a postgres:// or postgresql:// URL');
}

function secret(value: string): string {
  return value.length >= MIN_SECRET_LENGTH ? value : invalid(`must be at least ${MIN_SECRET_LENGTH} characters (got ${value.length})`);
}

function secretList(value: string): string[] {
  const secrets = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return secrets.every((s) => s.length >= MIN_SECRET_LENGTH)
    ? secrets
    : invalid(`each secret must be at least ${MIN_SECRET_LENGTH} characters`);
}
