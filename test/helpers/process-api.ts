/**
 * The API of a real server process (test/helpers/server-process.ts), as its tests use it: JSON requests, a new account
 * with a PAT and a webhook, an Etsy sandbox connection, and the storage one test's processes share.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { consent, locationOf, openCallback } from './connect.js';
import { createPostgresDatabase, type DatabaseKind } from './database.js';
import type { ServerProcess } from './server-process.js';

export interface Answer {
  status: number;
  json: any;
}

export interface Actor {
  pat: string;
  workspace: number;
}

export interface ApiOptions {
  token?: string;
  workspace?: number;
  body?: unknown;
}

/** One JSON request to an instance's API; `token` becomes the bearer, `workspace` the X-Workspace-Id header. */
export async function api(server: ServerProcess, method: string, path: string, options: ApiOptions = {}) {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.workspace) headers['x-workspace-id'] = String(options.workspace);
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const body = options.body !== undefined ? JSON.stringify(options.body) : undefined;
  const response = await fetch(`${server.url}/api/v1${path}`, { method, headers, ...(body ? { body } : {}) });
  return { status: response.status, json: await response.json() } as Answer;
}

/** The bearer and workspace of `actor`'s requests. */
export const as = (actor: Actor): ApiOptions => ({ token: actor.pat, workspace: actor.workspace });

/** A new user registered on `server`, with a PAT and (when `hookUrl` is given) a webhook for `site.connected`. */
export async function owner(server: ServerProcess, hookUrl?: string): Promise<Actor & { webhook: number | null }> {
  const email = `jobs-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`;
  const registered = await api(server, 'POST', '/auth/register', { body: { email, password: 'correct horse battery', name: 'Jobs' } });
  assert.equal(registered.status, 201, JSON.stringify(registered.json));
  const session = registered.json.data.token as string;
  const made = await api(server, 'POST', '/personal-access-tokens', { token: session, body: { name: 'jobs', expires_in_days: 30 } });
  assert.equal(made.status, 201, JSON.stringify(made.json));
  const actor = { pat: made.json.data.token as string, workspace: registered.json.data.workspace.id as number };
  if (!hookUrl) return { ...actor, webhook: null };
  const hook = await api(server, 'POST', '/webhooks', { ...as(actor), body: { url: hookUrl, events: ['site.connected'] } });
  assert.equal(hook.status, 201, JSON.stringify(hook.json));
  return { ...actor, webhook: hook.json.data.id as number };
}

/** Connects Etsy sandbox `account` through `server` (its sandbox is the platform); returns the new site's id. */
export async function connectEtsy(server: ServerProcess, actor: Actor, account: string): Promise<number> {
  const started = await api(server, 'POST', '/authenticate-site', { ...as(actor), body: { platform_id: 1 } });
  assert.equal(started.status, 200, JSON.stringify(started.json));
  const target = locationOf(await openCallback(await consent(started.json.data.url, 'allow', account)));
  const siteId = Number(/\/site\/(\d+)\/listings$/.exec(target)?.[1]);
  assert.ok(siteId > 0, `the callback redirected to ${target}`);
  return siteId;
}

export async function site(server: ServerProcess, actor: Actor, siteId: number) {
  const answer = await api(server, 'GET', `/sites/${siteId}`, as(actor));
  assert.equal(answer.status, 200, JSON.stringify(answer.json));
  return answer.json.data as { status: string; last_refreshed_at: string | null; next_refresh_at: string | null };
}

/** Where one test's processes keep their data: a fresh PGlite DATA_DIR or a fresh PostgreSQL database. */
export async function createStorage(kind: DatabaseKind): Promise<{ env: Record<string, string>; remove: () => Promise<void> }> {
  if (kind === 'postgres') {
    const database = await createPostgresDatabase();
    return { env: { DATABASE_URL: database.url }, remove: database.drop };
  }
  const dir = await mkdtemp(join(tmpdir(), 'storelink-server-'));
  return { env: { DATA_DIR: dir }, remove: () => rm(dir, { recursive: true, force: true }) };
}
