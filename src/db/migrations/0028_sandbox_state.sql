CREATE TABLE "sandbox_state" (
	"part" text PRIMARY KEY NOT NULL,
	"state" text NOT NULL,
	"saved_at" timestamp with time zone NOT NULL
);
