/**
 * The world of a kill -9 test (test/reliability): the simulated platforms in a process of their own (P) that lives
 * through the test, and the service (W) reaching them through the platforms' real variables, killed and restarted on
 * the same database.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SANDBOX_CLIENTS } from '../../src/sandbox/context.js';
import { consent, locationOf, openCallback } from './connect.js';
import type { DatabaseKind } from './database.js';
import { GIF_1X1 } from './fixtures.js';
import { createStorage } from './process-api.js';
import { freePort, outputsOf, type ServerProcess, startServerProcess } from './server-process.js';
import { TEST_APP_SECRET, TEST_ENCRYPTION_KEY, within } from './test-app.js';

export const PLATFORM_IDS = { etsy: 1, 'tiktok-shop': 4, 'amazon-seller': 5 } as const;
export type KillPlatform = keyof typeof PLATFORM_IDS;

export async function json(server: ServerProcess, method: string, path: string, auth: Record<string, string>, body?: unknown) {
  const response = await fetch(`${server.url}/api/v1${path}`, {
    method,
    headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, headers: response.headers, json: (await response.json()) as any };
}

/** Makes a product through `server`'s API with an uploaded image (Etsy takes images as files); answers its id. */
export async function productWithImage(server: ServerProcess, auth: Record<string, string>, body: unknown): Promise<number> {
  const created = await json(server, 'POST', '/products', auth, body);
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const form = new FormData();
  form.set('file', new Blob([GIF_1X1], { type: 'image/gif' }), 'product.gif');
  const uploaded = await fetch(`${server.url}/api/v1/products/${created.json.data.id}/images`, {
    method: 'POST',
    headers: auth,
    body: form,
  });
  assert.equal(uploaded.status, 201);
  return created.json.data.id as number;
}

export interface ShopListing {
  id: number | string;
  title: string;
  state: string;
  skus: { sku: string; quantity?: number }[];
  /** Etsy's: how many times the listing was published. */
  publishes?: number;
}

/**
 * The world of a kill test: P, the platform, in a process of its own that lives through the test (W reaches it through
 * Etsy's real variables, and P's sandbox redirects the consent to W: P's APP_URL is W's address), and W, the service,
 * with a seller whose sandbox shop `account` is connected (`choices`: the consent page's) and its listing settings set.
 */
