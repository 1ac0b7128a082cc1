CREATE TABLE "order_lines" (
	"id" serial PRIMARY KEY NOT NULL,
	"order_id" integer NOT NULL,
	"workspace_id" integer NOT NULL,
	"site_id" integer NOT NULL,
	"external_id" text NOT NULL,
	"position" integer NOT NULL,
	"sku" text,
	"product_id" integer,
	"variant_id" integer,
	"external_listing_id" text,
	"quantity" integer NOT NULL,
	"price" numeric(12, 2),
	"stock_taken" integer DEFAULT 0 NOT NULL,
	"stock_returned" integer DEFAULT 0 NOT NULL,
	"issues" jsonb DEFAULT '[]'::jsonb NOT NULL,
	CONSTRAINT "order_lines_site_external_key" UNIQUE("site_id","external_id"),
	CONSTRAINT "order_lines_stock_check" CHECK ("order_lines"."stock_returned" between 0 and "order_lines"."stock_taken")
);
--> statement-breakpoint
CREATE TABLE "orders" (
	"id" serial PRIMARY KEY NOT NULL,
	"workspace_id" integer NOT NULL,
	"site_id" integer NOT NULL,
	"platform_id" integer NOT NULL,
	"external_id" text NOT NULL,
	"status" text NOT NULL,
	"platform_status" text NOT NULL,
	"currency" text NOT NULL,
	"total" numeric(14, 2),
	"placed_at" timestamp with time zone NOT NULL,
	"platform_updated_at" timestamp with time zone NOT NULL,
	"external_url" text,
	"history" boolean DEFAULT false NOT NULL,
	"issues" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "orders_site_external_key" UNIQUE("site_id","external_id"),
	CONSTRAINT "orders_status_check" CHECK ("orders"."status" in ('pending', 'open', 'shipped', 'completed', 'cancelled'))
);
--> statement-breakpoint
CREATE TABLE "stock_movements" (
	"id" serial PRIMARY KEY NOT NULL,
	"workspace_id" integer NOT NULL,
	"product_id" integer NOT NULL,
	"variant_id" integer NOT NULL,
	"sku" text NOT NULL,
	"delta" integer NOT NULL,
	"quantity_after" integer NOT NULL,
	"reason" text NOT NULL,
	"order_id" integer,
	"actor_user_id" integer,
	"at" timestamp with time zone NOT NULL,
	CONSTRAINT "stock_movements_reason_check" CHECK ("stock_movements"."reason" in ('edit', 'import', 'order', 'cancellation'))
);
--> statement-breakpoint
ALTER TABLE "sites" ADD COLUMN "orders_from" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "sites" ADD COLUMN "orders_read_to" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "order_lines" ADD CONSTRAINT "order_lines_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_lines" ADD CONSTRAINT "order_lines_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_lines" ADD CONSTRAINT "order_lines_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_lines" ADD CONSTRAINT "order_lines_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_lines" ADD CONSTRAINT "order_lines_variant_id_product_variants_id_fk" FOREIGN KEY ("variant_id") REFERENCES "public"."product_variants"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stock_movements" ADD CONSTRAINT "stock_movements_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stock_movements" ADD CONSTRAINT "stock_movements_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stock_movements" ADD CONSTRAINT "stock_movements_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stock_movements" ADD CONSTRAINT "stock_movements_actor_user_id_users_id_fk" FOREIGN KEY ("actor_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "order_lines_order_idx" ON "order_lines" USING btree ("order_id","position");--> statement-breakpoint
CREATE INDEX "order_lines_workspace_sku_idx" ON "order_lines" USING btree ("workspace_id","sku");--> statement-breakpoint
CREATE INDEX "orders_workspace_placed_idx" ON "orders" USING btree ("workspace_id","placed_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "stock_movements_workspace_idx" ON "stock_movements" USING btree ("workspace_id","id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "stock_movements_variant_idx" ON "stock_movements" USING btree ("variant_id","id" DESC NULLS LAST);--> statement-breakpoint
-- Every change of a variant's quantity is a stock movement (DESIGN §9, §14): written here, so that no path that changes
-- a quantity can leave one out. The writer says why in the transaction's setting `storelink.stock_change`
-- ({"reason", "order_id", "actor_user_id", "at"}); a change made without one is an edit by nobody known, at the
-- database's time. Hand-written (drizzle-kit generate --custom): Drizzle's schema has no triggers.
CREATE FUNCTION storelink_stock_movement() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  why jsonb := coalesce(nullif(current_setting('storelink.stock_change', true), ''), '{}')::jsonb;
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.quantity = OLD.quantity THEN
    RETURN NULL;
  END IF;
  INSERT INTO stock_movements (workspace_id, product_id, variant_id, sku, delta, quantity_after, reason, order_id, actor_user_id, at)
  VALUES (
    NEW.workspace_id, NEW.product_id, NEW.id, NEW.sku,
    NEW.quantity - CASE WHEN TG_OP = 'UPDATE' THEN OLD.quantity ELSE 0 END, NEW.quantity,
    coalesce(why->>'reason', 'edit'), (why->>'order_id')::integer, (why->>'actor_user_id')::integer,
    coalesce((why->>'at')::timestamptz, now())
  );
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER product_variants_stock_movement AFTER INSERT OR UPDATE OF quantity ON product_variants
  FOR EACH ROW EXECUTE FUNCTION storelink_stock_movement();
