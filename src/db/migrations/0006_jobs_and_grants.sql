ALTER TABLE "site_credentials" RENAME COLUMN "track" TO "grant_kind";--> statement-breakpoint
ALTER TABLE "site_credentials" DROP CONSTRAINT "site_credentials_track_check";--> statement-breakpoint
ALTER TABLE "site_credentials" DROP CONSTRAINT "site_credentials_site_id_track_pk";--> statement-breakpoint
ALTER TABLE "site_credentials" ADD CONSTRAINT "site_credentials_site_id_grant_kind_pk" PRIMARY KEY("site_id","grant_kind");--> statement-breakpoint
ALTER TABLE "site_credentials" DROP COLUMN "lease_owner";--> statement-breakpoint
ALTER TABLE "site_credentials" DROP COLUMN "lease_until";--> statement-breakpoint
ALTER TABLE "site_credentials" ADD COLUMN "version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP COLUMN "lease_until";--> statement-breakpoint
ALTER TABLE "site_credentials" ADD CONSTRAINT "site_credentials_grant_kind_check" CHECK ("site_credentials"."grant_kind" in ('seller', 'advertising'));