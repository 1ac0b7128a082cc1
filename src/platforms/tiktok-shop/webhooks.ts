/**
 * TikTok Shop's webhooks (listings.md §2.9, orders.md §2): `{type, tts_notification_id, shop_id, timestamp, data}`, signed in the
 * `Authorization` header as the hex HMAC-SHA256 of the app key followed by the raw body, keyed with the app secret.
 * The signature has no timestamp in it, so a notification is acted on in a way that is the same when it comes twice.
 * Pure: no I/O.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import Type, { type Static } from 'typebox';
import { parseBody } from '../parse.js';

/** The types Storelink acts on (the Partner Center's numbering). */
export const TIKTOK_WEBHOOK_TYPES = {
  orderStatusChange: 1,
  productStatusChange: 5,
  sellerDeauthorization: 6,
  upcomingAuthorizationExpiration: 7,
  cancellationStatusChange: 11,
  /** Product audit status change (listings.md §2.9): a product pre-approved or released says so here, not in type 5. */
  productAuditStatusChange: 37,
  productInformationChange: 15,
  inventoryStatusChange: 27,
} as const;

const Notification = Type.Object({
  type: Type.Integer(),
  tts_notification_id: Type.Optional(Type.String()),
  shop_id: Type.String({ minLength: 1 }),
  timestamp: Type.Optional(Type.Integer()),
  data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
export type TikTokNotification = Static<typeof Notification>;

/** Whether `authorization` is the app's signature of `rawBody`. */
export function verifyTikTokWebhook(app: { appKey: string; appSecret: string }, authorization: string | undefined, rawBody: string) {
  if (!authorization || !/^[0-9a-f]{64}$/i.test(authorization)) return false;
  const expected = createHmac('sha256', app.appSecret)
    .update(app.appKey + rawBody)
    .digest();
  return timingSafeEqual(expected, Buffer.from(authorization, 'hex'));
}

/** The notification of a body, or null when it is not one. */
export function parseTikTokWebhook(rawBody: string): TikTokNotification | null {
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    return null;
  }
  return parseBody(Notification, body);
}
