/**
 * Notifications the platforms push to Storelink (issue "status from the platforms"), through each platform's
 * notifications capability: verified as the platform's own before anything is read, then acted on at once in
 * platform-neutral terms. A seller deauthorizing the app turns each site of that account `reauthorization_required`
 * (its listing work held until it is connected again), as a refused grant does; a listing the platform changed (TikTok
 * Shop's product status change) is read at once, and so is an order the platform says was placed or changed (its stock
 * follows within seconds: order-reads.ts). Other kinds are acknowledged: polling (listing-watch.ts, order-reads.ts) stays the
 * safety net. Acting twice on one notification changes nothing more (a signature may carry no timestamp, so a
 * notification may come again).
 */
import type { Db } from '../../db/client.js';
import * as sitesRepo from '../../db/sites.repo.js';
import { PLATFORM_NAMES, type SitePlatform } from '../../domain/index.js';
import { AppError } from '../../errors.js';
import type { NotificationHeaders } from '../../platforms/contracts/notifications.js';
import type { NotificationsAdapters } from '../../platforms/registry.js';
import type { ListingWatch } from '../listings/listing-watch.js';
import type { OrderReads } from '../orders/order-reads.js';
import type { TokenRefresh } from './token-refresh.js';

export function createPlatformNotifications(deps: {
  db: Db;
  refresh: Pick<TokenRefresh, 'refused'>;
  listings: Pick<ListingWatch, 'platformChanged'>;
  orders: Pick<OrderReads, 'platformChanged'>;
  /** Each platform's notifications capability; a platform without one refuses every notification as unsigned. */
  adapters: NotificationsAdapters;
}) {
  const siteIdsOf = async (platform: SitePlatform, accountId: string) =>
    (await sitesRepo.sitesOfAccount(deps.db, platform, accountId)).map((site) => site.id);

  return {
    /** A platform's notification: 401 for one its app did not sign, 400 for a body that is not a notification. */
    async receive(platform: SitePlatform, headers: NotificationHeaders, rawBody: string): Promise<string> {
      const name = PLATFORM_NAMES[platform];
      const adapter = deps.adapters[platform];
      if (!adapter?.verify(headers, rawBody))
        throw new AppError('unauthenticated', { message: `The notification is not signed by the ${name} app.` });
      const notification = adapter.parse(rawBody);
      if (!notification) throw new AppError('bad_request', { message: `The body is not a ${name} notification.` });
      switch (notification.kind) {
        case 'listing_changed': {
          if (notification.externalListingId === null) return 'acknowledged: no product id to read';
          const read = await deps.listings.platformChanged(
            await siteIdsOf(platform, notification.accountId),
            notification.externalListingId,
          );
          return `reading ${read.length} listing(s)`;
        }
        case 'order_changed': {
          const sites = await sitesRepo.sitesOfAccount(deps.db, platform, notification.accountId);
          const read = await deps.orders.platformChanged(
            sites.map((site) => ({ workspaceId: site.workspaceId, siteId: site.id })),
            notification.externalOrderId,
          );
          return `reading the order on ${read} site(s)`;
        }
        case 'deauthorized': {
          const siteIds = await siteIdsOf(platform, notification.accountId);
          const said = notification.message === null ? '' : ` ${name} said: ${notification.message}`;
          for (const siteId of siteIds)
            await deps.refresh.refused(siteId, 'seller', `The seller deauthorized Storelink on ${name}; connect the shop again.${said}`);
          return `deauthorized ${siteIds.length} site(s)`;
        }
        default:
          return 'acknowledged';
      }
    },
  };
}

export type PlatformNotifications = ReturnType<typeof createPlatformNotifications>;
