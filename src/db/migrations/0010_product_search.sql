ALTER TABLE "products" ADD COLUMN "search" text DEFAULT '' NOT NULL;--> statement-breakpoint
UPDATE "products" SET "search" = lower("title" || coalesce((SELECT string_agg(E'\n' || "sku", '' ORDER BY "position") FROM "product_variants" WHERE "product_id" = "products"."id"), ''));
