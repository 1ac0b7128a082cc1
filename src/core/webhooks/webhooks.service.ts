/** Webhook endpoints per workspace, the events they receive, and the delivery log (issue 5). */
import { randomBytes } from 'node:crypto';
import { AppError, invalidField } from '../../errors.js';
import type { Db } from '../../db/client.js';
import type { SiteRow } from '../../db/sites.repo.js';
import * as auditRepo from '../../db/audit.repo.js';
import * as webhooksRepo from '../../db/webhooks.repo.js';
import type { WebhookEvent } from '../../domain/index.js';
import type { Clock } from '../../lib/clock.js';
import type { CredentialsCipher } from '../../lib/credentials-cipher.js';
import { isValidRedirectUrl } from '../connect/redirects.js';
import { generateWebhookSecret, isPublicHost } from './signature.js';

export type WebhooksService = ReturnType<typeof createWebhooksService>;
type Actor = { actorUserId: number; ipAddress: string | null };

export const secretContext = (workspaceId: number) => `webhook-secret:${workspaceId}`;

/** A site as events carry it: what a receiver needs, never a credential. */
export function siteEventData(site: Pick<SiteRow, 'id' | 'workspaceId' | 'platformId' | 'platform' | 'name' | 'externalId' | 'status' | 'statusReason'>) {
  return { site: { id: site.id, workspace_id: site.workspaceId, platform_id: site.platformId, platform: site.platform, name: site.name, external_id: site.externalId, status: site.status, status_reason: site.statusReason } };
}

/** Queues an event for the workspace's subscribed endpoints, in the caller's transaction (a durable outbox). */
export function emitEvent(db: Db, workspaceId: number, type: WebhookEvent, data: Record<string, unknown>, now: Date): Promise<void> {
  return webhooksRepo.enqueueEvent(db, {
    workspaceId, type, now,
    messageId: () => `msg_${randomBytes(12).toString('base64url')}`,
    payload: { type, timestamp: now.toISOString(), data },
  });
}

export function createWebhooksService(deps: { db: Db; clock: Clock; cipher: CredentialsCipher; allowPrivateTargets: boolean }) {
  const { db, clock, cipher } = deps;

  async function endpoint(workspaceId: number, id: number) {
    const row = await webhooksRepo.findEndpoint(db, workspaceId, id);
    if (!row) throw new AppError('not_found');
    return row;
  }

  return {
    /** The endpoint and its signing secret, which is returned this once. */
    async create(workspaceId: number, input: { url: string; events: WebhookEvent[] }, actor: Actor) {
      if (!isValidRedirectUrl(input.url)) throw invalidField('url', 'The url must be a valid http or https URL without the | character.');
      if (!deps.allowPrivateTargets && !isPublicHost(new URL(input.url).hostname)) throw invalidField('url', 'The url must not point at a loopback or private address.');
      const secret = generateWebhookSecret();
      const sealed = cipher.seal(secret, secretContext(workspaceId));
      const now = clock.now();
      const row = await db.transaction(async (tx) => {
        const inserted = await webhooksRepo.insertEndpoint(tx, { workspaceId, url: input.url, events: [...new Set(input.events)], secretKeyId: sealed.keyId, secretCiphertext: sealed.ciphertext, createdAt: now });
        await auditRepo.recordAudit(tx, [workspaceId], { action: 'webhook.created', subjectType: 'webhook', subjectId: inserted.id, ...actor }, now);
        return inserted;
      });
      return { row, secret };
    },
    list: (workspaceId: number) => webhooksRepo.listEndpoints(db, workspaceId),
    async remove(workspaceId: number, id: number, actor: Actor) {
      const now = clock.now();
      await db.transaction(async (tx) => {
        if (!(await webhooksRepo.deleteEndpoint(tx, workspaceId, id))) throw new AppError('not_found');
        await auditRepo.recordAudit(tx, [workspaceId], { action: 'webhook.deleted', subjectType: 'webhook', subjectId: id, ...actor }, now);
      });
    },
    async deliveries(workspaceId: number, id: number, page: { limit: number; offset: number }) {
      return webhooksRepo.listDeliveries(db, (await endpoint(workspaceId, id)).id, page);
    },
    async redeliver(workspaceId: number, id: number, deliveryId: number) {
      const delivery = await webhooksRepo.redeliver(db, (await endpoint(workspaceId, id)).id, deliveryId, clock.now());
      if (!delivery) throw new AppError('not_found');
      return delivery;
    },
  };
}
