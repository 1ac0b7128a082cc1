/** The one schema, for PGlite and PostgreSQL alike; `npm run db:generate` turns changes into a checked-in migration. */
import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  customType,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  unique,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import {
  ADVERTISING_STATES,
  type AdvertisingProfile,
  type AdvertisingState,
  type AdvertisingTargeting,
  AMAZON_REGIONS,
  type AmazonRegion,
  type AuditAction,
  type AuditSubject,
  type DeliveryStatus,
  GRANT_KINDS,
  type GrantKind,
  IMPORT_STATUSES,
  type ImportSkip,
  type ImportStatus,
  LISTING_STATUSES,
  type ListedVariant,
  type ListingDifference,
  type ListingIssue,
  type ListingOverrides,
  type ListingStatus,
  MEDIA_TYPES,
  type MediaExtension,
  ORDER_STATUSES,
  type OrderStatus,
  type ProductOption,
  type ProductPackage,
  ROLES,
  type Role,
  SITE_STATUSES,
  type SitePlatform,
  type SiteStatus,
  STOCK_REASONS,
  type StockReason,
  SYNC_STATUSES,
  type SyncStatus,
  TOKEN_KINDS,
  type TokenKind,
  type Track,
  type WebhookEvent,
} from '../domain/index.js';

/** `<column> in ('a', 'b')`: a check constraint built from the domain's list, so the two cannot drift. */
const oneOf = (column: unknown, values: readonly string[]) => sql`${column} in (${sql.raw(values.map((v) => `'${v}'`).join(', '))})`;

const timestamps = {
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
};

export const users = pgTable(
  'users',
  {
    id: serial('id').primaryKey(),
    email: text('email').notNull(),
    name: text('name').notNull(),
    passwordHash: text('password_hash').notNull(),
    ...timestamps,
  },
  (t) => [uniqueIndex('users_email_lower_key').on(sql`lower(${t.email})`)],
);

export const workspaces = pgTable('workspaces', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
  ...timestamps,
});

export const memberships = pgTable(
  'memberships',
  {
    workspaceId: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role').$type<Role>().notNull(),
    createdAt: timestamps.createdAt,
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.workspaceId] }),
    index('memberships_workspace_idx').on(t.workspaceId),
    check('memberships_role_check', oneOf(t.role, ROLES)),
  ],
);

/**
 * An invitation to a workspace (DESIGN §12): a link with a single-use token, valid 7 days. Only the token's SHA-256 is
 * kept, as for every other secret; the link is shown once, to the member who invites.
 */
export const invitations = pgTable(
  'invitations',
  {
    id: serial('id').primaryKey(),
    workspaceId: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    role: text('role').$type<Role>().notNull(),
    tokenHash: text('token_hash').notNull(),
    invitedBy: integer('invited_by').references(() => users.id, { onDelete: 'set null' }),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    acceptedAt: timestamp('accepted_at', { withTimezone: true }),
    acceptedBy: integer('accepted_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamps.createdAt,
  },
  (t) => [
    uniqueIndex('invitations_token_hash_key').on(t.tokenHash),
    index('invitations_workspace_idx').on(t.workspaceId, t.id),
    check('invitations_role_check', oneOf(t.role, ROLES)),
  ],
);

/**
 * A password-reset link (docs/e-mail.md): single use, valid an hour. Only the token's SHA-256 is kept; the link itself
 * exists only in the mail that carries it.
 */
export const passwordResets = pgTable(
  'password_resets',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: timestamps.createdAt,
  },
  (t) => [uniqueIndex('password_resets_token_hash_key').on(t.tokenHash), index('password_resets_user_idx').on(t.userId)],
);

/** One row per issued session or personal access token, keyed by the JWT's `jti` (DESIGN §7). The token itself is never stored. */
export const accessTokens = pgTable(
  'access_tokens',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text('kind').$type<TokenKind>().notNull(),
    name: text('name'),
    jti: text('jti').notNull(),
    createdAt: timestamps.createdAt,
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('access_tokens_jti_key').on(t.jti),
    index('access_tokens_user_kind_idx').on(t.userId, t.kind),
    check('access_tokens_kind_check', oneOf(t.kind, TOKEN_KINDS)),
  ],
);

/** Bytes of a PostgreSQL `bytea`, as a Buffer on both drivers. */
const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength)),
});

