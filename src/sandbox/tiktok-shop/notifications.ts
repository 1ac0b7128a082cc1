/**
 * The simulated TikTok Shop's webhooks to its app (listings.md §2.9): the product status changes of its product API
 * (type 5, product-store.ts), a seller's edits in Seller Center (types 15 and 5, product-api.ts) and, when a seller revokes the app (the sandbox's `/sandbox/revoke`), a
 * SELLER_DEAUTHORIZATION notification (type 6) for each of the account's shops; each signed as TikTok
 * signs them: `Authorization` is the hex HMAC-SHA256 of the app key followed by the raw body, keyed with the app secret.
 * Sent once, not awaited: a notification that cannot be delivered is lost here (TikTok retries; the sandbox does not),
 * and the site's next token renewal finds the revocation anyway.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { SANDBOX_CLIENTS, type SandboxContext } from '../context.js';
import { everyShopOf } from './shops.js';

const APP = SANDBOX_CLIENTS.tiktokShop;

/** The body and headers of one notification. */
function signedNotification(type: number, shopId: string, data: Record<string, unknown>, now: Date) {
  const body = JSON.stringify({
    type,
    tts_notification_id: randomBytes(8).readBigUInt64BE().toString(),
    shop_id: shopId,
    timestamp: Math.floor(now.getTime() / 1000),
    data,
  });
  const authorization = createHmac('sha256', APP.appSecret).update(`${APP.appKey}${body}`).digest('hex');
  return { body, headers: { 'content-type': 'application/json', authorization } };
}

/** Sends one signed notification to the app's webhook URL: once, not awaited, a failure ignored (see above). */
export function sendNotification(context: SandboxContext, type: number, shopId: string, data: Record<string, unknown>): void {
  if (context.lostNotifications.has('tiktok-shop')) return;
  const { body, headers } = signedNotification(type, shopId, data, context.clock.now());
  void fetch(context.notificationUrl('tiktok-shop'), { method: 'POST', headers, body }).catch(() => undefined);
}

export function notifyRevocations(context: SandboxContext) {
  context.revokeListeners.push((track, account) => {
    if (track !== 'tiktok-shop') return;
    for (const shop of everyShopOf(account)) {
      const message = `Shop_id ${shop.id} is deauthorized from your APP by merchant.`;
      sendNotification(context, 6, shop.id, { message });
    }
  });
}
