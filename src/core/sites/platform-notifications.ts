/**
 * Notifications the platforms push to Storelink (issue "status from the platforms"): TikTok Shop's webhooks, verified
 * by their signature before anything is read, then acted on at once. A seller deauthorizing the app turns each site of
 * that shop `reauthorization_required` (its listing work held until it is connected again), as a refused grant does.
 * A product status change (type 5) has the listing holding that product read at once. Other types are acknowledged:
 * polling (listing-watch.ts) stays the safety net. Acting twice on one notification
 * changes nothing more (TikTok's signature carries no timestamp, so a notification may come again).
 */
import type { Db } from '../../db/client.js';
import * as sitesRepo from '../../db/sites.repo.js';
import { AppError } from '../../errors.js';
import { parseTikTokWebhook, TIKTOK_WEBHOOK_TYPES, verifyTikTokWebhook } from '../../platforms/tiktok-shop/webhooks.js';
import type { ListingWatch } from '../listings/listing-watch.js';
import type { TokenRefresh } from './token-refresh.js';

export function createPlatformNotifications(deps: {
  db: Db;
  refresh: Pick<TokenRefresh, 'refused'>;
  listings: Pick<ListingWatch, 'platformChanged'>;
  /** The TikTok Shop app whose webhooks these are (the sandbox's when no credentials are set); null: none. */
  tiktokShop: { appKey: string; appSecret: string } | null;
}) {
  return {
    /** A TikTok Shop webhook: 401 for a signature that is not the app's, 400 for a body that is not a notification. */
    async tiktokShop(authorization: string | undefined, rawBody: string): Promise<string> {
      if (!deps.tiktokShop || !verifyTikTokWebhook(deps.tiktokShop, authorization, rawBody))
        throw new AppError('unauthenticated', { message: 'The notification is not signed by the TikTok Shop app.' });
      const notification = parseTikTokWebhook(rawBody);
      if (!notification) throw new AppError('bad_request', { message: 'The body is not a TikTok Shop notification.' });
      const sites = await sitesRepo.sitesOfAccount(deps.db, 'tiktok-shop', notification.shop_id);
      if (notification.type === TIKTOK_WEBHOOK_TYPES.productStatusChange) {
        const productId = notification.data?.product_id;
        // TikTok's sample sends the id as a number too large for a double: only its text form names a product exactly.
        if (typeof productId !== 'string' || !/^[0-9]{1,20}$/.test(productId)) return 'acknowledged: no product id to read';
        const read = await deps.listings.platformChanged(
          sites.map((site) => site.id),
          productId,
        );
        return `reading ${read.length} listing(s)`;
      }
      if (notification.type !== TIKTOK_WEBHOOK_TYPES.sellerDeauthorization) return 'acknowledged';
      const said = typeof notification.data?.message === 'string' ? ` TikTok Shop said: ${notification.data.message}` : '';
      for (const site of sites)
        await deps.refresh.refused(site.id, 'seller', `The seller deauthorized Storelink on TikTok Shop; connect the shop again.${said}`);
      return `deauthorized ${sites.length} site(s)`;
    },
  };
}

export type PlatformNotifications = ReturnType<typeof createPlatformNotifications>;
