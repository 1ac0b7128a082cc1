-- The order intake's stock in one statement (DESIGN §14; orders.repo.ts takeStock): an intake holds every pool it locks
-- until it commits, and a sale of the same products on another channel waits that long, so the locks, the moves and
-- the count of each product's change are one round trip, not four. In order:
-- 1. the products, then the variants, are locked in id order (the order a seller's edit takes them in);
-- 2. the moves are made (migration 0017's storelink_move_stock), and their answers returned;
-- 3. each product of a variant moved gets `version` + 1 and `updated_at` = `changed_at`: every change counts.
-- Hand-written (drizzle-kit generate --custom): Drizzle's schema has no functions.
CREATE FUNCTION storelink_take_stock(product_ids jsonb, variant_ids jsonb, moves jsonb, changed_at timestamptz)
RETURNS TABLE (n integer, change integer, quantity_after integer) LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM products p
  WHERE p.id IN (SELECT value::integer FROM jsonb_array_elements_text(product_ids)) ORDER BY p.id FOR UPDATE;
  PERFORM 1 FROM product_variants v
  WHERE v.id IN (SELECT value::integer FROM jsonb_array_elements_text(variant_ids)) ORDER BY v.id FOR UPDATE;
  RETURN QUERY SELECT m.n, m.change, m.quantity_after FROM storelink_move_stock(moves) AS m;
  UPDATE products p SET version = p.version + 1, updated_at = changed_at
  WHERE p.id IN (
    SELECT v.product_id FROM product_variants v
    WHERE v.id IN (SELECT (value->>'variant_id')::integer FROM jsonb_array_elements(moves))
  );
END
$$;
