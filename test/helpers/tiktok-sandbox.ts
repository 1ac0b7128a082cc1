/**
 * Calls to the sandbox TikTok Shop as a platform client makes them, with the request signature computed here from
 * TikTok's documented steps and no adapter code: a token through the consent page, the shops it covers, signed calls
 * with or without a `shop_cipher`, and an image upload.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { SANDBOX_CLIENTS } from '../../src/sandbox/context.js';
import { PNG_640X480 } from './fixtures.js';
import { injectForm, type TestApp } from './test-app.js';

const APP = SANDBOX_CLIENTS.tiktokShop;

/** TikTok's signature: HMAC-SHA256(secret; secret + path + sorted key+value pairs + body + secret), lowercase hex. */
function sign(path: string, params: Record<string, string>, body: string): string {
  const pairs = Object.entries(params).sort(([a], [b]) => (a < b ? -1 : 1));
  const text = APP.appSecret + path + pairs.map(([key, value]) => key + value).join('') + body + APP.appSecret;
  return createHmac('sha256', APP.appSecret).update(text).digest('hex');
}

export interface SandboxShop {
  token: string;
  cipher: string;
  id: string;
  region: string;
  seller_type: string;
}

export interface Answer {
  status: number;
  body: { code: number; message: string; data: Record<string, unknown> };
}

/** The sandbox TikTok Shop's base URL of an app started with `listen: true`. */
const baseOf = (t: TestApp) => `${t.deps.sandbox.sandboxUrl}/tiktok-shop`;

/** A signed call; `shop: null` sends no `shop_cipher` (a seller's own call), `badSign` a wrong signature. */
export async function signedCall(
  t: TestApp,
  who: { token: string; cipher: string | null },
  method: string,
  path: string,
  payload?: object,
  options: { badSign?: boolean; query?: Record<string, string> } = {},
): Promise<Answer> {
  const params: Record<string, string> = {
    app_key: APP.appKey,
    timestamp: String(Math.floor(t.clock.now().getTime() / 1000)),
    ...(who.cipher === null ? {} : { shop_cipher: who.cipher }),
    ...options.query,
  };
  const body = payload ? JSON.stringify(payload) : '';
  const signature = options.badSign ? '0'.repeat(64) : sign(path, params, body);
  const response = await fetch(`${baseOf(t)}${path}?${new URLSearchParams({ ...params, sign: signature })}`, {
    method,
    headers: { 'x-tts-access-token': who.token, 'content-type': 'application/json' },
    ...(payload ? { body } : {}),
  });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

/**
 * A token through the consent page (`choices`: its `shops`, `market`, …; a UK seller unless `market` says otherwise, as
 * connect.ts's UK_SELLER) and the token call, and the shops it covers.
 */
export async function sandboxShopsOf(t: TestApp, account: number, choices: Record<string, string> = {}): Promise<SandboxShop[]> {
  const consent = await injectForm(t, '/sandbox/tiktok-shop/authorize', {
    service_id: APP.serviceId,
    state: 's',
    decision: 'allow',
    account: String(account),
    market: 'GB',
    ...choices,
  });
  assert.equal(consent.statusCode, 302, consent.body);
  const code = new URL(consent.headers.location as string).searchParams.get('code')!;
  const query = new URLSearchParams({ app_key: APP.appKey, app_secret: APP.appSecret, auth_code: code, grant_type: 'authorized_code' });
  const tokens = await fetch(`${baseOf(t)}/api/v2/token/get?${query}`);
  const token = ((await tokens.json()) as { data: { access_token: string } }).data.access_token;
  const answer = await signedCall(t, { token, cipher: null }, 'GET', '/authorization/202309/shops');
  const shops = (answer.body.data as { shops: Omit<SandboxShop, 'token'>[] }).shops;
  return shops.map((shop) => ({ ...shop, token }));
}

/** An image uploaded to the shop (`useCase`: Upload Product Image's, a main image unless said): its hosted uri. */
export async function uploadImage(t: TestApp, shop: SandboxShop, useCase = 'MAIN_IMAGE'): Promise<string> {
  const params = { app_key: APP.appKey, timestamp: String(Math.floor(t.clock.now().getTime() / 1000)), shop_cipher: shop.cipher };
  const path = '/product/202309/images/upload';
  const form = new FormData();
  form.append('data', new Blob([PNG_640X480], { type: 'image/png' }), 'item.png');
  form.append('use_case', useCase);
  const response = await fetch(`${baseOf(t)}${path}?${new URLSearchParams({ ...params, sign: sign(path, params, '') })}`, {
    method: 'POST',
    headers: { 'x-tts-access-token': shop.token },
    body: form,
  });
  const answer = (await response.json()) as { code: number; data: { uri: string } };
  assert.equal(answer.code, 0, JSON.stringify(answer));
  return answer.data.uri;
}
