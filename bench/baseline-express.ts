/**
 * (c) The baseline a user would write instead of Storelink: Express 5, passport-jwt (which verifies with
 * jsonwebtoken) and pg, doing the same checks on every request on the same PostgreSQL database: signature, issuer,
 * audience and expiry of the same PAT, then one query for the token record (not revoked, not expired), its user and
 * the membership of X-Workspace-Id. It answers the same JSON as Storelink's GET /api/v1/user.
 * Env: PORT, DATABASE_URL, APP_SECRET.
 */
import express from 'express';
import passport from 'passport';
import { ExtractJwt, Strategy as JwtStrategy } from 'passport-jwt';
import pg from 'pg';
import { deriveSigningKey } from '../src/core/auth/keys.js';

interface Principal {
  user: { id: number; email: string; name: string };
  workspace: { id: number; name: string; role: string } | null;
}

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });

// The same revocation, expiry and membership rules as src/db/tokens.repo.ts findBearerContext, in plain SQL.
const BEARER_CONTEXT = `
  select u.id as user_id, u.email, u.name as user_name, w.id as workspace_id, w.name as workspace_name, m.role
  from access_tokens t
  join users u on u.id = t.user_id
  left join memberships m on m.user_id = t.user_id and m.workspace_id = $2
  left join workspaces w on w.id = m.workspace_id
  where t.jti = $1 and t.kind = 'pat' and t.user_id = $3
    and t.revoked_at is null and (t.expires_at is null or t.expires_at > now())`;

passport.use(
  new JwtStrategy(
    {
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      // Storelink's own HKDF derivation of the HS256 key from APP_SECRET, imported rather than copied. jsonwebtoken takes
      // the KeyObject as it is; given a Buffer or string it first tries it as a public key and throws, about 3 ms a call.
      secretOrKey: deriveSigningKey(process.env.APP_SECRET!).key as unknown as Buffer,
      algorithms: ['HS256'],
      issuer: 'storelink',
      audience: 'storelink:pat',
      passReqToCallback: true,
    },
    (request: express.Request, payload: { jti?: string; sub?: string }, done: (error: unknown, user?: Principal | false) => void) => {
      const header = request.get('x-workspace-id') ?? '';
      const workspaceId = /^[1-9][0-9]{0,9}$/.test(header) ? Number(header) : -1;
      pool.query(BEARER_CONTEXT, [payload.jti, workspaceId, Number(payload.sub)]).then(({ rows: [row] }) => {
        if (!row) return done(null, false);
        const workspace = row.workspace_id === null ? null : { id: row.workspace_id, name: row.workspace_name, role: row.role };
        done(null, { user: { id: row.user_id, email: row.email, name: row.user_name }, workspace });
      }, done);
    },
  ),
);

const app = express();
app.use(passport.initialize());
app.get('/api/v1/health', (_request, response) => void response.json({ success: true, data: { status: 'ok' } }));
app.get('/api/v1/user', passport.authenticate('jwt', { session: false }), (request, response) => {
  const { user, workspace } = request.user as Principal;
  if (!workspace) return void response.status(403).json({ success: false, code: 403, message: 'Invalid workspace or access denied' });
  response.json({ success: true, data: { ...user, workspace } });
});

const server = app.listen(Number(process.env.PORT), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
