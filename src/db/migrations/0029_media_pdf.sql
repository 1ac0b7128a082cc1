ALTER TABLE "media" DROP CONSTRAINT "media_extension_check";--> statement-breakpoint
ALTER TABLE "media" ALTER COLUMN "width" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "media" ALTER COLUMN "height" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "media" ADD CONSTRAINT "media_extension_check" CHECK ("media"."extension" in ('jpg', 'png', 'webp', 'gif', 'pdf'));