CREATE TABLE "product_search_totals" (
	"workspace_id" integer NOT NULL,
	"q" text NOT NULL,
	"total" integer NOT NULL,
	"counted_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "product_search_totals_workspace_id_q_pk" PRIMARY KEY("workspace_id","q")
);
--> statement-breakpoint
ALTER TABLE "product_search_totals" ADD CONSTRAINT "product_search_totals_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- A total kept in product_search_totals holds until a product of its workspace is added, removed or changes its
-- search text: each such statement deletes the workspace's totals, holding the search totals' advisory lock
-- (0x5ea2c407, workspace) shared until its transaction ends. A count keeps its total only when it gets the lock
-- exclusively (products.repo.ts, countMatches): no such transaction is in flight, and the next waits for the count's
-- to end, then deletes its total. No total survives a change.
-- Hand-written: Drizzle's schema has no triggers.
CREATE FUNCTION storelink_forget_search_totals(workspace_ids int[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  workspace int;
BEGIN
  FOREACH workspace IN ARRAY (SELECT coalesce(array_agg(DISTINCT w ORDER BY w), '{}') FROM unnest(workspace_ids) AS w) LOOP
    PERFORM pg_advisory_xact_lock_shared(1587725319, workspace);
  END LOOP;
  DELETE FROM product_search_totals WHERE workspace_id = ANY (workspace_ids);
END
$$;
--> statement-breakpoint
CREATE FUNCTION storelink_products_added_or_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM storelink_forget_search_totals(array(SELECT workspace_id FROM changed));
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION storelink_products_search_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM storelink_forget_search_totals(array(
    SELECT n.workspace_id FROM changed_new n JOIN changed_old o ON o.id = n.id
    WHERE n.search IS DISTINCT FROM o.search OR n.workspace_id <> o.workspace_id
    UNION SELECT o.workspace_id FROM changed_new n JOIN changed_old o ON o.id = n.id WHERE n.workspace_id <> o.workspace_id));
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER products_added_search_totals AFTER INSERT ON products REFERENCING NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION storelink_products_added_or_removed();
--> statement-breakpoint
CREATE TRIGGER products_removed_search_totals AFTER DELETE ON products REFERENCING OLD TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION storelink_products_added_or_removed();
--> statement-breakpoint
CREATE TRIGGER products_search_changed_search_totals AFTER UPDATE ON products REFERENCING NEW TABLE AS changed_new OLD TABLE AS changed_old
  FOR EACH STATEMENT EXECUTE FUNCTION storelink_products_search_changed();
