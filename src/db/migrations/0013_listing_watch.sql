ALTER TABLE "listings" ADD COLUMN "differences" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "listings" ADD COLUMN "read_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "listings_read_idx" ON "listings" USING btree ("read_at" NULLS FIRST,"id") WHERE "listings"."external_id" is not null and "listings"."status" <> 'deleted';