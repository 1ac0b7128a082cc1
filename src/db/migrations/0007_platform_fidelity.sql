DROP INDEX "sites_account_key";--> statement-breakpoint
ALTER TABLE "oauth_states" ADD COLUMN "region" text;--> statement-breakpoint
ALTER TABLE "sites" ADD COLUMN "region" text;--> statement-breakpoint
ALTER TABLE "sites" ADD COLUMN "advertising_region" text;--> statement-breakpoint
ALTER TABLE "sites" ADD COLUMN "granted_scopes" jsonb;--> statement-breakpoint
ALTER TABLE "sites" ADD COLUMN "platform_data" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "sites" ADD CONSTRAINT "sites_account_key" UNIQUE NULLS NOT DISTINCT("workspace_id","platform","external_id","region");--> statement-breakpoint
ALTER TABLE "sites" ADD CONSTRAINT "sites_region_check" CHECK ("sites"."region" in ('NA', 'EU', 'FE'));--> statement-breakpoint
ALTER TABLE "sites" ADD CONSTRAINT "sites_advertising_region_check" CHECK ("sites"."advertising_region" in ('NA', 'EU', 'FE'));--> statement-breakpoint
-- Every Amazon connection made before regions was made in NA, the only region the service could reach.
UPDATE "sites" SET "region" = 'NA' WHERE "platform" = 'amazon-seller';--> statement-breakpoint
UPDATE "sites" SET "advertising_region" = 'NA' WHERE "advertising_profiles" IS NOT NULL;--> statement-breakpoint
-- Etsy sites were asked for the default scopes of the time (ETSY_SCOPES could change them, which the data does not
-- record): the shop read, listings read and written, orders read. Listings need more; the site now says which.
UPDATE "sites" SET "granted_scopes" = '["shops_r", "listings_r", "listings_w", "transactions_r"]'::jsonb WHERE "platform" = 'etsy';
