CREATE TABLE "platform_notifications_received" (
	"platform" text NOT NULL,
	"notification_id" text NOT NULL,
	"received_at" timestamp with time zone NOT NULL,
	CONSTRAINT "platform_notifications_received_platform_notification_id_pk" PRIMARY KEY("platform","notification_id")
);
--> statement-breakpoint
ALTER TABLE "site_credentials" ADD COLUMN "granted_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
-- When a stored grant was last authorized is not known: its first authorization is the earliest it can be, so a
-- deauthorization sent since is still acted on.
UPDATE "site_credentials" SET "granted_at" = "created_at";--> statement-breakpoint
CREATE INDEX "platform_notifications_received_at_idx" ON "platform_notifications_received" USING btree ("received_at");