/** GET /health (liveness and database readiness) and GET /openapi.json. */
import Type from 'typebox';
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';
import type { App } from './access.js';
import { Ok, ok } from './schemas.js';

const PING_TIMEOUT_MS = 2_000;

export function registerHealthRoutes(app: App, deps: Deps) {
  app.get(
    '/health',
    {
      config: { access: 'public' },
      schema: {
        summary: 'Liveness and database readiness; 503 when the database does not answer',
        tags: ['meta'],
        response: { 200: Ok(Type.Object({ status: Type.Literal('ok'), database: Type.Literal('ok') })) },
      },
    },
    async () => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>(
        (_, reject) => (timer = setTimeout(() => reject(new Error('database ping timed out')), PING_TIMEOUT_MS)),
      );
      try {
        await Promise.race([deps.database.ping(), timeout]);
      } catch {
        throw new AppError('unavailable', { headers: { 'retry-after': '5' } });
      } finally {
        clearTimeout(timer);
      }
      return ok({ status: 'ok' as const, database: 'ok' as const });
    },
  );

  app.get('/openapi.json', { config: { access: 'public' }, schema: { hide: true } }, async () => app.swagger());
}
