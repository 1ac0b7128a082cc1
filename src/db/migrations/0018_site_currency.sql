ALTER TABLE "sites" ADD COLUMN "currency" text;--> statement-breakpoint
-- A TikTok Shop site connected before the column existed sells in its market's currency (MARKET_CURRENCIES of
-- src/platforms/tiktok-shop/markets.ts); an Etsy shop's is read when it is connected again; Amazon's is null.
UPDATE "sites" SET "currency" = CASE "platform_data"->>'region'
  WHEN 'US' THEN 'USD' WHEN 'GB' THEN 'GBP' WHEN 'DE' THEN 'EUR' WHEN 'FR' THEN 'EUR' WHEN 'ES' THEN 'EUR'
  WHEN 'IT' THEN 'EUR' WHEN 'IE' THEN 'EUR' WHEN 'MX' THEN 'MXN' WHEN 'BR' THEN 'BRL' WHEN 'JP' THEN 'JPY' END
WHERE "platform" = 'tiktok-shop';
