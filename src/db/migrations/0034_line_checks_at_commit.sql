-- An order line's product and variant are checked when its transaction commits, whoever writes it (DESIGN §14;
-- order-intake.ts). Migration 0032 made them deferrable and the order intake deferred them in each of its transactions
-- (SET CONSTRAINTS … DEFERRED), so that writing its lines before it takes the stock locks nothing that take then waits
-- for. The intake is the only writer of lines: deferred from the start, the check is where it was, and each intake
-- makes one statement fewer before it takes the stock. ON DELETE SET NULL still acts at once: PostgreSQL defers the
-- check alone.
-- Hand-written (drizzle-kit generate --custom): Drizzle's schema cannot say a reference is deferrable.
ALTER TABLE "order_lines" ALTER CONSTRAINT "order_lines_product_id_products_id_fk" DEFERRABLE INITIALLY DEFERRED;--> statement-breakpoint
ALTER TABLE "order_lines" ALTER CONSTRAINT "order_lines_variant_id_product_variants_id_fk" DEFERRABLE INITIALLY DEFERRED;
