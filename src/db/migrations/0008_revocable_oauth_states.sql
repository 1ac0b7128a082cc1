ALTER TABLE "oauth_states" ADD COLUMN "token_jti" text;--> statement-breakpoint
CREATE INDEX "oauth_states_workspace_expires_idx" ON "oauth_states" USING btree ("workspace_id","expires_at");