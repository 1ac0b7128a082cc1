ALTER TABLE "listings" ADD COLUMN "title" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "listings" ADD COLUMN "overrides" jsonb;--> statement-breakpoint
-- Listings made before: listed under their product's title (no listing had overrides).
UPDATE "listings" SET "title" = "products"."title" FROM "products" WHERE "products"."id" = "listings"."product_id";
