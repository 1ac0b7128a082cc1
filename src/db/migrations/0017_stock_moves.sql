-- Many stock moves in one statement (DESIGN §14): the order intake records a page of orders in one transaction, and
-- each sold or cancelled line moves its variant's pool. Each move is made in the order given, under the variant's row
-- lock, with its own reason set first, so the stock movement the trigger writes names the move's own order; a take never
-- leaves a pool below 0. `moves` is a JSON array of {"variant_id", "delta" (negative: a take), "why" (the
-- storelink.stock_change setting)}; the answer has a row for each move whose variant exists: its position in the
-- array (from 1), the change made (a take that met an empty pool changes less than asked) and the quantity after it.
-- Hand-written (drizzle-kit generate --custom): Drizzle's schema has no functions.
CREATE FUNCTION storelink_move_stock(moves jsonb)
RETURNS TABLE (n integer, change integer, quantity_after integer) LANGUAGE plpgsql AS $$
DECLARE
  move record;
  before integer;
  after integer;
BEGIN
  FOR move IN SELECT value, ordinality FROM jsonb_array_elements(moves) WITH ORDINALITY LOOP
    SELECT v.quantity INTO before FROM product_variants v WHERE v.id = (move.value->>'variant_id')::integer FOR UPDATE;
    CONTINUE WHEN NOT FOUND;
    after := greatest(before + (move.value->>'delta')::integer, 0);
    PERFORM set_config('storelink.stock_change', move.value->>'why', true);
    UPDATE product_variants SET quantity = after WHERE id = (move.value->>'variant_id')::integer;
    n := move.ordinality;
    change := after - before;
    quantity_after := after;
    RETURN NEXT;
  END LOOP;
END
$$;
