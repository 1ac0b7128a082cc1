ALTER TABLE "products" ADD COLUMN "handle" text;--> statement-breakpoint
-- A product made before handles were stored keeps the one the export wrote for it: files exported then still match.
UPDATE "products" SET "handle" = 'product-' || "id";--> statement-breakpoint
ALTER TABLE "products" ALTER COLUMN "handle" SET NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "products_handle_key" ON "products" USING btree ("workspace_id","handle");
