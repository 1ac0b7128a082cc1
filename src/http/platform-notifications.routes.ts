/**
 * Where platforms push notifications (issue "status from the platforms"): `POST /platform-notifications/tiktok-shop`,
 * the URL to register as the TikTok Shop app's webhook, and `POST /platform-notifications/etsy`, the Etsy app's. Public: the platform's signature over the raw body is the
 * check (src/core/sites/platform-notifications.ts), so the body is kept as the bytes that came.
 */

import Type from 'typebox';
import type { PlatformNotifications } from '../core/sites/platform-notifications.js';
import type { App } from './access.js';
import { Ok, ok } from './schemas.js';

/** The platforms' notifications are small; a megabyte is well above any. */
const BODY_LIMIT = 1024 * 1024;

/** The services the routes use. */
export interface PlatformNotificationRoutesServices {
  readonly platformNotifications: PlatformNotifications;
}

export function registerPlatformNotificationRoutes(app: App, deps: PlatformNotificationRoutesServices) {
  void app.register(async (scope) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_request, body, done) =>
      done(null, body),
    );
    scope.post(
      '/platform-notifications/tiktok-shop',
      {
        config: { access: 'public' },
        schema: {
          summary:
            'TikTok Shop webhooks (register this URL with the app): a seller deauthorizing the app, product status, information and inventory changes, order status changes',
          description:
            'Signed by TikTok Shop in `Authorization` (hex HMAC-SHA256 of the app key and the raw body, keyed with the app secret): 401 when it is not, or when its `timestamp` is more than 5 minutes from now; 400 for a body that is not a notification or has no `tts_notification_id` or `timestamp`; a `tts_notification_id` already received is acknowledged (200) and not acted on again. A deauthorization sent before the seller connected the shop again leaves that site connected; otherwise a deauthorization turns the shop’s sites `reauthorization_required` at once; a product status change (type 5), product information change (15) or inventory status change (27) reads that product’s listing at once; an order status change reads that order at once (its stock follows within seconds); other types are acknowledged.',
          tags: ['connect'],
          response: { 200: Ok(Type.Object({ result: Type.String() })) },
        },
      },
      async (request) =>
        ok({ result: await deps.platformNotifications.receive('tiktok-shop', request.headers, String(request.body ?? '')) }),
    );
    scope.post(
      '/platform-notifications/etsy',
      {
        config: { access: 'public' },
        schema: {
          summary: 'Etsy webhooks (register this URL with a commercial app, and set ETSY_WEBHOOK_SECRET): ORDER_PAID',
          description:
            'Signed as Standard Webhooks sign (`webhook-id`, `webhook-timestamp`, `webhook-signature`, with the app’s `whsec_` secret): 401 when it is not, or when ETSY_WEBHOOK_SECRET is not set, 400 for a body that is not a notification. ORDER_PAID reads the receipt at once (its stock follows within seconds); orders are polled every minute as well.',
          tags: ['connect'],
          response: { 200: Ok(Type.Object({ result: Type.String() })) },
        },
      },
      async (request) => ok({ result: await deps.platformNotifications.receive('etsy', request.headers, String(request.body ?? '')) }),
    );
  });
}
