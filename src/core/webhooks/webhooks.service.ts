/** Webhook endpoints per workspace, the events they receive, and the delivery log; docs/decisions.md (Webhooks) says how they behave. */

import * as auditRepo from '../../db/audit.repo.js';
import type { Db } from '../../db/client.js';
import * as webhooksRepo from '../../db/webhooks.repo.js';
import type { WebhookEvent } from '../../domain/index.js';
import { AppError, invalidField } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { CredentialsCipher } from '../../lib/credentials-cipher.js';
import { type ResolveHost, resolveTarget } from '../../lib/public-address.js';
import { isValidRedirectUrl } from '../connect/redirects.js';
import { checkEndpointRoom, checkRedeliveryRoom } from './caps.js';
import type { Outbox } from './outbox.js';
import { generateWebhookSecret } from './signature.js';

export type Endpoint = webhooksRepo.EndpointRow;
export type Delivery = webhooksRepo.DeliveryRow;

export type WebhooksService = ReturnType<typeof createWebhooksService>;
type Actor = { actorUserId: number; ipAddress: string | null };

export const secretContext = (workspaceId: number) => `webhook-secret:${workspaceId}`;

export function createWebhooksService(deps: {
  db: Db;
  clock: Clock;
  cipher: CredentialsCipher;
  outbox: Outbox;
  allowPrivateTargets: boolean;
  resolveHost: ResolveHost;
  /** How long the check of a new endpoint's host may wait for its resolution. */
  timeoutMs: number;
}) {
  const { db, clock, cipher } = deps;

  async function endpoint(workspaceId: number, id: number) {
    const row = await webhooksRepo.findEndpoint(db, workspaceId, id);
    if (!row) throw new AppError('not_found');
    return row;
  }

  /**
   * Unless private targets are allowed, the host must resolve, and only to globally routable addresses (DESIGN §8);
   * every delivery checks again, since what a name resolves to can change.
   */
  async function checkTarget(url: string) {
    if (deps.allowPrivateTargets) return;
    const target = await resolveTarget(new URL(url).hostname, {
      resolve: deps.resolveHost,
      allowPrivate: false,
      signal: AbortSignal.timeout(deps.timeoutMs),
    });
    if (target.ok) return;
    throw invalidField(
      'url',
      target.reason === 'unresolved'
        ? "The url's host could not be resolved."
        : 'The url must not point at a loopback, private or other non-public address.',
    );
  }

  return {
    /** The endpoint and its signing secret, which is returned this once. */
    async create(workspaceId: number, input: { url: string; events: WebhookEvent[] }, actor: Actor) {
      if (!isValidRedirectUrl(input.url)) throw invalidField('url', 'The url must be a valid http or https URL without the | character.');
      await checkTarget(input.url);
      const secret = generateWebhookSecret();
      const sealed = cipher.seal(secret, secretContext(workspaceId));
      const now = clock.now();
      const row = await db.transaction(async (tx) => {
        await checkEndpointRoom(tx, workspaceId);
        const inserted = await webhooksRepo.insertEndpoint(tx, {
          workspaceId,
          url: input.url,
          events: [...new Set(input.events)],
          secretKeyId: sealed.keyId,
          secretCiphertext: sealed.ciphertext,
          createdAt: now,
        });
        await auditRepo.recordAudit(
          tx,
          [workspaceId],
          { action: 'webhook.created', subjectType: 'webhook', subjectId: inserted.id, ...actor },
          now,
        );
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
    /** A fresh delivery of an earlier one: same message id (receivers deduplicate by it), attempted now. */
    async redeliver(workspaceId: number, id: number, deliveryId: number) {
      const endpointId = (await endpoint(workspaceId, id)).id;
      return db.transaction(async (tx) => {
        const now = clock.now();
        await checkRedeliveryRoom(tx, endpointId, deliveryId, now);
        const delivery = await webhooksRepo.redeliver(tx, endpointId, deliveryId, now);
        if (!delivery) throw new AppError('not_found');
        await deps.outbox.schedule(tx, delivery);
        return delivery;
      });
    },
  };
}
