-- Live status (issue 37, item 1): every change a seller sees of a listing, an order, a listing's advertising or a
-- site notifies channel storelink_live with '<workspace_id>:<kind>' when its transaction commits, so the event
-- streams of every instance (GET /events, src/core/live) tell the open dashboards to read it again. The payload names
-- no row: PostgreSQL sends one notification per distinct payload a transaction made, so a bulk change of a thousand
-- listings is one message. Updates that change nothing shown (a read time, a job's progress) notify nothing.
-- Hand-written (drizzle-kit generate --custom): Drizzle's schema has no triggers.
CREATE FUNCTION storelink_notify_live_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('storelink_live', OLD.workspace_id || ':' || TG_ARGV[0]);
  ELSE
    PERFORM pg_notify('storelink_live', NEW.workspace_id || ':' || TG_ARGV[0]);
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER listings_live_change AFTER INSERT OR DELETE ON listings
  FOR EACH ROW EXECUTE FUNCTION storelink_notify_live_change('listings');
--> statement-breakpoint
CREATE TRIGGER listings_live_update AFTER UPDATE ON listings FOR EACH ROW
  WHEN ((OLD.status, OLD.sync_status, OLD.platform_status, OLD.wants, OLD.issues, OLD.differences, OLD.title,
         OLD.variants, OLD.overrides, OLD.external_url, OLD.synced_version, OLD.target_version, OLD.category_id,
         OLD.attributes)
        IS DISTINCT FROM
        (NEW.status, NEW.sync_status, NEW.platform_status, NEW.wants, NEW.issues, NEW.differences, NEW.title,
         NEW.variants, NEW.overrides, NEW.external_url, NEW.synced_version, NEW.target_version, NEW.category_id,
         NEW.attributes))
  EXECUTE FUNCTION storelink_notify_live_change('listings');
--> statement-breakpoint
CREATE TRIGGER listing_advertising_live_change AFTER INSERT OR DELETE ON listing_advertising
  FOR EACH ROW EXECUTE FUNCTION storelink_notify_live_change('advertising');
--> statement-breakpoint
CREATE TRIGGER listing_advertising_live_update AFTER UPDATE ON listing_advertising FOR EACH ROW
  WHEN ((OLD.state, OLD.sync_status, OLD.wants, OLD.issues, OLD.daily_budget, OLD.default_bid, OLD.targeting)
        IS DISTINCT FROM
        (NEW.state, NEW.sync_status, NEW.wants, NEW.issues, NEW.daily_budget, NEW.default_bid, NEW.targeting))
  EXECUTE FUNCTION storelink_notify_live_change('advertising');
--> statement-breakpoint
CREATE TRIGGER orders_live_change AFTER INSERT OR DELETE ON orders
  FOR EACH ROW EXECUTE FUNCTION storelink_notify_live_change('orders');
--> statement-breakpoint
CREATE TRIGGER orders_live_update AFTER UPDATE ON orders FOR EACH ROW
  WHEN ((OLD.status, OLD.platform_status, OLD.issues, OLD.total) IS DISTINCT FROM (NEW.status, NEW.platform_status, NEW.issues, NEW.total))
  EXECUTE FUNCTION storelink_notify_live_change('orders');
--> statement-breakpoint
CREATE TRIGGER sites_live_change AFTER INSERT OR DELETE ON sites
  FOR EACH ROW EXECUTE FUNCTION storelink_notify_live_change('sites');
--> statement-breakpoint
CREATE TRIGGER sites_live_update AFTER UPDATE ON sites FOR EACH ROW
  WHEN ((OLD.status, OLD.status_reason, OLD.name, OLD.advertising_profiles) IS DISTINCT FROM (NEW.status, NEW.status_reason, NEW.name, NEW.advertising_profiles))
  EXECUTE FUNCTION storelink_notify_live_change('sites');
