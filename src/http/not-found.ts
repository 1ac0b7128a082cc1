/** Unknown paths answer 404 and known paths with another method 405 with `Allow`, both in the seed's shape (Fastify has no 405). */
import FindMyWay from 'find-my-way';
import { AppError } from '../errors.js';
import type { App } from './access.js';
import { handleError } from './error-handler.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

export function addNotFoundHandler(app: App): void {
  const routesByMethod = FindMyWay();
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routesByMethod.on(method as 'GET', route.url, () => {});
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    const allowed = METHODS.filter((m) => routesByMethod.find(m as 'GET', path));
    const error =
      allowed.length > 0 ? new AppError('method_not_allowed', { headers: { allow: allowed.join(', ') } }) : new AppError('not_found');
    return handleError(error, request, reply);
  });
}
