/**
 * The `mail` queue (docs/e-mail.md): every mail is background work, sent by a job, so a slow or failing SMTP server
 * never fails nor holds up the request or change that caused it; a refused or failed send is retried with back-off.
 * Without SMTP_URL nothing is sent, and the log says so once per mail, never with a link's token.
 * - A password reset's job holds the account's id (or null when no account has the e-mail asked for, so a request
 *   costs the same either way); the link is made, and its token hashed, when the job runs.
 * - An invitation's job holds its link sealed with ENCRYPTION_KEY: the token is kept in clear nowhere.
 * - An alert's job holds the facts its mail tells, queued in the transaction of the change that raised it.
 */
import type { Logger } from 'pino';
import type { Db } from '../../db/client.js';
import * as workspacesRepo from '../../db/workspaces.repo.js';
import type { Clock } from '../../lib/clock.js';
import type { CredentialsCipher, Sealed } from '../../lib/credentials-cipher.js';
import { expiryAfterDeadlines, type Jobs, type QueueDefinition } from '../../lib/jobs.js';
import type { Mailer, MailMessage } from '../../lib/mailer.js';
import { describeError } from '../../logger.js';
import type { OutboxEvent } from '../webhooks/outbox.js';
import { type Alert, buildAlert, buildAlertMail, buildInvitationMail, buildPasswordResetMail, isAlertEvent } from './messages.js';

export const MAIL_QUEUE = 'mail';

export type MailJob =
  | { kind: 'password_reset'; userId: number | null }
  | { kind: 'invitation'; invitationId: number; link: Sealed }
  | { kind: 'alert'; alert: Alert };

export type MailResult = 'sent' | 'skipped' | 'not_sent';

const NOT_SENT = 'no mail was sent: SMTP_URL is not set';
const linkContext = (invitationId: number) => `invitation-mail:${invitationId}`;

export type MailWork = ReturnType<typeof createMailWork>;

export function createMailWork(deps: {
  db: Db;
  clock: Clock;
  jobs: Jobs;
  mailer: Mailer;
  cipher: CredentialsCipher;
  logger: Logger;
  appUrl: string;
  timeoutMs: number;
  /** Makes a password-reset link for the user (password-reset.service.ts); null when the account is gone. */
  issueResetLink: (userId: number) => Promise<{ email: string; url: string } | null>;
}) {
  const { db, jobs, mailer, logger } = deps;

  async function send(kind: MailJob['kind'], message: MailMessage): Promise<MailResult> {
    try {
      await mailer.send(message);
    } catch (error) {
      // The recipients are the workspace's own members, the message is the mail's: neither is a secret, but a link is.
      logger.warn({ mail: kind, err: describeError(error) }, 'a mail could not be sent; it will be tried again');
      throw error;
    }
    return 'sent';
  }

  async function deliver(job: MailJob): Promise<MailResult> {
    if (job.kind === 'password_reset') {
      const link = job.userId === null ? null : await deps.issueResetLink(job.userId);
      if (!link) return 'skipped';
      return send(job.kind, { to: [link.email], ...buildPasswordResetMail(link.url) });
    }
    if (job.kind === 'invitation') {
      const invitation = await workspacesRepo.invitationForMail(db, job.invitationId);
      // Revoked, accepted or expired before its mail went: the link would not work.
      if (!invitation || invitation.acceptedAt || invitation.expiresAt <= deps.clock.now()) return 'skipped';
      const url = deps.cipher.open(job.link, linkContext(job.invitationId));
      return send(job.kind, { to: [invitation.email], ...buildInvitationMail({ ...invitation, url }) });
    }
    const { alert } = job;
    const [recipients, workspace] = await Promise.all([
      workspacesRepo.adminEmails(db, alert.workspaceId),
      workspacesRepo.findWorkspace(db, alert.workspaceId),
    ]);
    if (!workspace || recipients.length === 0) return 'skipped';
    if (!mailer.configured) {
      logger.info({ mail: 'alert', event: alert.event, workspaceId: alert.workspaceId, recipients: recipients.length }, NOT_SENT);
      return 'not_sent';
    }
    return send(job.kind, { to: recipients, ...buildAlertMail(alert, workspace.name, deps.appUrl) });
  }

  const queue: QueueDefinition<MailJob> = {
    name: MAIL_QUEUE,
    // About an hour of tries (30 s doubling): long enough for an SMTP server's restart, short of a reset link's life.
    options: { expireInSeconds: expiryAfterDeadlines(deps.timeoutMs), retryLimit: 7, retryDelay: 30, retryBackoff: true },
    work: { localConcurrency: 2, pollingIntervalSeconds: 2 },
    handler: deliver,
    // Sent by the instances that send webhooks: mail is the other notice Storelink sends out.
    worker: 'webhooks',
  };

  return {
    queue,
    configured: mailer.configured,

    /** A reset link for the account (null: none has the e-mail), or the log line saying no mail was sent. */
    async passwordReset(userId: number | null): Promise<void> {
      if (!mailer.configured) {
        logger.info({ mail: 'password_reset', userId }, `${NOT_SENT} (the operator resets with storelink user:reset-password)`);
        return;
      }
      await jobs.send<MailJob>(MAIL_QUEUE, { kind: 'password_reset', userId });
    },

    /**
     * The invitation's link mailed to the invitee, in the invitation's transaction; without SMTP, the log line. True when
     * a mail is on its way.
     */
    async invitation(tx: Db, invitationId: number, url: string): Promise<boolean> {
      if (!mailer.configured) {
        logger.info({ mail: 'invitation', invitationId }, `${NOT_SENT} (the dashboard shows the invitation's link to copy)`);
        return false;
      }
      const link = deps.cipher.seal(url, linkContext(invitationId));
      await jobs.send<MailJob>(MAIL_QUEUE, { kind: 'invitation', invitationId, link }, { tx });
      return true;
    },

    /** The alerts among a change's events, each a mail job in the change's transaction (the outbox calls it). */
    async alerts(tx: Db, workspaceId: number, events: readonly OutboxEvent[]): Promise<void> {
      const alerts = events.flatMap(({ type, data }) => (isAlertEvent(type) ? [buildAlert(type, workspaceId, data)] : []));
      if (alerts.length === 0) return;
      await jobs.sendMany<MailJob>(
        MAIL_QUEUE,
        alerts.map((alert) => ({ data: { kind: 'alert', alert } })),
        { tx },
      );
    },
  };
}
