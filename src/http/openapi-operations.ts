/**
 * What the OpenAPI document says of each operation beyond its route's schema, in one place so that route files stay
 * about behaviour: the operationIds client generators name their methods after, the tags, the examples of request
 * bodies that have none in their schema, and the platforms' callback parameters. openapi.ts applies them.
 */
import type { Track } from '../domain/index.js';

/**
 * The operationId of every API operation, by `METHOD path` (the path below /api/v1, parameters as `{name}`). Stable:
 * a generated client's method names come from these, so renaming one breaks its callers. A route missing here has no
 * operationId, and test/server/openapi.test.ts fails until it gets one.
 */
export const OPERATION_IDS: Readonly<Record<string, string>> = {
  'GET /health': 'getHealth',
  'GET /platforms': 'listPlatforms',
  'POST /auth/register': 'register',
  'POST /auth/login': 'login',
  'POST /auth/logout': 'logout',
  'POST /auth/password-reset': 'requestPasswordReset',
  'POST /auth/password-reset/confirm': 'confirmPasswordReset',
  'GET /personal-access-tokens': 'listPersonalAccessTokens',
  'POST /personal-access-tokens': 'createPersonalAccessToken',
  'DELETE /personal-access-tokens/{id}': 'revokePersonalAccessToken',
  'GET /workspaces': 'listWorkspaces',
  'POST /workspaces': 'createWorkspace',
  'PATCH /workspaces/{workspace_id}': 'renameWorkspace',
  'DELETE /workspaces/{workspace_id}': 'deleteWorkspace',
  'POST /workspaces/{workspace_id}/transfer-ownership': 'transferWorkspaceOwnership',
  'GET /workspaces/{workspace_id}/members': 'listWorkspaceMembers',
  'PATCH /workspaces/{workspace_id}/members/{user_id}': 'changeWorkspaceMemberRole',
  'DELETE /workspaces/{workspace_id}/members/{user_id}': 'removeWorkspaceMember',
  'POST /workspaces/{workspace_id}/invitations': 'createInvitation',
  'GET /workspaces/{workspace_id}/invitations': 'listInvitations',
  'DELETE /workspaces/{workspace_id}/invitations/{invitation_id}': 'revokeInvitation',
  'GET /invitations/{token}': 'getInvitation',
  'POST /invitations/{token}/accept': 'acceptInvitation',
  'GET /user': 'getCurrentUser',
  'PATCH /user': 'updateCurrentUser',
  'POST /user/password': 'changePassword',
  'GET /products': 'listProducts',
  'POST /products': 'createProduct',
  'GET /products/{product_id}': 'getProduct',
  'PATCH /products/{product_id}': 'updateProduct',
  'DELETE /products/{product_id}': 'deleteProduct',
  'GET /products/stock-movements': 'listStockMovements',
  'GET /orders': 'listOrders',
  'GET /events': 'streamEvents',
  'GET /overview': 'getOverview',
  'GET /orders/{order_id}': 'getOrder',
  'POST /sites/{site_id}/orders/sync': 'syncSiteOrders',
  'POST /products/{product_id}/images': 'uploadProductImage',
  'POST /files': 'uploadFile',
  'GET /products/export': 'exportProducts',
  'POST /products/import': 'importProducts',
  'POST /products/bulk-edit': 'bulkEditProducts',
  'POST /authenticate-site': 'authenticateSite',
  'GET /oauth/callback/etsy': 'completeEtsyAuthorization',
  'GET /oauth/callback/tiktok-shop': 'completeTiktokShopAuthorization',
  'GET /oauth/callback/amazon-seller': 'completeAmazonSellerAuthorization',
  'GET /oauth/callback/amazon-ads': 'completeAmazonAdsAuthorization',
  'POST /platform-notifications/tiktok-shop': 'receiveTiktokShopNotification',
  'POST /platform-notifications/etsy': 'receiveEtsyNotification',
  'GET /sites': 'listSites',
  'GET /sites/{site_id}': 'getSite',
  'DELETE /sites/{site_id}': 'disconnectSite',
  'GET /sites/{site_id}/listing-settings': 'getListingSettings',
  'PUT /sites/{site_id}/listing-settings': 'replaceListingSettings',
  'GET /sites/{site_id}/listing-options': 'listListingOptions',
  'GET /sites/{site_id}/categories': 'listCategories',
  'GET /sites/{site_id}/categories/{category_id}/attributes': 'listCategoryAttributes',
  'POST /sites/{site_id}/listings': 'publishListing',
  'GET /sites/{site_id}/listings': 'listSiteListings',
  'POST /sites/{site_id}/listings/import': 'importSiteListings',
  'GET /sites/{site_id}/listings/import': 'getSiteListingsImport',
  'GET /listings/{listing_id}': 'getListing',
  'PATCH /listings/{listing_id}': 'updateListing',
  'DELETE /listings/{listing_id}': 'deleteListing',
  'POST /listings/{listing_id}/advertising': 'advertiseListing',
  'GET /listings/{listing_id}/advertising': 'getListingAdvertising',
  'PATCH /listings/{listing_id}/advertising': 'updateListingAdvertising',
  'DELETE /listings/{listing_id}/advertising': 'endListingAdvertising',
  'GET /listings/{listing_id}/advertising/metrics': 'getListingAdvertisingMetrics',
  'POST /listings/{listing_id}/activate': 'activateListing',
  'POST /listings/{listing_id}/deactivate': 'deactivateListing',
  'POST /listings/{listing_id}/refresh': 'refreshListing',
  'POST /listings/{listing_id}/adopt': 'adoptListingDifferences',
  'GET /audit-events': 'listAuditEvents',
  'POST /webhooks': 'createWebhook',
  'GET /webhooks': 'listWebhooks',
  'DELETE /webhooks/{webhook_id}': 'deleteWebhook',
  'GET /webhooks/{webhook_id}/deliveries': 'listWebhookDeliveries',
  'POST /webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver': 'redeliverWebhookDelivery',
};

