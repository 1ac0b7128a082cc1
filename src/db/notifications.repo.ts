/** Platform notifications received lately, by the platform's id of each: what tells a repeat or a replay from a new one. */
import { and, eq, lt } from 'drizzle-orm';
import type { SitePlatform } from '../domain/index.js';
import type { Db } from './client.js';
import { platformNotificationsReceived } from './schema.js';

/**
 * Records a notification as received, by one insert, so of two copies arriving at once exactly one is taken; false
 * when it was received before. Rows received before `forgetBefore`, when given, are deleted first: their notifications
 * are too old to be taken again anyway.
 */
export async function claimNotification(
  db: Db,
  platform: SitePlatform,
  notificationId: string,
  now: Date,
  forgetBefore: Date | null,
): Promise<boolean> {
  if (forgetBefore) await db.delete(platformNotificationsReceived).where(lt(platformNotificationsReceived.receivedAt, forgetBefore));
  const claimed = await db
    .insert(platformNotificationsReceived)
    .values({ platform, notificationId, receivedAt: now })
    .onConflictDoNothing()
    .returning({ notificationId: platformNotificationsReceived.notificationId });
  return claimed.length > 0;
}

/** Forgets a notification that could not be acted on (a failure on the way), so the platform's retry is taken. */
export async function releaseNotification(db: Db, platform: SitePlatform, notificationId: string): Promise<void> {
  await db
    .delete(platformNotificationsReceived)
    .where(and(eq(platformNotificationsReceived.platform, platform), eq(platformNotificationsReceived.notificationId, notificationId)));
}
