CREATE TABLE "listing_feed_items" (
	"listing_id" integer PRIMARY KEY NOT NULL,
	"site_id" integer NOT NULL,
	"target_version" integer NOT NULL,
	"change" jsonb NOT NULL,
	"claim" text,
	"feed_id" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "listing_feed_items" ADD CONSTRAINT "listing_feed_items_listing_id_listings_id_fk" FOREIGN KEY ("listing_id") REFERENCES "public"."listings"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "listing_feed_items" ADD CONSTRAINT "listing_feed_items_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "listing_feed_items_site_idx" ON "listing_feed_items" USING btree ("site_id","claim");