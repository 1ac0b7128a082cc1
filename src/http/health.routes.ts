/** GET /health (liveness and database readiness) and GET /openapi.json. */

import Type from 'typebox';
import type { PlatformHealth } from '../core/sites/platform-health.js';
import { TRACKS } from '../domain/index.js';
import { AppError } from '../errors.js';
import type { App } from './access.js';
import { Ok, OneOf, ok, Timestamp } from './schemas.js';

const PING_TIMEOUT_MS = 2_000;
const STORAGE_FULL_MESSAGE = 'Service unavailable: the database has no space left to write';

/** The services the routes use. */
export interface HealthRoutesServices {
  readonly database: { ping(): Promise<void>; readonly storage: { check(): Promise<unknown> } };
  readonly platformHealth: Pick<PlatformHealth, 'problems'>;
}

export function registerHealthRoutes(app: App, deps: HealthRoutesServices) {
  app.get(
    '/health',
    {
      config: { access: 'public' },
      schema: {
        summary: 'Liveness and database readiness; 503 when the database does not answer',
        description:
          "`degraded` (still 200: the instance serves requests) when a platform refused this server's own app " +
          'configuration (a wrong or expired client secret, a missing shared secret): the operator must fix it; no site ' +
          'is asked to reconnect, and each recovers once a call to that platform succeeds again. A queue of platform ' +
          "notifications that refused this server (Amazon's order queue: its key refused, or no such queue) shows here too, " +
          'until a read of it succeeds again; orders are polled meanwhile.',
        tags: ['meta'],
        response: {
          200: Ok(
            Type.Object({
              status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
              database: Type.Literal('ok'),
              platforms: Type.Array(
                Type.Object({
                  platform: OneOf(TRACKS),
                  status: Type.Literal('misconfigured'),
                  message: Type.String({ description: "The platform's own words, with its status or code" }),
                  since: Timestamp,
                }),
                { description: 'Platforms that refused this instance’s app configuration; empty when none did' },
              ),
            }),
          ),
        },
      },
    },
    async () => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>(
        (_, reject) => (timer = setTimeout(() => reject(new Error('database ping timed out')), PING_TIMEOUT_MS)),
      );
      let storageFull = false;
      try {
        await Promise.race([deps.database.ping(), timeout]);
        // A full disk leaves `select 1` answering: readiness must fail while writes do.
        storageFull = (await Promise.race([deps.database.storage.check(), timeout])) !== null;
      } catch {
        throw new AppError('unavailable', { headers: { 'retry-after': '5' } });
      } finally {
        clearTimeout(timer);
      }
      if (storageFull) throw new AppError('unavailable', { message: STORAGE_FULL_MESSAGE, headers: { 'retry-after': '30' } });
      const platforms = deps.platformHealth.problems().map((problem) => ({
        platform: problem.track,
        status: 'misconfigured' as const,
        message: problem.message,
        since: problem.since.toISOString(),
      }));
      return ok({ status: platforms.length > 0 ? ('degraded' as const) : ('ok' as const), database: 'ok' as const, platforms });
    },
  );

  app.get('/openapi.json', { config: { access: 'public' }, schema: { hide: true } }, async () => app.swagger());
}
