/**
 * Etsy's webhooks as the notifications capability (orders.md §1): ORDER_PAID, the one event Etsy documents, for
 * commercial apps. The payload is flat (`{event_type, resource_url, shop_id}`, staff-confirmed over the documented
 * envelope) and signed as Standard Webhooks sign: `webhook-signature` holds base64 HMAC-SHA256 signatures of
 * `<webhook-id>.<webhook-timestamp>.<raw body>`, keyed with the secret's bytes after `whsec_`. Whether Etsy puts
 * Standard Webhooks' `v1,` before each signature is unconfirmed, so a bare signature is read as well. A notification
 * more than five minutes from now is refused, so a captured one cannot be replayed later.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import Type from 'typebox';
import type { NotificationHeaders, NotificationsAdapter } from '../contracts/notifications.js';
import { parseBody } from '../parse.js';

/** Standard Webhooks' tolerance for a notification's timestamp. */
const TOLERANCE_SECONDS = 300;

const OrderPaid = Type.Object({
  event_type: Type.String(),
  resource_url: Type.String(),
  shop_id: Type.Union([Type.Integer(), Type.String()]),
});

const header = (headers: NotificationHeaders, name: string) => {
  const value = headers[name];
  return typeof value === 'string' ? value : null;
};

/** Whether `rawBody` with its headers is signed with `secret` (`whsec_<base64>`), at a time within the tolerance of `now`. */
export function verifyEtsyWebhook(secret: string, headers: NotificationHeaders, rawBody: string, now: Date): boolean {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures || !/^[0-9]{1,12}$/.test(timestamp)) return false;
  if (Math.abs(now.getTime() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${rawBody}`).digest();
  return signatures.split(' ').some((entry) => {
    const given = Buffer.from(entry.replace(/^v1,/, ''), 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

export function createEtsyNotificationsAdapter(secret: string, clock: { now(): Date }) {
  return {
    platform: 'etsy',
    verify: (headers, rawBody) => verifyEtsyWebhook(secret, headers, rawBody, clock.now()),
    parse(rawBody) {
      let body: unknown;
      try {
        body = JSON.parse(rawBody);
      } catch {
        return null;
      }
      const event = parseBody(OrderPaid, body);
      if (!event) return null;
      const accountId = String(event.shop_id);
      const receipt = /\/shops\/[0-9]+\/receipts\/([0-9]{1,20})$/.exec(event.resource_url)?.[1];
      if (event.event_type === 'order.paid' && receipt) return { kind: 'order_changed', accountId, externalOrderId: receipt };
      return { kind: 'other', accountId };
    },
  } satisfies NotificationsAdapter;
}
