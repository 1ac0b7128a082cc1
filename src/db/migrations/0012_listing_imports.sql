CREATE TABLE "listing_imports" (
	"id" serial PRIMARY KEY NOT NULL,
	"workspace_id" integer NOT NULL,
	"site_id" integer NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"cursor" text,
	"pages" integer DEFAULT 0 NOT NULL,
	"found" integer DEFAULT 0 NOT NULL,
	"created" integer DEFAULT 0 NOT NULL,
	"linked" integer DEFAULT 0 NOT NULL,
	"updated" integer DEFAULT 0 NOT NULL,
	"skipped" integer DEFAULT 0 NOT NULL,
	"skips" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"error" text,
	"started_by" integer,
	"finished_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "listing_imports_status_check" CHECK ("listing_imports"."status" in ('running', 'done', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "listing_imports" ADD CONSTRAINT "listing_imports_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "listing_imports" ADD CONSTRAINT "listing_imports_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "listing_imports" ADD CONSTRAINT "listing_imports_started_by_users_id_fk" FOREIGN KEY ("started_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "listing_imports_running_key" ON "listing_imports" USING btree ("site_id") WHERE "listing_imports"."status" = 'running';--> statement-breakpoint
CREATE INDEX "listing_imports_site_idx" ON "listing_imports" USING btree ("site_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "listings_site_external_key" ON "listings" USING btree ("site_id","external_id") WHERE "listings"."status" <> 'deleted' and "listings"."external_id" is not null;