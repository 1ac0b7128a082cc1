ALTER TABLE "site_credentials" ADD COLUMN "refreshed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "site_credentials" ADD COLUMN "next_refresh_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "site_credentials" ADD COLUMN "refresh_failures" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "site_credentials" ADD COLUMN "lease_owner" text;--> statement-breakpoint
ALTER TABLE "site_credentials" ADD COLUMN "lease_until" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "site_credentials_next_refresh_idx" ON "site_credentials" USING btree ("next_refresh_at");