/** The workspace's catalogue (DESIGN §9): a product, with its variants and images in tables of their own. */
export const products = pgTable(
  'products',
  {
    id: serial('id').primaryKey(),
    workspaceId: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    /** The product's key in CSV files (DESIGN §9): unique in the workspace, `[a-z0-9-]`, made from the title when not given. */
    handle: text('handle').notNull(),
    description: text('description').notNull().default(''),
    brand: text('brand'),
    tags: jsonb('tags').$type<string[]>().notNull().default([]),
    attributes: jsonb('attributes').$type<Record<string, string>>().notNull().default({}),
    currency: text('currency').notNull(),
    options: jsonb('options').$type<ProductOption[]>().notNull().default([]),
    package: jsonb('package').$type<ProductPackage>(),
    /** +1 on every change: what a listing was last synced at. */
    version: integer('version').notNull().default(1),
    /**
     * What `?q=` searches: the title and every sku, one per line, lowercased by the service (`searchText`) as the
     * query is. One plain LIKE per product, where an ILIKE on the title and a subquery over the variants cost ten
     * times as much.
     */
    search: text('search').notNull().default(''),
    ...timestamps,
  },
  (t) => [
    index('products_workspace_id_idx').on(t.workspaceId, t.id),
    uniqueIndex('products_handle_key').on(t.workspaceId, t.handle),
    // pg_trgm's trigrams of `search` (migration 0022): a `LIKE '%abc%'` reads the products holding abc's trigrams only.
    index('products_search_trgm_idx').using('gin', t.search.op('gin_trgm_ops')),
  ],
);

