/**
 * What each mail says (docs/e-mail.md): pure builders of a subject and a plain-text body. An alert is first cut down,
 * from the webhook event that raised it, to the few facts its mail tells: that is all its job keeps.
 */
import type { WebhookEvent } from '../../domain/index.js';

export interface MailText {
  readonly subject: string;
  readonly text: string;
}

/** The events mailed to a workspace's owners and admins: stock sold twice, a site to reconnect, a listing not synced. */
export const ALERT_EVENTS = [
  'stock.oversold',
  'site.reauthorization_required',
  'listing.sync_failed',
] as const satisfies readonly WebhookEvent[];
export type AlertEvent = (typeof ALERT_EVENTS)[number];

export type Alert =
  | { event: 'stock.oversold'; workspaceId: number; orderId: number; orderExternalId: string; sku: string; short: number }
  | { event: 'site.reauthorization_required'; workspaceId: number; siteName: string; platform: string; reason: string | null }
  | { event: 'listing.sync_failed'; workspaceId: number; siteId: number; listingId: number; title: string; problem: string | null };

export const isAlertEvent = (event: WebhookEvent): event is AlertEvent => (ALERT_EVENTS as readonly string[]).includes(event);

type Data = Record<string, unknown>;
const record = (value: unknown): Data => (value !== null && typeof value === 'object' ? (value as Data) : {});
const text = (value: unknown): string => (typeof value === 'string' ? value : String(value ?? ''));
const optionalText = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** The alert an event's webhook data tells of (DESIGN §14's `stock.oversold`, the site and listing events' shapes). */
export function buildAlert(event: AlertEvent, workspaceId: number, data: Data): Alert {
  if (event === 'stock.oversold') {
    const order = record(data.order);
    return {
      event,
      workspaceId,
      orderId: Number(order.id),
      orderExternalId: text(order.external_id),
      sku: text(data.sku),
      short: Number(data.short),
    };
  }
  if (event === 'site.reauthorization_required') {
    const site = record(data.site);
    return { event, workspaceId, siteName: text(site.name), platform: text(site.platform), reason: optionalText(site.status_reason) };
  }
  const listing = record(data.listing);
  const issues = Array.isArray(listing.issues) ? listing.issues.map(record) : [];
  const problem = issues.find((issue) => issue.severity === 'error') ?? issues[0];
  return {
    event,
    workspaceId,
    siteId: Number(listing.site_id),
    listingId: Number(listing.id),
    title: text(listing.title),
    problem: optionalText(problem?.message),
  };
}

/** An alert's mail, with a link to where the dashboard shows the matter. */
export function buildAlertMail(alert: Alert, workspaceName: string, appUrl: string): MailText {
  const footer = `\n\nYou receive this as an owner or admin of the workspace "${workspaceName}" on Storelink.\n`;
  switch (alert.event) {
    case 'stock.oversold':
      return {
        subject: `Oversold: ${alert.sku} is ${alert.short} short on order ${alert.orderExternalId}`,
        text:
          `Order ${alert.orderExternalId} sold ${alert.short} more of ${alert.sku} than the stock pool held. ` +
          'The pool is at 0: cancel the order on its platform, or find the stock.\n\n' +
          `The order: ${appUrl}/workspace/${alert.workspaceId}/orders/${alert.orderId}${footer}`,
      };
    case 'site.reauthorization_required':
      return {
        subject: `Reconnect ${alert.siteName}: ${alert.platform} no longer accepts Storelink's access`,
        text:
          `${alert.platform} refused Storelink's access to ${alert.siteName}` +
          `${alert.reason ? ` (${alert.reason})` : ''}. Until it is connected again, no listing, stock or order of it is synced.\n\n` +
          `Reconnect it from the dashboard: ${appUrl}/workspace/${alert.workspaceId}/dashboard${footer}`,
      };
    case 'listing.sync_failed':
      return {
        subject: `A listing failed to sync: ${alert.title}`,
        text:
          `The last change to the listing "${alert.title}" could not be sent to its platform` +
          `${alert.problem ? `: ${alert.problem}` : '.'}\n\n` +
          `The listing: ${appUrl}/site/${alert.siteId}/listings/${alert.listingId}${footer}`,
      };
  }
}

/** The invitation's mail: its link, as POST …/invitations answers it. */
export function buildInvitationMail(input: {
  url: string;
  workspaceName: string;
  inviterName: string | null;
  role: string;
  expiresAt: Date;
}): MailText {
  const who = input.inviterName ?? 'A member';
  return {
    subject: `${who} invited you to ${input.workspaceName} on Storelink`,
    text:
      `${who} invited you to join the workspace "${input.workspaceName}" on Storelink as ${input.role}.\n\n` +
      `Accept the invitation: ${input.url}\n\n` +
      `The link can be used once, until ${input.expiresAt.toUTCString()}. ` +
      'Sign up or sign in with this e-mail address to accept it. If you did not expect it, ignore this mail.\n',
  };
}

/** The password reset's mail: its link, used once within the hour. */
export function buildPasswordResetMail(url: string): MailText {
  return {
    subject: 'Reset your Storelink password',
    text:
      'Someone (we hope you) asked to reset the password of your Storelink account.\n\n' +
      `Choose a new password: ${url}\n\n` +
      'The link can be used once, within an hour. Setting a new password signs you out everywhere. ' +
      'If you did not ask for it, ignore this mail: your password stays as it is.\n',
  };
}
