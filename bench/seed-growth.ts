/**
 * (e) Growth: fills a migrated database with `users` users, each with a workspace of its own (owner membership) and
 * PATS_PER_USER live PATs, in a few generate_series statements, then ANALYZE. Run while no server holds the database
 * (PGlite allows one process). Emails, workspace names and jti values are unique and never collide with the API's.
 */
import { sql } from 'drizzle-orm';
import { type DatabaseTarget, openDatabase } from '../src/db/client.js';

export const PATS_PER_USER = 10;

export async function seedGrowth(target: DatabaseTarget, users: number): Promise<void> {
  const database = await openDatabase(target);
  const run = (statement: string) => database.db.execute(sql.raw(statement));
  try {
    await run(`insert into users (email, name, password_hash)
      select 'growth-' || g || '@bench.invalid', 'Growth ' || g, 'not a password hash' from generate_series(1, ${users}) g`);
    await run(`insert into workspaces (name) select 'growth ' || g from generate_series(1, ${users}) g`);
    await run(`insert into memberships (workspace_id, user_id, role)
      select w.id, u.id, 'owner' from generate_series(1, ${users}) g
      join users u on u.email = 'growth-' || g || '@bench.invalid'
      join workspaces w on w.name = 'growth ' || g`);
    // md5 gives 32 hex characters: unique per (user, k), and never the 22-character base64url jti the API issues.
    await run(`insert into access_tokens (user_id, kind, name, jti, expires_at)
      select u.id, 'pat', 'growth ' || k, md5(u.id || '/' || k), now() + interval '90 days'
      from users u cross join generate_series(1, ${PATS_PER_USER}) k where u.email like 'growth-%'`);
    await run('analyze');
  } finally {
    await database.close();
  }
}
