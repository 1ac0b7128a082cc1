/**
 * Keeps the authentication cache true to the database: the triggers of migration 0005 notify `storelink_auth` on every
 * change that could refuse a cached bearer, and this listener drops what they name. While the feed is down the cache
 * is emptied and unused, so nothing missed is ever served.
 */
import type { Logger } from 'pino';
import type { ChannelHandlers } from '../../db/client.js';
import { type AuthCache, parseAuthChange } from './auth-cache.js';

/** The channel the database's triggers notify (migration 0005). */
export const AUTH_CHANNEL = 'storelink_auth';

export function authChangeHandlers(cache: AuthCache, logger: Logger): ChannelHandlers {
  let lost = false;
  return {
    notify: (payload) => {
      const change = parseAuthChange(payload);
      if (change) cache.invalidate(change);
      else cache.activate(); // not ours to read: start over rather than keep anything it may have changed
    },
    up: () => {
      if (lost) logger.info('database change notifications are back; caching authenticated bearers again');
      lost = false;
      cache.activate();
    },
    down: () => {
      cache.deactivate();
      // Said once per outage, not at every reconnection attempt.
      if (!lost)
        logger.warn('lost the database change notifications; authenticating every request against the database until they are back');
      lost = true;
    },
  };
}
