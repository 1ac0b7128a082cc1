ALTER TABLE "listings" ADD COLUMN "differences" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "listings" ADD COLUMN "read_at" timestamp with time zone;