/** The document's tags, in the order a reader meets them; every operation names one of these. */
export const TAGS: readonly { name: string; description: string }[] = [
  { name: 'auth', description: 'Accounts and dashboard sessions: sign up, sign in, sign out' },
  { name: 'tokens', description: 'Personal access tokens for scripts and integrations (managed with a dashboard session only)' },
  { name: 'workspaces', description: 'The workspaces you belong to and the current user' },
  { name: 'connect', description: 'Connecting a platform over OAuth 2.0: the authorization URL, the callbacks, platform notifications' },
  { name: 'sites', description: 'Connected sites: one per platform account connected to the workspace' },
  {
    name: 'products',
    description: 'The catalogue: products, their variants and images, CSV export and import, and the files a listing names (a certificate)',
  },
  {
    name: 'listings',
    description: "A product offered on a connected site: publish, change, take off sale, read back, the site's settings",
  },
  {
    name: 'orders',
    description: 'Orders read from every connected site, each sold line taken once off the one stock pool, and why stock changed',
  },
  {
    name: 'advertising',
    description: 'An active Amazon listing advertised with Sponsored Products: started, changed, paused, ended, and its daily figures',
  },
  { name: 'webhooks', description: 'Endpoints that receive the workspace’s events (Standard Webhooks), and their deliveries' },
  { name: 'audit', description: 'Who did what in the workspace' },
  {
    name: 'overview',
    description: 'The workspace at a glance and as it changes: counts by site and status, what needs fixing, live status events',
  },
  { name: 'meta', description: 'Liveness and readiness' },
];

/**
 * Examples of request bodies whose schema has none, by operationId (doc only; test/server/openapi.test.ts checks each against
 * its body schema).
 */
export const BODY_EXAMPLES: Readonly<Record<string, unknown>> = {
  register: { email: 'ada@example.com', password: 'plum-kettle-orbit-93', name: 'Ada' },
  login: { email: 'ada@example.com', password: 'plum-kettle-orbit-93' },
  createPersonalAccessToken: { name: 'Inventory sync', expires_in_days: 90 },
  updateCurrentUser: { name: 'Ada Lovelace' },
  updateListingAdvertising: { daily_budget: '15.00', state: 'paused' },
  changePassword: { current_password: 'plum-kettle-orbit-93', password: 'lantern-orchard-quietly-7' },
  requestPasswordReset: { email: 'ada@example.com' },
  confirmPasswordReset: { token: 'kX0m9eB3-the-token-of-the-mailed-link', password: 'lantern-orchard-quietly-7' },
  authenticateSite: { platform_id: 1, redirect_url: 'https://example.com/connected' },
  updateListing: { attributes: { '200': '1' } },
  createWebhook: { url: 'https://example.com/storelink/events', events: ['listing.published', 'listing.error'] },
};

/** A query parameter of a platform's redirect back, as that platform's adapter reads it (src/platforms/<track>/responses.ts). */
interface CallbackParameter {
  name: string;
  description: string;
}

const state: CallbackParameter = { name: 'state', description: 'The signed state Storelink put in the authorization URL' };
const error: CallbackParameter = { name: 'error', description: 'Set when the seller declined (`access_denied`) or the platform failed' };
const errorDescription: CallbackParameter = { name: 'error_description', description: "The platform's words for `error`" };

/** The query parameters each platform sends back to its callback (readCallback of each adapter). */
export const CALLBACK_PARAMETERS: Readonly<Record<Track, readonly CallbackParameter[]>> = {
  etsy: [{ name: 'code', description: 'The authorization code, exchanged with the PKCE verifier' }, state, error, errorDescription],
  'tiktok-shop': [
    { name: 'code', description: 'The authorization code (`null` when the seller declined)' },
    state,
    error,
    errorDescription,
  ],
  'amazon-seller': [
    { name: 'spapi_oauth_code', description: 'The authorization code of the Selling Partner API' },
    { name: 'selling_partner_id', description: "The seller's id, which becomes the site's external_id" },
    state,
    error,
    errorDescription,
  ],
  'amazon-ads': [
    { name: 'code', description: 'The authorization code of Login with Amazon' },
    { name: 'scope', description: 'The scopes granted; must include advertising::campaign_management' },
    state,
    error,
    errorDescription,
  ],
};
