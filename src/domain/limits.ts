/** Caps on what one user or workspace may hold or ask for (docs/decisions.md, "Abuse limits", says why each number). */

/** Personal access tokens a user may have that are neither revoked nor expired. */
export const MAX_ACTIVE_PATS_PER_USER = 50;

/** OAuth states of a workspace not yet used and not yet expired: authorizations in progress within 15 minutes. */
export const MAX_PENDING_STATES_PER_WORKSPACE = 100;

/** Webhook endpoints of a workspace. */
export const MAX_WEBHOOKS_PER_WORKSPACE = 20;

/** Redeliveries of one webhook message to one endpoint within REDELIVERY_WINDOW_MS. */
export const MAX_REDELIVERIES_PER_MESSAGE = 10;
export const REDELIVERY_WINDOW_MS = 60 * 60 * 1000;

/** How long after its expiry a state still sends the browser to its signed redirect_url (then: the dashboard). */
export const EXPIRED_STATE_REDIRECT_MS = 24 * 60 * 60 * 1000;
