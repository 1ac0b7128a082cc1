/** The one schema, for PGlite and PostgreSQL alike; `npm run db:generate` turns changes into a checked-in migration. */
import { sql } from 'drizzle-orm';
import { check, index, integer, numeric, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

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

export const ROLES = ['owner', 'admin', 'member'] as const;
export type Role = (typeof ROLES)[number];

export const memberships = pgTable(
  'memberships',
  {
    workspaceId: integer('workspace_id').notNull().references(() => workspaces.id, { onDelete: 'cascade' }),
    userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    role: text('role').$type<Role>().notNull(),
    createdAt: timestamps.createdAt,
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.workspaceId] }),
    index('memberships_workspace_idx').on(t.workspaceId),
    check('memberships_role_check', sql`${t.role} in ('owner', 'admin', 'member')`),
  ],
);

export const TOKEN_KINDS = ['session', 'pat'] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];

/** One row per issued session or personal access token, keyed by the JWT's `jti` (DESIGN §7). The token itself is never stored. */
export const accessTokens = pgTable(
  'access_tokens',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
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
    check('access_tokens_kind_check', sql`${t.kind} in ('session', 'pat')`),
  ],
);

export const products = pgTable(
  'products',
  {
    id: serial('id').primaryKey(),
    workspaceId: integer('workspace_id').notNull().references(() => workspaces.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    price: numeric('price', { precision: 12, scale: 2 }).notNull(),
    currency: text('currency').notNull(),
    sku: text('sku'),
    ...timestamps,
  },
  (t) => [index('products_workspace_id_idx').on(t.workspaceId, t.id)],
);
