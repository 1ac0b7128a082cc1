/**
 * Drives a connect flow as a browser would, against an app from createTestApp(kind, { listen: true }): ask for the
 * authorization URL, open the sandbox consent page, submit a decision, and follow the platform's redirect back.
 */
import assert from 'node:assert/strict';
import { call, type TestApp } from './test-app.js';

export interface Actor {
  session: string;
  workspace: { id: number };
}

/** POST /authenticate-site; asserts 200 and returns the authorization URL. */
export async function authorizationUrl(t: TestApp, actor: Actor, body: Record<string, unknown>): Promise<string> {
  const response = await call(t, 'POST', '/authenticate-site', { token: actor.session, workspace: actor.workspace.id, body });
  assert.equal(response.statusCode, 200, response.body);
  return response.json().data.url as string;
}

/**
 * Opens the consent page and submits `decision` (and any further `choices` the simulator's page offers, such as
 * TikTok Shop's `shops`); returns where the simulator sends the browser (the service's callback).
 */
export async function consent(
  url: string,
  decision: 'allow' | 'deny' | 'fail',
  account = '1',
  choices: Record<string, string> = {},
): Promise<string> {
  const page = await fetch(url);
  const html = await page.text();
  assert.equal(page.status, 200, `consent page: ${html}`);
  assert.match(html, /Sandbox/);
  const form = new URLSearchParams([
    ...new URL(url).searchParams,
    ['decision', decision],
    ['account', account],
    ...Object.entries(choices),
  ]);
  const posted = await fetch(url.split('?')[0]!, { method: 'POST', body: form, redirect: 'manual' });
  assert.equal(posted.status, 302, `consent POST answered ${posted.status}`);
  return posted.headers.get('location')!;
}

/** Opens the callback URL without following its redirect. */
export function openCallback(callbackUrl: string, accept?: string): Promise<Response> {
  return fetch(callbackUrl, { redirect: 'manual', headers: accept ? { accept } : {} });
}

/** The whole flow; returns the callback's answer (a 302 for every track but a failed advertising connection). */
export async function connectThroughSandbox(
  t: TestApp,
  actor: Actor,
  body: Record<string, unknown>,
  decision: 'allow' | 'deny' | 'fail' = 'allow',
  account = '1',
  choices: Record<string, string> = {},
): Promise<Response> {
  return openCallback(await consent(await authorizationUrl(t, actor, body), decision, account, choices));
}

/** The Location of a 302, asserting it is one. */
export function locationOf(response: Response): string {
  assert.equal(response.status, 302, `expected a redirect, got ${response.status}`);
  return response.headers.get('location')!;
}

/**
 * The consent choice of a sandbox TikTok seller in the UK. The simulator's seller is in the US unless the consent page
 * says otherwise (test/platforms/tiktok-shop/sandbox-market.test.ts); the suite's TikTok Shop tests were written for a
 * UK shop selling in pounds, so they ask for one.
 */
export const UK_SELLER = { market: 'GB' } as const;

/**
 * Connects a sandbox TikTok Shop account (one shop unless `choices.shops` says more; a UK seller unless
 * `choices.market` says otherwise) and returns its first site's id.
 */
export async function connectTikTokShopSite(
  t: TestApp,
  actor: Actor,
  account = '1',
  choices: Record<string, string> = {},
): Promise<number> {
  const location = locationOf(await connectThroughSandbox(t, actor, { platform_id: 4 }, 'allow', account, { ...UK_SELLER, ...choices }));
  return Number(/\/site\/(\d+)\/listings$/.exec(location)![1]);
}

/**
 * Connects an Amazon seller account through the sandbox and returns its site id (`choices`: the consent page's, such
 * as `listings=stocked`).
 */
export async function connectAmazonSellerSite(
  t: TestApp,
  actor: Actor,
  account = '1',
  choices: Record<string, string> = {},
): Promise<number> {
  const location = locationOf(await connectThroughSandbox(t, actor, { platform_id: 5 }, 'allow', account, choices));
  return Number(/\/site\/(\d+)\/listings$/.exec(location)![1]);
}

/** Connects an Etsy shop through the sandbox and returns its site id (shop 80,000,000 + the sandbox account). */
export async function connectEtsySite(t: TestApp, actor: Actor, account = '1', choices: Record<string, string> = {}): Promise<number> {
  const location = locationOf(await connectThroughSandbox(t, actor, { platform_id: 1 }, 'allow', account, choices));
  return Number(/\/site\/(\d+)\/listings$/.exec(location)![1]);
}
