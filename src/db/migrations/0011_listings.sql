CREATE TABLE "listings" (
	"id" serial PRIMARY KEY NOT NULL,
	"workspace_id" integer NOT NULL,
	"site_id" integer NOT NULL,
	"product_id" integer NOT NULL,
	"platform_id" integer NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"sync_status" text DEFAULT 'syncing' NOT NULL,
	"platform_status" text,
	"external_id" text,
	"external_url" text,
	"category_id" text NOT NULL,
	"attributes" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"marketplace_id" text,
	"variants" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"currency" text NOT NULL,
	"synced_version" integer,
	"target_version" integer NOT NULL,
	"wants" text DEFAULT 'active' NOT NULL,
	"issues" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"progress" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "listings_status_check" CHECK ("listings"."status" in ('pending', 'in_review', 'active', 'inactive', 'rejected', 'error', 'deleted')),
	CONSTRAINT "listings_sync_status_check" CHECK ("listings"."sync_status" in ('synced', 'syncing', 'failed')),
	CONSTRAINT "listings_wants_check" CHECK ("listings"."wants" in ('active', 'inactive', 'deleted'))
);
--> statement-breakpoint
ALTER TABLE "sites" ADD COLUMN "listing_settings" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "listings" ADD CONSTRAINT "listings_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "listings" ADD CONSTRAINT "listings_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "listings" ADD CONSTRAINT "listings_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "listings_product_site_key" ON "listings" USING btree ("site_id","product_id",coalesce("marketplace_id", '')) WHERE "listings"."status" <> 'deleted';--> statement-breakpoint
CREATE INDEX "listings_site_idx" ON "listings" USING btree ("site_id","id");--> statement-breakpoint
CREATE INDEX "listings_product_idx" ON "listings" USING btree ("product_id");