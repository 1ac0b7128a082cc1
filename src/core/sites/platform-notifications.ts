/**
 * Notifications the platforms push to Storelink (issue "status from the platforms"), through each platform's
 * notifications capability: verified as the platform's own before anything is read, then acted on at once in
 * platform-neutral terms. A seller deauthorizing the app turns each site of that account `reauthorization_required`
 * (its listing work held until it is connected again), as a refused grant does; a listing the platform changed (TikTok
 * Shop's product status change) is read at once, and so is an order the platform says was placed or changed (its stock
 * follows within seconds: order-reads.ts). Other kinds are acknowledged: polling (listing-watch.ts, order-reads.ts) stays the
 * safety net. Acting twice on one notification changes nothing more.
 *
 * A platform whose signature covers no time (TikTok Shop) could have a captured notification replayed at will, its
 * signature still good: a deauthorization replayed after the seller reconnected would disconnect the site again. So
 * its notifications are taken only when sent within NOTIFICATION_TOLERANCE_MS of now, once each by their id, and a
 * deauthorization is not acted on for a grant authorized after it was sent (docs/decisions.md, "Platform notifications
 * replayed").
 */
import type { Db } from '../../db/client.js';
import { claimNotification, releaseNotification } from '../../db/notifications.repo.js';
import * as sitesRepo from '../../db/sites.repo.js';
import { PLATFORM_NAMES, type SitePlatform } from '../../domain/index.js';
import { AppError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { NotificationDelivery, NotificationHeaders, PlatformNotification } from '../../platforms/contracts/notifications.js';
import type { NotificationsAdapters } from '../../platforms/registry.js';
import type { ListingWatch } from '../listings/listing-watch.js';
import type { OrderReads } from '../orders/order-reads.js';
import type { TokenRefresh } from './token-refresh.js';

/** How far from now a notification's time may be, either way (Standard Webhooks' tolerance, which Etsy's verify applies too). */
export const NOTIFICATION_TOLERANCE_MS = 5 * 60 * 1000;
/**
 * How often an instance forgets the notifications received long enough ago (twice the tolerance): at most once a
 * minute, not at each one, so a burst of a thousand sales' webhooks is not a thousand deletes as well. A row is kept a
 * minute longer at most, and a replay that old is refused by its time anyway.
 */
export const FORGET_EVERY_MS = 60_000;

export function createPlatformNotifications(deps: {
  db: Db;
  clock: Clock;
  refresh: Pick<TokenRefresh, 'refused'>;
  listings: Pick<ListingWatch, 'platformChanged'>;
  orders: Pick<OrderReads, 'platformChanged'>;
  /** Each platform's notifications capability; a platform without one refuses every notification as unsigned. */
  adapters: NotificationsAdapters;
}) {
  /** When this instance last forgot old notifications (FORGET_EVERY_MS), by the service's clock. */
  let forgotAt = Number.NEGATIVE_INFINITY;
  const siteIdsOf = async (platform: SitePlatform, accountId: string) =>
    (await sitesRepo.sitesOfAccount(deps.db, platform, accountId)).map((site) => site.id);

  return {
    /**
     * A platform's notification: 401 for one its app did not sign or sent too long ago, 400 for a body that is not a
     * notification (or, where the platform's body must say them, lacks its id or time). One already received is
     * acknowledged and not acted on again: a 200 ends the platform's retries of a notification whose first answer was lost.
     */
    async receive(platform: SitePlatform, headers: NotificationHeaders, rawBody: string): Promise<string> {
      const name = PLATFORM_NAMES[platform];
      const adapter = deps.adapters[platform];
      if (!adapter?.verify(headers, rawBody))
        throw new AppError('unauthenticated', { message: `The notification is not signed by the ${name} app.` });
      const notification = adapter.parse(rawBody);
      if (!notification) throw new AppError('bad_request', { message: `The body is not a ${name} notification.` });
      if (!adapter.delivery) return act(platform, notification, null);
      const delivery = adapter.delivery(rawBody);
      if (!delivery)
        throw new AppError('bad_request', { message: `The ${name} notification has no id or time: it cannot be told from a replay.` });
      if (!(await admit(platform, delivery))) return 'acknowledged: already received';
      try {
        return await act(platform, notification, delivery.sentAt);
      } catch (error) {
        // Not acted on: the platform's retry of it must be taken.
        await releaseNotification(deps.db, platform, delivery.id);
        throw error;
      }
    },
    /**
     * A notification read from a queue of the operator's (Amazon's SQS: notification-queues.ts). The queue's own
     * authentication stands for a signature, and it delivers again what was taken and not removed, so it is acted on
     * as it comes: every kind acted on here changes nothing the second time.
     */
    queued: (platform: SitePlatform, notification: PlatformNotification): Promise<string> => act(platform, notification, null),
  };

  /** Refuses a notification sent too long ago (or ahead of this clock: 401); false for one already received. */
  async function admit(platform: SitePlatform, delivery: NotificationDelivery): Promise<boolean> {
    const now = deps.clock.now();
    const minutes = NOTIFICATION_TOLERANCE_MS / 60_000;
    if (Math.abs(now.getTime() - delivery.sentAt.getTime()) > NOTIFICATION_TOLERANCE_MS)
      throw new AppError('unauthenticated', {
        message: `The notification's timestamp is more than ${minutes} minutes from now: a replay is refused.`,
      });
    let forgetBefore: Date | null = null;
    if (now.getTime() - forgotAt >= FORGET_EVERY_MS) {
      forgotAt = now.getTime();
      forgetBefore = new Date(now.getTime() - 2 * NOTIFICATION_TOLERANCE_MS);
    }
    return claimNotification(deps.db, platform, delivery.id, now, forgetBefore);
  }

  /** Acts on a notification taken; `sentAt`, where the platform said it, keeps a deauthorization off a newer grant. */
  async function act(platform: SitePlatform, notification: PlatformNotification, sentAt: Date | null): Promise<string> {
    const name = PLATFORM_NAMES[platform];
    switch (notification.kind) {
      case 'listing_changed': {
        if (notification.externalListingId === null) return 'acknowledged: no product id to read';
        const read = await deps.listings.platformChanged(await siteIdsOf(platform, notification.accountId), notification.externalListingId);
        return `reading ${read.length} listing(s)`;
      }
      case 'order_changed': {
        // Its sites are found when it is read (order-reads.ts), for many notifications at once.
        await deps.orders.platformChanged(platform, notification.accountId, notification.externalOrderId);
        return 'reading the order on each site of the account';
      }
      case 'deauthorized': {
        const siteIds = await siteIdsOf(platform, notification.accountId);
        const said = notification.message === null ? '' : ` ${name} said: ${notification.message}`;
        const reason = `The seller deauthorized Storelink on ${name}; connect the shop again.${said}`;
        let since = 0;
        for (const siteId of siteIds)
          if ((await deps.refresh.refused(siteId, 'seller', reason, sentAt ?? undefined)) === 'granted_since') since += 1;
        const kept = since === 0 ? '' : `; ${since} site(s) authorized again after it was sent, left connected`;
        return `deauthorized ${siteIds.length - since} site(s)${kept}`;
      }
      default:
        return 'acknowledged';
    }
  }
}

export type PlatformNotifications = ReturnType<typeof createPlatformNotifications>;
