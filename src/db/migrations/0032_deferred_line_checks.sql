-- An order line's product and variant are checked when its transaction commits, not as it is inserted (DESIGN §14;
-- order-intake.ts). The order intake writes its lines, events and audit entries before it locks the stock their sale
-- moves, so that another channel's sale of the same products waits only for the move and the listings' work; checked at
-- once, each line would take a share lock on its product and variant before that, and two intakes each holding one
-- would wait for the other's to lock the stock: a deadlock. Checked at the commit, they are taken once the intake holds
-- the stock itself. Only the intake defers them (SET CONSTRAINTS … DEFERRED, in its own transaction): every other
-- writer is checked at once, as before. ON DELETE SET NULL still acts at once.
-- Hand-written (drizzle-kit generate --custom): Drizzle's schema cannot say a reference is deferrable.
ALTER TABLE "order_lines" ALTER CONSTRAINT "order_lines_product_id_products_id_fk" DEFERRABLE INITIALLY IMMEDIATE;--> statement-breakpoint
ALTER TABLE "order_lines" ALTER CONSTRAINT "order_lines_variant_id_product_variants_id_fk" DEFERRABLE INITIALLY IMMEDIATE;
