/** TikTok Shop's webhooks as the notifications capability: the signature checked, the types Storelink acts on named. */
import type { NotificationsAdapter, PlatformNotification } from '../contracts/notifications.js';
import { parseTikTokWebhook, TIKTOK_WEBHOOK_TYPES, type TikTokNotification, verifyTikTokWebhook } from './webhooks.js';

/** A TikTok id sent as text: its ids exceed a double, so only the text form names one exactly. */
const idOf = (value: unknown): string | null => (typeof value === 'string' && /^[0-9]{1,20}$/.test(value) ? value : null);

/** A notification's type in Storelink's words (the Partner Center's numbering). */
function neutralOf(notification: TikTokNotification): PlatformNotification {
  const accountId = notification.shop_id;
  const { data } = notification;
  switch (notification.type) {
    case TIKTOK_WEBHOOK_TYPES.sellerDeauthorization:
      return { kind: 'deauthorized', accountId, message: typeof data?.message === 'string' ? data.message : null };
    case TIKTOK_WEBHOOK_TYPES.productStatusChange:
    case TIKTOK_WEBHOOK_TYPES.productAuditStatusChange:
    // A product's information (title, price, stock) or its stock's status changed (listings.md §2.9): read whole too.
    case TIKTOK_WEBHOOK_TYPES.productInformationChange:
    case TIKTOK_WEBHOOK_TYPES.inventoryStatusChange:
      // TikTok's sample sends the id as a number too large for a double: only its text form names a product exactly.
      return { kind: 'listing_changed', accountId, externalListingId: idOf(data?.product_id) };
    case TIKTOK_WEBHOOK_TYPES.orderStatusChange:
    case TIKTOK_WEBHOOK_TYPES.cancellationStatusChange: {
      // The order is read whole from TikTok (its status here says CANCEL where the API says CANCELLED): only its id counts.
      const externalOrderId = idOf(data?.order_id);
      return externalOrderId ? { kind: 'order_changed', accountId, externalOrderId } : { kind: 'other', accountId };
    }
    default:
      return { kind: 'other', accountId };
  }
}

/** The webhooks of the TikTok Shop app `app` (the sandbox's when no credentials are set). */
export function createTikTokShopNotificationsAdapter(app: { appKey: string; appSecret: string }) {
  return {
    platform: 'tiktok-shop',
    verify: (headers, rawBody) => {
      const authorization = headers.authorization;
      return typeof authorization === 'string' && verifyTikTokWebhook(app, authorization, rawBody);
    },
    parse: (rawBody) => {
      const notification = parseTikTokWebhook(rawBody);
      return notification && neutralOf(notification);
    },
    // The signature covers the body alone: its `tts_notification_id` and `timestamp` (seconds) are what tell a replay.
    delivery: (rawBody) => {
      const notification = parseTikTokWebhook(rawBody);
      const id = notification?.tts_notification_id;
      const timestamp = notification?.timestamp;
      const sentAt = new Date((timestamp ?? Number.NaN) * 1000);
      return id && id.length <= 128 && !Number.isNaN(sentAt.getTime()) ? { id, sentAt } : null;
    },
  } satisfies NotificationsAdapter;
}
