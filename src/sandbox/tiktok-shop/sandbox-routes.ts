/**
 * The sandbox's own routes around TikTok Shop, at `/sandbox/tiktok-shop` without auth (sandbox only), as the Amazon
 * simulators have theirs: the limits of its shops, so a load (the bench) can lift a new shop's daily allowance of new
 * products to a graduated shop's, as tests do with setTikTokShopDailyUploads.
 */
import type { FastifyInstance } from 'fastify';
import type { SandboxContext } from '../context.js';

const positive = (value: unknown) => typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= 1e9;

export function registerTikTokShopSandboxRoutes(app: FastifyInstance, context: SandboxContext) {
  app.get('/limits', async () => ({
    per_second: context.tiktokLimits.perSecond,
    uploads_per_day: context.tiktokLimits.uploadsPerDay,
  }));
  // `{per_second?, uploads_per_day?}`: either or both, whole numbers above 0.
  app.post('/limits', async (request, reply) => {
    const { per_second: perSecond, uploads_per_day: uploadsPerDay } = (request.body ?? {}) as Record<string, unknown>;
    const given = [perSecond, uploadsPerDay].filter((value) => value !== undefined);
    if (given.length === 0 || !given.every(positive))
      return reply.code(400).send({
        error:
          'per_second and uploads_per_day must be whole numbers above 0 (TikTok gives 50 a second, and 100 new products a day to a new shop, 1,000 once graduated)',
      });
    if (perSecond !== undefined) context.tiktokLimits.perSecond = perSecond as number;
    if (uploadsPerDay !== undefined) context.tiktokLimits.uploadsPerDay = uploadsPerDay as number;
    return reply.code(204).send();
  });
}
