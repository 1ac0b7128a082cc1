/**
 * The notifications capability (issue "status from the platforms"): what a platform pushes to Storelink, checked as
 * the platform's own before anything is read, then told in platform-neutral words for core to act on.
 */
import type { SitePlatform } from '../../domain/index.js';

/**
 * A notification in Storelink's words, about the platform account `accountId` (a site's external id). Kinds are added
 * as features need them (orders will add theirs); core acknowledges any kind it does not act on, as it does `other`.
 * - `deauthorized`: the seller took the app's access away; `message` is the platform's own word, where it gave one.
 * - `listing_changed`: the platform changed a listing (its review passed or failed, say); `externalListingId` is the
 *   platform's id of it, null when the notification names none Storelink can read.
 * - `order_changed`: an order of the account was placed or changed (paid, cancelled, shipped); `externalOrderId` is the
 *   platform's id of it. Core reads the order whole from the platform: a notification's own fields are never trusted
 *   for stock, since notifications repeat and come out of order.
 * - `other`: anything Storelink does not act on.
 */
export type PlatformNotification =
  | { readonly kind: 'deauthorized'; readonly accountId: string; readonly message: string | null }
  | { readonly kind: 'listing_changed'; readonly accountId: string; readonly externalListingId: string | null }
  | { readonly kind: 'order_changed'; readonly accountId: string; readonly externalOrderId: string }
  | { readonly kind: 'other'; readonly accountId: string };

/** Request headers as they came, by their lower-case names. */
export type NotificationHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/** A notification's own id and the time the platform sent it (to the second), as its signed body says them. */
export interface NotificationDelivery {
  readonly id: string;
  readonly sentAt: Date;
}

/**
 * The notifications capability of one platform (TikTok Shop's webhooks). A platform's signature may carry no timestamp,
 * so a notification may come again: acting on one must change nothing the second time.
 */
export interface NotificationsAdapter {
  readonly platform: SitePlatform;
  /** Whether the request is signed by the platform for this app, checked on the raw body as it came. */
  verify(headers: NotificationHeaders, rawBody: string): boolean;
  /** The notification a verified body holds; null when the body is not one. */
  parse(rawBody: string): PlatformNotification | null;
  /**
   * For a platform whose signature covers no time of its own (TikTok Shop): the id and time the signed body carries,
   * by which core refuses a stale, repeated or replayed notification; null when the body lacks either. A platform
   * whose `verify` checks a signed timestamp itself (Etsy, as Standard Webhooks do) has none.
   */
  delivery?(rawBody: string): NotificationDelivery | null;
}

/** A notification taken from a queue: `handle` removes it; `notification` is null for a message that is none of this app's. */
export interface QueuedNotification {
  readonly handle: string;
  readonly notification: PlatformNotification | null;
}

/**
 * A queue a platform delivers its notifications to, which Storelink reads (Amazon's to SQS): the queue's own
 * authentication stands for a signature, and a message taken and not removed is delivered again, so acting on one
 * must change nothing the second time.
 */
export interface NotificationQueue {
  readonly platform: SitePlatform;
  /** The most one receive answers (SQS: 10); a receive that took this many likely left more behind it. */
  readonly receiveMax: number;
  /** Waits up to `waitSeconds` for notifications (a long poll), and answers what came, hidden from other readers a while. */
  receive(waitSeconds: number, signal?: AbortSignal): Promise<QueuedNotification[]>;
  /** Removes notifications acted on: they are not delivered again. */
  remove(handles: readonly string[]): Promise<void>;
}