export async function startWorld(
  kind: DatabaseKind,
  account: string,
  choices: Record<string, string> = {},
  platform: KillPlatform = 'etsy',
) {
  const data = await createStorage(kind);
  const platformDir = await mkdtemp(join(tmpdir(), 'storelink-platform-'));
  const servers: Record<string, ServerProcess> = {};
  const close = async () => {
    await Promise.all(Object.values(servers).map((server) => server.stop()));
    await data.remove();
    await rm(platformDir, { recursive: true, force: true });
  };
  try {
    const [platformPort, servicePort] = [await freePort(), await freePort()];
    const serviceUrl = `http://127.0.0.1:${servicePort}`;
    const secrets = { APP_SECRET: TEST_APP_SECRET, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, NODE_ENV: 'test', LOG_LEVEL: 'warn' };
    servers.P = await startServerProcess({ ...secrets, DATA_DIR: platformDir, APP_URL: serviceUrl }, { port: platformPort });
    const sandbox = `${servers.P.url}/sandbox`;
    const limits = await fetch(`${sandbox}/limits`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ per_second: 100_000, per_day: 10_000_000 }),
    });
    assert.equal(limits.status, 204);
    const tiktok = SANDBOX_CLIENTS.tiktokShop;
    const service = {
      ...secrets,
      ...data.env,
      ETSY_CLIENT_ID: SANDBOX_CLIENTS.etsy.clientId,
      ETSY_CLIENT_SECRET: SANDBOX_CLIENTS.etsy.sharedSecret,
      ETSY_CONNECT_URL: `${sandbox}/etsy/authorize`,
      ETSY_API_URL: `${sandbox}/etsy`,
      ETSY_WEBHOOK_SECRET: SANDBOX_CLIENTS.etsy.webhookSecret,
      TIKTOK_SHOP_APP_KEY: tiktok.appKey,
      TIKTOK_SHOP_APP_SECRET: tiktok.appSecret,
      TIKTOK_SHOP_SERVICE_ID: tiktok.serviceId,
      TIKTOK_SHOP_AUTHORIZE_URL: `${sandbox}/tiktok-shop/authorize`,
      TIKTOK_SHOP_AUTH_URL: `${sandbox}/tiktok-shop`,
      TIKTOK_SHOP_API_URL: `${sandbox}/tiktok-shop`,
      AMAZON_SP_APP_ID: SANDBOX_CLIENTS.amazonSeller.appId,
      AMAZON_LWA_CLIENT_ID: SANDBOX_CLIENTS.amazonSeller.lwaClientId,
      AMAZON_LWA_CLIENT_SECRET: SANDBOX_CLIENTS.amazonSeller.lwaClientSecret,
      AMAZON_LWA_TOKEN_URL: `${sandbox}/amazon-seller/auth/o2/token`,
      AMAZON_SELLER_CENTRAL_URL: `${sandbox}/amazon-seller`,
      AMAZON_SP_API_URL: `${sandbox}/amazon-seller`,
      // A job whose instance died is run again after three of these deadlines (at least 10 s each).
      OUTBOUND_TIMEOUT_MS: '3000',
    };
    servers.W = await startServerProcess(service, { port: servicePort });

    const email = `kill-${Date.now()}@example.com`;
    const registered = await json(servers.W, 'POST', '/auth/register', {}, { email, password: 'correct horse battery', name: 'Kill' });
    const auth = { authorization: `Bearer ${registered.json.data.token}`, 'x-workspace-id': String(registered.json.data.workspace.id) };
    /** Connects the user's sandbox `account` of another platform too, its listing settings set from its own choices. */
    const connect = async (on: KillPlatform, onAccount: string, onChoices: Record<string, string> = {}) => {
      const started = await json(servers.W!, 'POST', '/authenticate-site', auth, { platform_id: PLATFORM_IDS[on] });
      const callback = await openCallback(await consent(started.json.data.url, 'allow', onAccount, onChoices));
      const id = Number(/\/site\/(\d+)\/listings$/.exec(locationOf(callback))![1]);
      const options = (await json(servers.W!, 'GET', `/sites/${id}/listing-options`, auth)).json.data;
      const settings =
        on === 'etsy'
          ? {
              shipping_profile_id: options.shipping_profile_id[0].value,
              return_policy_id: options.return_policy_id[0].value,
              readiness_state_id: options.readiness_state_id[0].value,
              who_made: 'i_did',
              when_made: 'made_to_order',
            }
          : on === 'tiktok-shop'
            ? { warehouse_id: options.warehouse_id[0].value }
            : { marketplace_id: options.marketplace_id[0].value };
      assert.equal((await json(servers.W!, 'PUT', `/sites/${id}/listing-settings`, auth, settings)).status, 200);
      const held = async () => (await (await fetch(`${sandbox}/${on}/accounts/${onAccount}/listings`)).json()) as ShopListing[];
      return { site: id, shop: held };
    };
    const { site, shop } = await connect(platform, account, choices);
    /** Kills W with -9: it is gone (its data directory and port free) when this resolves. */
    const kill = async () => {
      process.kill(servers.W!.pid, 'SIGKILL');
      await within(5_000, async () => servers.W!.exited(), { pollMs: 20 });
    };
    /** Starts W again on the same database and port; resolved once it answers. */
    const restart = async () => {
      servers.W = await startServerProcess(service, { port: servicePort });
    };
    /** Starts one more instance of the service on the same database (PostgreSQL), on a port of its own. */
    const another = async () => {
      servers.W2 = await startServerProcess(service, { port: await freePort() });
      return servers.W2;
    };
    /** Kills W with -9 and starts it again on the same database and port. */
    const killAndRestart = async () => {
      await kill();
      await restart();
    };
    return { servers, auth, site, shop, sandbox, connect, kill, restart, another, killAndRestart, close };
  } catch (error) {
    process.stderr.write(`${outputsOf(servers)}\n`);
    await close();
    throw error;
  }
}
