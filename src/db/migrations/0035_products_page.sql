-- A page of GET /products in one round trip (products.repo.ts listProductsJson; issue 35's search). On PostgreSQL the
-- page was two statements: an unnamed one finding the page's ids for its `q`, planned on every call (a cached generic
-- plan cannot tell a rare `q`, best found by the trigram index, from a common one, best read in id order), and a named
-- one writing those products' JSON, planned once per connection (planning its subqueries on every call cost the
-- database 60 % more a page). Each round trip costs the service 100 to 200 µs of CPU on a 2-CPU machine. This function
-- does both in one call, and as before: the ids by EXECUTE, planned for the call's own `q`; the JSON by a static
-- statement, whose plan PL/pgSQL keeps for the connection. STABLE, so both read one snapshot (the two statements did
-- not). PGlite, where one unnamed statement did both and planned the JSON on every page, calls it too.
--
-- storelink_products_page: the workspace's products `page_offset`.. in id order, at most `page_limit`, those whose
-- `search` is LIKE `pattern` when it is not null. Its one row: `items`, the page's products as presentProduct shows
-- them (src/core/catalog/present.ts: keys in its order, the variants and images by position, the first variant's
-- price, sku and quantity, a package's four measures in the schema's order, times in UTC to the millisecond), joined by
-- commas ('' for none); `count`, how many the page holds; `known`, the total kept for `search_key`
-- (product_search_totals) or null. A change of a product's JSON is a new migration replacing this function:
-- test/catalog/products-page-json.test.ts holds every product of a page equal to GET /products/{id}'s answer for it.
-- Hand-written (drizzle-kit generate --custom): Drizzle's schema has no functions.
CREATE FUNCTION storelink_products_page(workspace integer, pattern text, search_key text, page_limit integer, page_offset integer)
RETURNS TABLE (items text, count integer, known integer)
LANGUAGE plpgsql STABLE AS $$
DECLARE
  page integer[];
BEGIN
  EXECUTE 'SELECT array_agg(s.id ORDER BY s.id) FROM (SELECT p.id FROM products p WHERE p.workspace_id = $1'
    || CASE WHEN pattern IS NULL THEN '' ELSE ' AND p.search LIKE $2' END
    || ' ORDER BY p.id LIMIT $3 OFFSET $4) s'
    INTO page USING workspace, pattern, page_limit, page_offset;
  count := coalesce(cardinality(page), 0);
  known := (SELECT t.total FROM product_search_totals t WHERE t.workspace_id = workspace AND t.q = search_key);
  items := '';
  IF count > 0 THEN
    items := coalesce((
      SELECT string_agg((SELECT row_to_json(x)::text FROM (SELECT p.id, p.title, p.handle, p.description, p.brand, p.tags,
        p.attributes, p.currency, p.options,
        coalesce((SELECT '[' || string_agg((SELECT row_to_json(o)::text FROM (SELECT v.id, v.sku, v.option_values,
            v.price::text AS price, v.quantity, v.barcode) o), ',' ORDER BY v.position) || ']'
          FROM product_variants v WHERE v.product_id = p.id), '[]')::json AS variants,
        coalesce((SELECT '[' || string_agg((SELECT row_to_json(o)::text FROM (SELECT i.id, i.url, i.position, i.alt,
            i.media_sha256 IS NOT NULL AS uploaded) o), ',' ORDER BY i.position) || ']'
          FROM product_images i WHERE i.product_id = p.id), '[]')::json AS images,
        CASE WHEN jsonb_typeof(p.package) = 'object' THEN (SELECT row_to_json(k) FROM (SELECT
          p.package->'weight_grams' AS weight_grams, p.package->'length_mm' AS length_mm,
          p.package->'width_mm' AS width_mm, p.package->'height_mm' AS height_mm) k) END AS package,
        p.version, coalesce(f.price::text, '0.00') AS price, coalesce(f.sku, '') AS sku, coalesce(f.quantity, 0) AS quantity,
        to_char(p.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at,
        to_char(p.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at) x), ',' ORDER BY p.id)
      FROM products p
      LEFT JOIN LATERAL (SELECT v.price, v.sku, v.quantity FROM product_variants v
        WHERE v.product_id = p.id ORDER BY v.position LIMIT 1) f ON true
      WHERE p.id = ANY(page) AND p.workspace_id = workspace
    ), '');
  END IF;
  RETURN NEXT;
END
$$;