/** A sellable variant of a product; its sku is unique among the workspace's variants. Money is numeric, never a float. */
export const productVariants = pgTable(
  'product_variants',
  {
    id: serial('id').primaryKey(),
    productId: integer('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    workspaceId: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    sku: text('sku').notNull(),
    optionValues: jsonb('option_values').$type<Record<string, string>>().notNull().default({}),
    price: numeric('price', { precision: 12, scale: 2 }).notNull(),
    quantity: integer('quantity').notNull(),
    barcode: text('barcode'),
    ...timestamps,
  },
  (t) => [
    unique('product_variants_workspace_sku_key').on(t.workspaceId, t.sku),
    index('product_variants_product_idx').on(t.productId, t.position),
  ],
);

/**
 * How many of the workspace's products a search matched when it last counted them (`q` lowercased as searched; `''`
 * for the whole catalogue), kept while the answer holds: adding, removing a product or changing its `search` deletes
 * the workspace's rows in the same transaction (migration 0023's triggers), so `meta.total` stays exact without a count
 * of every match on every page. At most SEARCH_TOTALS_KEPT rows a workspace (products.repo.ts).
 */
export const productSearchTotals = pgTable(
  'product_search_totals',
  {
    workspaceId: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    q: text('q').notNull(),
    total: integer('total').notNull(),
    countedAt: timestamp('counted_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.q] })],
);

/** An image of a product: a caller's public URL, or Storelink's own for uploaded bytes (`mediaSha256`). */
export const productImages = pgTable(
  'product_images',
  {
    id: serial('id').primaryKey(),
    productId: integer('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    url: text('url').notNull(),
    alt: text('alt'),
    mediaSha256: text('media_sha256').references(() => media.sha256),
    ...timestamps,
  },
  (t) => [index('product_images_product_idx').on(t.productId, t.position), index('product_images_media_idx').on(t.mediaSha256)],
);

/**
 * Uploaded bytes, stored once per content (sha256) and served publicly at /media/<sha256>.<extension>: a product's
 * images, and the files a listing names (a certificate: a PDF or an image; a PDF has no width or height).
 */
export const media = pgTable(
  'media',
  {
    sha256: text('sha256').primaryKey(),
    extension: text('extension').$type<MediaExtension>().notNull(),
    contentType: text('content_type').notNull(),
    sizeBytes: integer('size_bytes').notNull(),
    width: integer('width'),
    height: integer('height'),
    bytes: bytea('bytes').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [check('media_extension_check', oneOf(t.extension, Object.keys(MEDIA_TYPES)))],
);

export const sites = pgTable(
  'sites',
  {
    id: serial('id').primaryKey(),
    workspaceId: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    platformId: integer('platform_id').notNull(),
    platform: text('platform').$type<SitePlatform>().notNull(),
    name: text('name').notNull(),
    externalId: text('external_id').notNull(),
    status: text('status').$type<SiteStatus>().notNull().default('connected'),
    statusReason: text('status_reason'),
    tracking: jsonb('tracking').$type<Record<string, string>>().notNull().default({}),
    advertisingProfiles: jsonb('advertising_profiles').$type<AdvertisingProfile[]>(),
    /** Amazon: the region the seller connected in, whose hosts every call of the site goes to; null elsewhere. */
    region: text('region').$type<AmazonRegion>(),
    /** Amazon: the region advertising was granted in, whose profiles the site has; null without advertising. */
    advertisingRegion: text('advertising_region').$type<AmazonRegion>(),
    /** The OAuth scopes the connection was granted, where the platform takes scopes per connection (Etsy); else null. */
    grantedScopes: jsonb('granted_scopes').$type<string[]>(),
    /** What later calls need of the account that is not secret: TikTok Shop's shop cipher, Amazon's store and marketplaces. */
    platformData: jsonb('platform_data').$type<Record<string, unknown>>().notNull().default({}),
    /**
     * What the site sells in (DESIGN §15), read from the platform at connect: the Etsy shop's currency, the TikTok Shop
     * market's; null on Amazon, whose listings are in their marketplace's, and on a site connected before it was read.
     */
    currency: text('currency'),
    /** How products are listed on the site (DESIGN §10): the platform's fields, the price adjustment, the stock buffer. */
    listingSettings: jsonb('listing_settings').$type<Record<string, unknown>>().notNull().default({}),
    /**
     * When the site's orders began to count (DESIGN §14): its first connection. An order placed before it is history,
     * recorded without taking stock; null until the first read of its orders.
     */
    ordersFrom: timestamp('orders_from', { withTimezone: true }),
    /** Every order the platform changed before this time has been read; the next poll asks from a little before it. */
    ordersReadTo: timestamp('orders_read_to', { withTimezone: true }),
    ...timestamps,
  },
  (t) => [
    // One site per platform account (and Amazon region) and workspace: reconnecting the same account updates it and
    // keeps its id. An Amazon seller selling in two regions authorizes each separately: two sites.
    unique('sites_account_key').on(t.workspaceId, t.platform, t.externalId, t.region).nullsNotDistinct(),
    // A platform's notification names the account, not the workspace: its sites are found by this.
    index('sites_account_idx').on(t.platform, t.externalId),
    check('sites_status_check', oneOf(t.status, SITE_STATUSES)),
    check('sites_region_check', oneOf(t.region, AMAZON_REGIONS)),
    check('sites_advertising_region_check', oneOf(t.advertisingRegion, AMAZON_REGIONS)),
  ],
);

/** A site's platform tokens, sealed with AES-256-GCM; never returned or logged (DESIGN §7). */
export const siteCredentials = pgTable(
  'site_credentials',
  {
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    grantKind: text('grant_kind').$type<GrantKind>().notNull(),
    keyId: text('key_id').notNull(),
    ciphertext: text('ciphertext').notNull(),
    accessExpiresAt: timestamp('access_expires_at', { withTimezone: true }),
    refreshExpiresAt: timestamp('refresh_expires_at', { withTimezone: true }),
    /** When the refresh worker last renewed these credentials, and when it will next. */
    refreshedAt: timestamp('refreshed_at', { withTimezone: true }),
    nextRefreshAt: timestamp('next_refresh_at', { withTimezone: true }),
    /** Failed refreshes in a row that left the connection usable (5xx, 429, timeouts), for the back-off. */
    refreshFailures: integer('refresh_failures').notNull().default(0),
    /**
     * Goes up by one at every write of new tokens (a renewal or a new authorization): a renewal is saved, and a refused
     * grant is acted on, only while the row is still at the version the renewal started from (a fencing token).
     */
    version: integer('version').notNull().default(1),
    /**
     * When the seller (or advertiser) last authorized the app: set by a new authorization, never by a renewal. A
     * platform's deauthorization notification sent before it is about an earlier grant and is not acted on.
     */
    grantedAt: timestamp('granted_at', { withTimezone: true }).notNull().defaultNow(),
    ...timestamps,
  },
  (t) => [
    primaryKey({ columns: [t.siteId, t.grantKind] }),
    check('site_credentials_grant_kind_check', oneOf(t.grantKind, GRANT_KINDS)),
    index('site_credentials_next_refresh_idx').on(t.nextRefreshAt),
  ],
);

/**
 * The platform notifications received lately, by the platform's own id of each (TikTok Shop's `tts_notification_id`):
 * one already here is a repeat or a replay, and is not acted on again. Rows older than the notifications' tolerance are
 * deleted as new ones come: a notification that old is refused by its timestamp anyway.
 */
export const platformNotificationsReceived = pgTable(
  'platform_notifications_received',
  {
    platform: text('platform').$type<SitePlatform>().notNull(),
    notificationId: text('notification_id').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.platform, t.notificationId] }), index('platform_notifications_received_at_idx').on(t.receivedAt)],
);

/**
 * The server-side half of an OAuth state, keyed by the state JWT's `jti` and deleted when the callback consumes it:
 * what must not travel in the (signed, not secret) state, such as the PKCE verifier and platform 4's tracking pairs.
 */
export const oauthStates = pgTable(
  'oauth_states',
  {
    jti: text('jti').primaryKey(),
    track: text('track').$type<Track>().notNull(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    workspaceId: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    siteId: integer('site_id').references(() => sites.id, { onDelete: 'cascade' }),
    redirectUrl: text('redirect_url').notNull().default(''),
    /** Amazon: the region the connection was started in; its callback exchanges the code there. */
    region: text('region').$type<AmazonRegion>(),
    codeVerifierKeyId: text('code_verifier_key_id'),
    codeVerifier: text('code_verifier'),
    tracking: jsonb('tracking').$type<Record<string, string>>().notNull().default({}),
    /**
     * The `jti` of the session or PAT that asked for the state: once it is revoked the state is refused (null for
     * states stored before this column, and checked by membership only).
     */
    tokenJti: text('token_jti'),
    createdAt: timestamps.createdAt,
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    index('oauth_states_expires_idx').on(t.expiresAt),
    // The pending states of a workspace are counted at every authenticate-site (docs/decisions.md, "Abuse limits").
    index('oauth_states_workspace_expires_idx').on(t.workspaceId, t.expiresAt),
  ],
);

/** Who did what to a workspace, when, and from which address; written in the same transaction as the change itself. */
export const auditEvents = pgTable(
  'audit_events',
  {
    id: serial('id').primaryKey(),
    workspaceId: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    actorUserId: integer('actor_user_id').references(() => users.id, { onDelete: 'set null' }),
    action: text('action').$type<AuditAction>().notNull(),
    subjectType: text('subject_type').$type<AuditSubject>().notNull(),
    subjectId: integer('subject_id').notNull(),
    ipAddress: text('ip_address'),
    details: jsonb('details').$type<Record<string, string | number | null>>().notNull().default({}),
    createdAt: timestamps.createdAt,
  },
  (t) => [index('audit_events_workspace_idx').on(t.workspaceId, t.id)],
);

/** A workspace's webhook endpoint; its signing secret is sealed like platform credentials and shown once. */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: serial('id').primaryKey(),
    workspaceId: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    events: jsonb('events').$type<WebhookEvent[]>().notNull(),
    secretKeyId: text('secret_key_id').notNull(),
    secretCiphertext: text('secret_ciphertext').notNull(),
    createdAt: timestamps.createdAt,
  },
  (t) => [index('webhook_endpoints_workspace_idx').on(t.workspaceId)],
);

/** The durable outbox: one row per event and endpoint, written in the transaction of the change that caused it. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: serial('id').primaryKey(),
    endpointId: integer('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    messageId: text('message_id').notNull(),
    eventType: text('event_type').$type<WebhookEvent>().notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    status: text('status').$type<DeliveryStatus>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    createdAt: timestamps.createdAt,
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
  },
  (t) => [
    index('webhook_deliveries_due_idx').on(t.status, t.nextAttemptAt),
    index('webhook_deliveries_endpoint_idx').on(t.endpointId, t.id),
  ],
);

/**
 * A product offered on a connected site (DESIGN §10). `wants` and `target_version` are what the seller asked for; the
 * listing jobs move the platform there and record what it holds in `status`, `synced_version` and `progress` (the
 * adapter's checkpoint: the platform's ids and a fingerprint of each part delivered), so a job run twice repeats nothing.
 */
export const listings = pgTable(
  'listings',
  {
    id: serial('id').primaryKey(),
    workspaceId: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    productId: integer('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    platformId: integer('platform_id').notNull(),
    status: text('status').$type<ListingStatus>().notNull().default('pending'),
    syncStatus: text('sync_status').$type<SyncStatus>().notNull().default('syncing'),
    platformStatus: text('platform_status'),
    externalId: text('external_id'),
    externalUrl: text('external_url'),
    categoryId: text('category_id').notNull(),
    attributes: jsonb('attributes').$type<Record<string, unknown>>().notNull().default({}),
    /** Amazon's marketplace of the listing; null on the other platforms. */
    marketplaceId: text('marketplace_id'),
    variants: jsonb('variants').$type<ListedVariant[]>().notNull().default([]),
    currency: text('currency').notNull(),
    /** The title as listed: the override's, else the product's, as last drafted. */
    title: text('title').notNull().default(''),
    /** What this listing shows instead of the product's (DESIGN §15); null for none. */
    overrides: jsonb('overrides').$type<ListingOverrides>(),
    /** The product version the platform holds; null before the first delivery. */
    syncedVersion: integer('synced_version'),
    /** The product version the listing is being brought to. */
    targetVersion: integer('target_version').notNull(),
    /** Where the seller wants the listing: live, switched off, or removed. */
    wants: text('wants').$type<'active' | 'inactive' | 'deleted'>().notNull().default('active'),
    issues: jsonb('issues').$type<ListingIssue[]>().notNull().default([]),
    /** What the platform shows that the catalogue does not, as last read (listing-watch.ts). */
    differences: jsonb('differences').$type<ListingDifference[]>().notNull().default([]),
    /** When the listing was last read from the platform by the watch; null before the first. */
    readAt: timestamp('read_at', { withTimezone: true }),
    progress: jsonb('progress').$type<Record<string, unknown>>().notNull().default({}),
    ...timestamps,
  },
  (t) => [
    // One listing of a product per site and marketplace, deleted ones aside (DESIGN §10: 409).
    uniqueIndex('listings_product_site_key')
      .on(t.siteId, t.productId, sql`coalesce(${t.marketplaceId}, '')`)
      .where(sql`${t.status} <> 'deleted'`),
    // One listing record per platform listing of a site: an import finds the ones it took before by their id.
    uniqueIndex('listings_site_external_key')
      .on(t.siteId, t.externalId)
      .where(sql`${t.status} <> 'deleted' and ${t.externalId} is not null`),
    index('listings_site_idx').on(t.siteId, t.id),
    index('listings_product_idx').on(t.productId),
    // The watch's sweep: the listings on their platforms, the least recently read first (listing-watch.ts).
    index('listings_read_idx').on(t.readAt.asc().nullsFirst(), t.id).where(sql`${t.externalId} is not null and ${t.status} <> 'deleted'`),
    check('listings_status_check', oneOf(t.status, LISTING_STATUSES)),
    check('listings_sync_status_check', oneOf(t.syncStatus, SYNC_STATUSES)),
    check('listings_wants_check', oneOf(t.wants, ['active', 'inactive', 'deleted'])),
  ],
);

/**
 * A listing's change of offers (price, stock) waiting to go, with other listings' of its site, in one bulk feed
 * (Amazon's JSON_LISTINGS_FEED, docs/listings.md "Bulk changes as a feed"). `claim` names the feed job that took it;
 * `feed_id` is the platform's id of the feed once submitted. The listing's own work waits while a feed holds it.
 */
export const listingFeedItems = pgTable(
  'listing_feed_items',
  {
    listingId: integer('listing_id')
      .primaryKey()
      .references(() => listings.id, { onDelete: 'cascade' }),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    /** The product version the change brings the listing to. */
    targetVersion: integer('target_version').notNull(),
    /** The adapter's change: its feed messages, and what the listing records once the platform took them. */
    change: jsonb('change').$type<Record<string, unknown>>().notNull(),
    claim: text('claim'),
    feedId: text('feed_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('listing_feed_items_site_idx').on(t.siteId, t.claim)],
);

/**
 * Imports of a site's existing listings (DESIGN §10): where the reading stands (`cursor`, the platform's own) and what
 * it did so far, counted in the transaction that did it, so a page read again after a crash is counted once.
 */
export const listingImports = pgTable(
  'listing_imports',
  {
    id: serial('id').primaryKey(),
    workspaceId: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    status: text('status').$type<ImportStatus>().notNull().default('running'),
    /** The next page to read; null before the first. */
    cursor: text('cursor'),
    pages: integer('pages').notNull().default(0),
    found: integer('found').notNull().default(0),
    created: integer('created').notNull().default(0),
    linked: integer('linked').notNull().default(0),
    updated: integer('updated').notNull().default(0),
    skipped: integer('skipped').notNull().default(0),
    skips: jsonb('skips').$type<ImportSkip[]>().notNull().default([]),
    error: text('error'),
    startedBy: integer('started_by').references(() => users.id, { onDelete: 'set null' }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    ...timestamps,
  },
  (t) => [
    // One running import per site: a second request answers the running one.
    uniqueIndex('listing_imports_running_key').on(t.siteId).where(sql`${t.status} = 'running'`),
    index('listing_imports_site_idx').on(t.siteId, t.id),
    check('listing_imports_status_check', oneOf(t.status, IMPORT_STATUSES)),
  ],
);

/**
 * A listing's advertising on Amazon (DESIGN §13): one Sponsored Products campaign, ad group and product ad per listed
 * SKU in the profile of the listing's marketplace. A listing has at most one that is not archived.
 */
export const listingAdvertising = pgTable(
  'listing_advertising',
  {
    id: serial('id').primaryKey(),
    workspaceId: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    listingId: integer('listing_id')
      .notNull()
      .references(() => listings.id, { onDelete: 'cascade' }),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    /** The Ads profile of the listing's marketplace, and that marketplace's currency, which the money is in. */
    profileId: text('profile_id').notNull(),
    marketplaceId: text('marketplace_id').notNull(),
    currency: text('currency').notNull(),
    state: text('state').$type<AdvertisingState>().notNull().default('pending'),
    syncStatus: text('sync_status').$type<SyncStatus>().notNull().default('syncing'),
    /** What the seller asked for: running, paused, or ended. The listing's own state pauses running advertising too. */
    wants: text('wants').$type<'enabled' | 'paused' | 'archived'>().notNull().default('enabled'),
    targeting: jsonb('targeting').$type<AdvertisingTargeting>().notNull(),
    dailyBudget: numeric('daily_budget', { precision: 14, scale: 2 }).notNull(),
    defaultBid: numeric('default_bid', { precision: 14, scale: 2 }).notNull(),
    campaignId: text('campaign_id'),
    adGroupId: text('ad_group_id'),
    /** Amazon's product ad id of each advertised SKU. */
    adIds: jsonb('ad_ids').$type<Record<string, string>>().notNull().default({}),
    issues: jsonb('issues').$type<ListingIssue[]>().notNull().default([]),
    /** What Amazon holds already, so that a job run again creates nothing twice (advertising-work.ts). */
    progress: jsonb('progress').$type<Record<string, unknown>>().notNull().default({}),
    /** When the daily report last brought figures; null before the first. */
    metricsReadAt: timestamp('metrics_read_at', { withTimezone: true }),
    createdBy: integer('created_by').references(() => users.id, { onDelete: 'set null' }),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('listing_advertising_listing_key').on(t.listingId).where(sql`${t.wants} <> 'archived'`),
    index('listing_advertising_listing_idx').on(t.listingId, t.id),
    index('listing_advertising_profile_idx').on(t.siteId, t.profileId),
    check('listing_advertising_state_check', oneOf(t.state, ADVERTISING_STATES)),
    check('listing_advertising_sync_status_check', oneOf(t.syncStatus, SYNC_STATUSES)),
    check('listing_advertising_wants_check', oneOf(t.wants, ['enabled', 'paused', 'archived'])),
  ],
);

/** One day of an advertised listing's figures, as Amazon reported them last (a later report of the day replaces it). */
export const advertisingDays = pgTable(
  'advertising_days',
  {
    advertisingId: integer('advertising_id')
      .notNull()
      .references(() => listingAdvertising.id, { onDelete: 'cascade' }),
    date: text('date').notNull(),
    impressions: integer('impressions').notNull(),
    clicks: integer('clicks').notNull(),
    spend: numeric('spend', { precision: 14, scale: 2 }).notNull(),
    orders: integer('orders').notNull(),
    sales: numeric('sales', { precision: 14, scale: 2 }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.advertisingId, t.date] })],
);

/** The orders of every connected site (DESIGN §14): what sold, in what state, and nothing of who bought it. */
export const orders = pgTable(
  'orders',
  {
    id: serial('id').primaryKey(),
    workspaceId: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    platformId: integer('platform_id').notNull(),
    externalId: text('external_id').notNull(),
    status: text('status').$type<OrderStatus>().notNull(),
    platformStatus: text('platform_status').notNull(),
    currency: text('currency').notNull(),
    total: numeric('total', { precision: 14, scale: 2 }),
    placedAt: timestamp('placed_at', { withTimezone: true }).notNull(),
    platformUpdatedAt: timestamp('platform_updated_at', { withTimezone: true }).notNull(),
    externalUrl: text('external_url'),
    /** Placed before the site's orders began to count: recorded, and never takes or gives back stock. */
    history: boolean('history').notNull().default(false),
    issues: jsonb('issues').$type<ListingIssue[]>().notNull().default([]),
    ...timestamps,
  },
  (t) => [
    // An order seen again (by polling, by a notification, on another instance) is the same record.
    unique('orders_site_external_key').on(t.siteId, t.externalId),
    index('orders_workspace_placed_idx').on(t.workspaceId, t.placedAt.desc(), t.id.desc()),
    check('orders_status_check', oneOf(t.status, ORDER_STATUSES)),
  ],
);

/** The sold lines of an order; each takes stock once, keyed by the platform's line id. */
export const orderLines = pgTable(
  'order_lines',
  {
    id: serial('id').primaryKey(),
    orderId: integer('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'cascade' }),
    workspaceId: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    siteId: integer('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
    externalId: text('external_id').notNull(),
    position: integer('position').notNull(),
    sku: text('sku'),
    productId: integer('product_id').references(() => products.id, { onDelete: 'set null' }),
    variantId: integer('variant_id').references(() => productVariants.id, { onDelete: 'set null' }),
    externalListingId: text('external_listing_id'),
    quantity: integer('quantity').notNull(),
    price: numeric('price', { precision: 12, scale: 2 }),
    /** Units this line took off the pool (less than `quantity` when the pool could not cover it: oversold). */
    stockTaken: integer('stock_taken').notNull().default(0),
    /** Units given back to the pool by cancellations; never more than `stock_taken`. */
    stockReturned: integer('stock_returned').notNull().default(0),
    issues: jsonb('issues').$type<ListingIssue[]>().notNull().default([]),
  },
  (t) => [
    // The line's platform id is its key: it takes stock once, however often its order is read.
    unique('order_lines_site_external_key').on(t.siteId, t.externalId),
    index('order_lines_order_idx').on(t.orderId, t.position),
    index('order_lines_workspace_sku_idx').on(t.workspaceId, t.sku),
    check('order_lines_stock_check', sql`${t.stockReturned} between 0 and ${t.stockTaken}`),
  ],
);

/**
 * Every change of a variant's quantity, written by a trigger on product_variants (migration 0016) so that no path that
 * changes a quantity can leave it out; the writer says why in the transaction's `storelink.stock_change` setting.
 */
export const stockMovements = pgTable(
  'stock_movements',
  {
    id: serial('id').primaryKey(),
    workspaceId: integer('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    productId: integer('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    variantId: integer('variant_id').notNull(),
    sku: text('sku').notNull(),
    delta: integer('delta').notNull(),
    quantityAfter: integer('quantity_after').notNull(),
    reason: text('reason').$type<StockReason>().notNull(),
    orderId: integer('order_id').references(() => orders.id, { onDelete: 'set null' }),
    actorUserId: integer('actor_user_id').references(() => users.id, { onDelete: 'set null' }),
    at: timestamp('at', { withTimezone: true }).notNull(),
  },
  (t) => [
    index('stock_movements_workspace_idx').on(t.workspaceId, t.id.desc()),
    index('stock_movements_variant_idx').on(t.variantId, t.id.desc()),
    check('stock_movements_reason_check', oneOf(t.reason, STOCK_REASONS)),
  ],
);

/**
 * The simulators' state (src/sandbox/state.ts), so a sandbox shop keeps its listings, orders and ads across restarts:
 * one row per part of a simulator, its state as JSON text (text, not jsonb, which refuses a \u0000 a simulator may hold),
 * written whole after requests that changed it. Several instances each write their own: the last writer wins.
 */
export const sandboxState = pgTable('sandbox_state', {
  part: text('part').primaryKey(),
  state: text('state').notNull(),
  savedAt: timestamp('saved_at', { withTimezone: true }).notNull(),
});
