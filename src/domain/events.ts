/** What a workspace can be told about (webhooks) and what its audit log records. */

export const WEBHOOK_EVENTS = [
  'site.connected',
  'site.reauthorization_required',
  'site.recovered',
  'site.disconnected',
  'advertising.connected',
  // A listing's advertising (DESIGN §13): running on Amazon, paused (by the seller or with its listing), or given up.
  'advertising.started',
  'advertising.paused',
  'advertising.failed',
  'product.created',
  'product.updated',
  'product.deleted',
  'listing.published',
  'listing.rejected',
  'listing.error',
  'listing.deactivated',
  'listing.deleted',
  'listing.sync_failed',
  // Orders and the stock pool (DESIGN §14).
  'order.created',
  'order.updated',
  'order.cancelled',
  'stock.oversold',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const AUDIT_ACTIONS = [
  'site.connected',
  'site.reconnected',
  'site.disconnected',
  'advertising.connected',
  'token.created',
  'token.revoked',
  'webhook.created',
  'webhook.deleted',
  'product.created',
  'product.updated',
  'product.deleted',
  'listing.created',
  'listing.changed',
  'listing.activated',
  'listing.deactivated',
  'listing.deleted',
  'listing.refreshed',
  'listing.imported',
  // A listing's advertising (DESIGN §13).
  'advertising.created',
  'advertising.changed',
  'advertising.archived',
  // Workspaces and their members (DESIGN §12).
  'workspace.created',
  'workspace.renamed',
  'member.invited',
  'invitation.revoked',
  'member.joined',
  'member.role_changed',
  'member.removed',
  // Security events (docs/decisions.md, "Security events"): a wrong password for an account, and a refused request.
  'auth.login_failed',
  'authz.denied',
  // A user's own account (issue 16, item 2), in each workspace of the user.
  'user.name_changed',
  'user.password_changed',
  // Orders (DESIGN §14): an order recorded or changed, with the stock it moved.
  'order.recorded',
  'order.changed',
  'orders.sync_requested',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_SUBJECTS = [
  'site',
  'token',
  'webhook',
  'user',
  'product',
  'listing',
  'advertising',
  'workspace',
  'invitation',
  'order',
] as const;
export type AuditSubject = (typeof AUDIT_SUBJECTS)[number];

/**
 * What the live event stream (GET /events, docs/dashboard.md "Live status") says changed in a workspace: its listings,
 * its listings' advertising, its orders (and with them the oversold alerts) or its sites. The database's triggers name
 * these (migration 0024).
 */
export const LIVE_KINDS = ['listings', 'advertising', 'orders', 'sites'] as const;
export type LiveKind = (typeof LIVE_KINDS)[number];
