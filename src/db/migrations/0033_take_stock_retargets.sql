-- The listings' part of an order intake's stock change, made by the statement that moves the stock (DESIGN §14;
-- orders.repo.ts takeStock). An intake holds every pool it moves from its take to its commit, and another channel's sale
-- of the same products waits that long. The retarget was one more round trip in that hold: 18 ms at the median of a
-- traced run of the bench's burst (1,000 sales on a busy 2-CPU machine). Now the take points the listings at their
-- products' new version itself and answers which it did, so what is held to the commit is the queueing of their work.
-- 1. storelink_retarget_listings: the one rule of which listings a change of their products retargets (listings.repo.ts
--    retargetListings, a seller's edit included): every listing not deleted nor being deleted, save on `except_site` a
--    listing in sync that nothing was written to since the product's earliest sale there (`unchanged_since`, by product
--    id; a product it does not name leaves no listing out). The UPDATE checks the rule against a row another
--    transaction changed meanwhile, as PostgreSQL's UPDATE does.
-- 2. storelink_take_stock: as migration 0031's, and then the listings of each product whose pool moved are retargeted,
--    the site that sold (`sold_on`) leaving out its listings of the products none of whose pools reached 0, from the
--    earliest sale (`sold_at` of the moves) of each. Its answer: each move's row, then each listing's.
-- Hand-written (drizzle-kit generate --custom): Drizzle's schema has no functions.
CREATE FUNCTION storelink_retarget_listings(product_ids jsonb, except_site integer, unchanged_since jsonb, changed_at timestamptz)
RETURNS TABLE (id integer, site_id integer) LANGUAGE sql AS $$
  UPDATE listings AS l SET target_version = p.version, sync_status = 'syncing', updated_at = changed_at
  FROM products AS p
  WHERE p.id = l.product_id AND l.status <> 'deleted' AND l.wants <> 'deleted'
    AND l.product_id IN (SELECT value::integer FROM jsonb_array_elements_text(product_ids))
    AND NOT (l.site_id = except_site AND l.sync_status = 'synced'
      AND l.updated_at <= coalesce((unchanged_since ->> l.product_id::text)::timestamptz, '-infinity'))
  RETURNING l.id, l.site_id
$$;--> statement-breakpoint
DROP FUNCTION storelink_take_stock(jsonb, jsonb, jsonb, timestamptz);--> statement-breakpoint
CREATE FUNCTION storelink_take_stock(product_ids jsonb, variant_ids jsonb, moves jsonb, changed_at timestamptz, sold_on integer)
RETURNS TABLE (n integer, change integer, quantity_after integer, listing_id integer, listing_site_id integer)
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM products p
  WHERE p.id IN (SELECT value::integer FROM jsonb_array_elements_text(product_ids)) ORDER BY p.id FOR UPDATE;
  PERFORM 1 FROM product_variants v
  WHERE v.id IN (SELECT value::integer FROM jsonb_array_elements_text(variant_ids)) ORDER BY v.id FOR UPDATE;
  RETURN QUERY SELECT m.n, m.change, m.quantity_after, NULL::integer, NULL::integer FROM storelink_move_stock(moves) AS m;
  UPDATE products p SET version = p.version + 1, updated_at = changed_at
  WHERE p.id IN (
    SELECT v.product_id FROM product_variants v
    WHERE v.id IN (SELECT (value->>'variant_id')::integer FROM jsonb_array_elements(moves))
  );
  -- The pools are locked: each moved variant's quantity is its last move's answer.
  RETURN QUERY
  WITH sold AS (
    SELECT v.product_id, min((m.value->>'sold_at')::timestamptz) AS sold_at, bool_or(v.quantity = 0) AS emptied
    FROM jsonb_array_elements(moves) AS m JOIN product_variants AS v ON v.id = (m.value->>'variant_id')::integer
    GROUP BY v.product_id
  )
  SELECT NULL::integer, NULL::integer, NULL::integer, r.id, r.site_id
  FROM storelink_retarget_listings(
    (SELECT jsonb_agg(s.product_id) FROM sold AS s),
    sold_on,
    (SELECT coalesce(jsonb_object_agg(s.product_id, s.sold_at), '{}'::jsonb) FROM sold AS s WHERE NOT s.emptied),
    changed_at
  ) AS r;
END
$$;
