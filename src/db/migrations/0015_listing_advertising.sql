CREATE TABLE "advertising_days" (
	"advertising_id" integer NOT NULL,
	"date" text NOT NULL,
	"impressions" integer NOT NULL,
	"clicks" integer NOT NULL,
	"spend" numeric(14, 2) NOT NULL,
	"orders" integer NOT NULL,
	"sales" numeric(14, 2) NOT NULL,
	CONSTRAINT "advertising_days_advertising_id_date_pk" PRIMARY KEY("advertising_id","date")
);
--> statement-breakpoint
CREATE TABLE "listing_advertising" (
	"id" serial PRIMARY KEY NOT NULL,
	"workspace_id" integer NOT NULL,
	"listing_id" integer NOT NULL,
	"site_id" integer NOT NULL,
	"profile_id" text NOT NULL,
	"marketplace_id" text NOT NULL,
	"currency" text NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"sync_status" text DEFAULT 'syncing' NOT NULL,
	"wants" text DEFAULT 'enabled' NOT NULL,
	"targeting" jsonb NOT NULL,
	"daily_budget" numeric(14, 2) NOT NULL,
	"default_bid" numeric(14, 2) NOT NULL,
	"campaign_id" text,
	"ad_group_id" text,
	"ad_ids" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"issues" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"progress" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"metrics_read_at" timestamp with time zone,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "listing_advertising_state_check" CHECK ("listing_advertising"."state" in ('pending', 'enabled', 'paused', 'archived', 'error')),
	CONSTRAINT "listing_advertising_sync_status_check" CHECK ("listing_advertising"."sync_status" in ('synced', 'syncing', 'failed')),
	CONSTRAINT "listing_advertising_wants_check" CHECK ("listing_advertising"."wants" in ('enabled', 'paused', 'archived'))
);
--> statement-breakpoint
ALTER TABLE "advertising_days" ADD CONSTRAINT "advertising_days_advertising_id_listing_advertising_id_fk" FOREIGN KEY ("advertising_id") REFERENCES "public"."listing_advertising"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "listing_advertising" ADD CONSTRAINT "listing_advertising_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "listing_advertising" ADD CONSTRAINT "listing_advertising_listing_id_listings_id_fk" FOREIGN KEY ("listing_id") REFERENCES "public"."listings"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "listing_advertising" ADD CONSTRAINT "listing_advertising_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "listing_advertising" ADD CONSTRAINT "listing_advertising_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "listing_advertising_listing_key" ON "listing_advertising" USING btree ("listing_id") WHERE "listing_advertising"."wants" <> 'archived';--> statement-breakpoint
CREATE INDEX "listing_advertising_listing_idx" ON "listing_advertising" USING btree ("listing_id","id");--> statement-breakpoint
CREATE INDEX "listing_advertising_profile_idx" ON "listing_advertising" USING btree ("site_id","profile_id");