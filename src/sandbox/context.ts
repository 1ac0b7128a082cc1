/** What every simulator shares: signed tokens, faults, the clock, call counts, and the sandbox's fixed client credentials. */

import type { Track } from '../domain/index.js';
import type { Clock } from '../lib/clock.js';
import type { SandboxFaults } from './faults.js';
import type { SandboxStateStore, StateParts } from './state.js';
import type { SandboxTokens } from './tokens.js';

/** Client credentials the simulators accept: not secrets, since the sandbox guards nothing real. */
export const SANDBOX_CLIENTS = {
  etsy: {
    clientId: 'sandbox-etsy-keystring',
    sharedSecret: 'sandbox-etsy-shared-secret',
    // Standard Webhooks' form: `whsec_` and the base64 of the key's bytes.
    webhookSecret: `whsec_${Buffer.from('sandbox-etsy-webhook-signing-key').toString('base64')}`,
  },
  tiktokShop: { appKey: 'sandbox-tiktok-app-key', appSecret: 'sandbox-tiktok-app-secret', serviceId: 'sandbox-tiktok-service' },
  amazonSeller: {
    appId: 'amzn1.sellerapps.app.sandbox',
    lwaClientId: 'amzn1.application-oa2-client.sandbox-seller',
    lwaClientSecret: 'sandbox-lwa-secret',
  },
  amazonAds: { clientId: 'amzn1.application-oa2-client.sandbox-ads', clientSecret: 'sandbox-ads-secret' },
  // The AWS account whose SQS queue receives the sandbox Amazon's notifications (amazon-seller/sqs.ts): an IAM user's
  // access key (`AKIA` and 16 more, 20 characters) and its secret, for SigV4.
  amazonSqs: {
    accessKeyId: 'AKIASANDBOXSTORELINK',
    secretAccessKey: 'sandbox-aws-secret-access-key',
    region: 'us-east-1',
    accountId: '000000000000',
    queueName: 'storelink-amazon-orders',
  },
} as const;

/**
 * Etsy's per-API-key budget: requests per second and per rolling day. The defaults are the documented ones of a new app
 * (10 QPS, 10,000 QPD; listings.md §1.10); tests lower or raise them on the context.
 */
export interface EtsyLimits {
  perSecond: number;
  perDay: number;
}
export const DEFAULT_ETSY_LIMITS: Readonly<EtsyLimits> = { perSecond: 10, perDay: 10_000 };

/**
 * TikTok Shop's limits: requests a second per shop and API (50, listings.md §2.8), and new products a shop may create
 * a day. Every new shop is on probation at first, 100 uploads a day, and 1,000 once it graduates (TikTok's Products API
 * overview, listings.md §2.2 [T1]): the sandbox's shops are new ones; a test or the bench gives them more.
 */
export interface TikTokLimits {
  perSecond: number;
  uploadsPerDay: number;
}
export const DEFAULT_TIKTOK_LIMITS: Readonly<TikTokLimits> = { perSecond: 50, uploadsPerDay: 100 };
/** A shop out of probation: 1,000 new products a day (listings.md §2.2 [T1]). */
export const GRADUATED_UPLOADS_PER_DAY = 1_000;

export interface SandboxContext {
  readonly tokens: SandboxTokens;
  readonly faults: SandboxFaults;
  readonly clock: Clock;
  /** The redirect URI "registered" with the simulated platform: this service's callback for the track. */
  callbackUrl(track: Track): string;
  /** Where the simulators are served (`<app url>/sandbox`): the base of what they host themselves, such as images. */
  readonly sandboxUrl: string;
  /** Where a simulated platform sends its webhooks: the URL registered with it (Storelink's notification endpoint). */
  notificationUrl(track: Track): string;
  /**
   * Tracks whose webhooks are lost on the way (never sent): a platform does not promise every notification arrives, so
   * a test of the polling that stands in for a lost one sets this.
   */
  readonly lostNotifications: Set<Track>;
  /** Told of each revocation on `/sandbox/revoke`, after it took effect (a simulator that notifies its app of it). */
  readonly revokeListeners: ((track: Track, account: number) => void)[];
  /**
   * Told when the app begins to close, before its server waits for the requests under way: a simulator holding a
   * request open (SQS's long poll) answers it then, rather than holding the close up to the end of its wait.
   */
  readonly closeListeners: (() => void)[];
  /**
   * Settled once the simulators are built, on their first request under /sandbox (app.ts): a reader of their own SQS
   * queue, which only they fill, waits for it.
   */
  readonly built: Promise<void>;
  /** Called by whatever built the simulators, once they answer. */
  markBuilt(): void;
  /** Calls per `track:endpoint`, for tests. */
  readonly calls: Map<string, number>;
  /** Access-token lifetime every simulator grants, in seconds; null for each platform's real one. */
  readonly accessTokenTtlSeconds: number | null;
  /** `track:account` grants the user revoked on the simulated platform: their refresh tokens are refused. */
  readonly revokedGrants: Set<string>;
  /** The Etsy simulator's rate limits, read at each call so a test can change them on a running app. */
  readonly etsyLimits: EtsyLimits;
  /** TikTok Shop's requests a second per shop and API, and new products a shop may create a day (DEFAULT_TIKTOK_LIMITS). */
  readonly tiktokLimits: TikTokLimits;
  /** How long the simulated TikTok Shop's audit of a product takes, in seconds. */
  readonly reviewSeconds: number;
  /** The stores' state parts (state.ts), registered as the simulators are built. */
  readonly stateParts: StateParts;
  /** Where the parts are saved across restarts, or null when the sandbox keeps its state in memory only (SANDBOX_PERSIST). */
  readonly stateStore: SandboxStateStore | null;
}

/** True when the sandbox account's grant on this track was revoked (POST /sandbox/revoke). */
export function isRevoked(context: SandboxContext, track: Track, account: unknown): boolean {
  return context.revokedGrants.has(`${track}:${String(account)}`);
}

/**
 * The account consented again on the track: its revocation (POST /sandbox/revoke) is over, as a new consent on the
 * platform gives the app a new grant. (The platforms keep the old grant's tokens dead; the sandbox's revocation is per
 * account, so they work again: a test of a revoked token revokes after its last consent.)
 */
export function consented(context: SandboxContext, track: Track, account: number): void {
  context.revokedGrants.delete(`${track}:${account}`);
}

export function countCall(context: SandboxContext, track: Track, endpoint: string): void {
  const key = `${track}:${endpoint}`;
  context.calls.set(key, (context.calls.get(key) ?? 0) + 1);
}

export type Decision = 'allow' | 'deny' | 'fail';
export const CONSENT_CHOICE_PROBLEM = 'decision must be allow, deny or fail, and account a number.';

/** What was chosen on a consent page: the decision and the sandbox account number (1 to 999999, default 1); null for anything else. */
export function readConsent(form: Readonly<Record<string, string | undefined>>): { decision: Decision; account: number } | null {
  const account = form.account ?? '1';
  const decision = form.decision;
  if (!/^[0-9]{1,6}$/.test(account) || Number(account) === 0) return null;
  if (decision !== 'allow' && decision !== 'deny' && decision !== 'fail') return null;
  return { decision, account: Number(account) };
}
