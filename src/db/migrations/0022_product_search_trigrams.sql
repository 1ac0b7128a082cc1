-- pg_trgm is a trusted extension since PostgreSQL 13: a role with CREATE on the database may add it. PGlite loads it
-- from @electric-sql/pglite/contrib/pg_trgm, which every PGlite Storelink opens is given (src/db/pglite.ts).
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE INDEX "products_search_trgm_idx" ON "products" USING gin ("search" gin_trgm_ops);
