-- Every change that can refuse or alter an authenticated bearer notifies channel storelink_auth, so each instance
-- drops the bearers it cached for that user ('u:<id>') or workspace ('w:<id>') as soon as the change commits.
-- Hand-written (drizzle-kit generate --custom): Drizzle's schema has no triggers.
CREATE FUNCTION storelink_notify_auth_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'workspaces' THEN
    PERFORM pg_notify('storelink_auth', 'w:' || OLD.id);
  ELSIF TG_TABLE_NAME = 'users' THEN
    PERFORM pg_notify('storelink_auth', 'u:' || OLD.id);
  ELSE
    PERFORM pg_notify('storelink_auth', 'u:' || OLD.user_id);
    IF TG_OP = 'UPDATE' AND NEW.user_id <> OLD.user_id THEN
      PERFORM pg_notify('storelink_auth', 'u:' || NEW.user_id);
    END IF;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- last_used_at is written in batches all the time; it must not empty the cache, so only these columns count.
CREATE TRIGGER access_tokens_auth_change AFTER UPDATE OF user_id, kind, jti, expires_at, revoked_at OR DELETE ON access_tokens
  FOR EACH ROW EXECUTE FUNCTION storelink_notify_auth_change();
--> statement-breakpoint
CREATE TRIGGER memberships_auth_change AFTER UPDATE OR DELETE ON memberships
  FOR EACH ROW EXECUTE FUNCTION storelink_notify_auth_change();
--> statement-breakpoint
CREATE TRIGGER users_auth_change AFTER UPDATE OF email, name OR DELETE ON users
  FOR EACH ROW EXECUTE FUNCTION storelink_notify_auth_change();
--> statement-breakpoint
CREATE TRIGGER workspaces_auth_change AFTER UPDATE OF name OR DELETE ON workspaces
  FOR EACH ROW EXECUTE FUNCTION storelink_notify_auth_change();
