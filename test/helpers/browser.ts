/**
 * The browser tests' setup: Debian's Chromium (/usr/bin/chromium, never a downloaded browser) driven by playwright-core,
 * on a test app served on a loopback port, with every console error and uncaught page error collected, and axe-core to
 * check a page for accessibility problems.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { DEFAULT_WEB_DIR } from '../../src/web/dashboard.routes.js';
import type { DatabaseKind } from './database.js';
import { createTestApp, type TestApp } from './test-app.js';

export const CHROMIUM = '/usr/bin/chromium';
export const SCREENSHOTS = join(process.cwd(), 'test-results', 'screenshots');
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface BrowserSession {
  readonly t: TestApp;
  readonly baseUrl: string;
  readonly context: BrowserContext;
  readonly page: Page;
  /** `<page url>: <message>` of every console error and uncaught error so far; empty it with `length = 0`. */
  readonly consoleErrors: string[];
  /**
   * A screenshot of the whole page, `test-results/screenshots/<name>.png`. The viewport is made as tall as the page
   * first, so a sticky bar sits at the bottom as a user sees it, not across the middle as a stitched capture puts it.
   */
  shot(name: string, width?: number): Promise<void>;
  /** Asserts no console error since the last check, but for those matching `expected`, and forgets them. */
  noConsoleErrors(expected?: RegExp[]): void;
  /** Asserts axe-core finds no accessibility violation on the page as it is now (`what` names it in the failure). */
  noAxeViolations(what?: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * A served app on the database of `kind` (a test file runs its tests once per databaseKinds()) and a fresh Chromium
 * profile with one page of 1440x900. `env` is the app's environment beyond
 * the test defaults; `chromiumArgs` are added to Chromium's command line (a `--host-resolver-rules` to reach the app by
 * another name); `renewals` as createTestApp takes it.
 */
export async function openBrowser(
  kind: DatabaseKind,
  options: { acceptDownloads?: boolean; env?: Record<string, string>; chromiumArgs?: string[]; renewals?: 'worker' | 'by-hand' } = {},
): Promise<BrowserSession> {
  assert.ok(existsSync(join(DEFAULT_WEB_DIR, 'index.html')), 'The dashboard is not built: run npm run build:web (npm install does it)');
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium`);
  await mkdir(SCREENSHOTS, { recursive: true });
  const t = await createTestApp(kind, {
    listen: true,
    ...(options.env ? { env: options.env } : {}),
    ...(options.renewals ? { renewals: options.renewals } : {}),
  });
  const profileDir = await mkdtemp(join(tmpdir(), 'storelink-chromium-'));
  // A persistent context is the way to give Chromium a new, empty --user-data-dir of our own.
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [...CHROMIUM_ARGS, ...(options.chromiumArgs ?? [])],
    viewport: { width: 1440, height: 900 },
    acceptDownloads: options.acceptDownloads ?? false,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(15_000);
  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(`${page.url()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => consoleErrors.push(`${page.url()}: ${error.message}`));
  return {
    t,
    baseUrl: t.deps.config.appUrl,
    context,
    page,
    consoleErrors,
    async shot(name, width = 1440) {
      await page.setViewportSize({ width, height: 900 });
      const height = (await page.evaluate('document.documentElement.scrollHeight')) as number;
      await page.setViewportSize({ width, height: Math.max(900, height) });
      await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
      await page.setViewportSize({ width: 1440, height: 900 });
    },
    noConsoleErrors(expected = []) {
      const unexpected = consoleErrors.filter((line) => !expected.some((pattern) => pattern.test(line)));
      consoleErrors.length = 0;
      assert.deepEqual(unexpected, [], 'the browser console reported errors');
    },
    noAxeViolations: (what) => assertNoAxeViolations(page, what),
    async close() {
      const browser = context.browser();
      await context.close();
      await browser?.close();
      await t.close();
      await rm(profileDir, { recursive: true, force: true });
    },
  };
}

/**
 * Signs a new user up through the dashboard's sign-up page and waits for their workspace's dashboard: the workspace's id
 * and the session token the page keeps (for the API calls a test makes beside the page).
 */
export async function signUp(
  page: Page,
  baseUrl: string,
  user: { name: string; email: string; password: string },
): Promise<{ workspaceId: string; token: string }> {
  await page.goto(`${baseUrl}/signup`);
  await page.getByRole('button', { name: 'Create account' }).waitFor();
  await assertNoAxeViolations(page, 'the sign-up page');
  await page.getByLabel('Name').fill(user.name);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(/\/workspace\/\d+\/dashboard$/);
  const workspaceId = /\/workspace\/(\d+)\/dashboard/.exec(page.url())![1]!;
  const token = (await page.evaluate("localStorage.getItem('storelink.session')")) as string;
  return { workspaceId, token };
}

/**
 * Presses Allow on the sandbox consent page the browser is on, axe having checked the page as the test filled it in,
 * and waits for the new site's listings page the dashboard brings the browser back to, checked by axe once its listing
 * settings have loaded: the site's id.
 */
export async function allowConsent(page: Page): Promise<string> {
  await assertNoAxeViolations(page, `the sandbox consent page ${new URL(page.url()).pathname}`);
  await page.getByRole('button', { name: 'Allow', exact: true }).click();
  await page.waitForURL(/\/site\/\d+\/listings$/);
  await page.getByRole('heading', { name: 'Listing settings' }).waitFor();
  await assertNoAxeViolations(page, "a new site's listings page");
  return /\/site\/(\d+)\/listings$/.exec(page.url())![1]!;
}

/**
 * A call of the API as the signed-up user (`who` read at each call: the test signs up after it makes the caller), a
 * FormData body sent as multipart, any other as JSON.
 */
export function apiCaller(baseUrl: () => string, who: () => { token: string; workspaceId: string }) {
  return (method: string, path: string, body?: unknown): Promise<Response> => {
    const { token, workspaceId } = who();
    return fetch(`${baseUrl()}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        'x-workspace-id': workspaceId,
        ...(body === undefined || body instanceof FormData ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : body instanceof FormData ? body : JSON.stringify(body),
    });
  };
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary: string }[];
}

/**
 * Runs axe-core (every rule but the experimental ones: WCAG 2.0, 2.1 and 2.2 A and AA, and axe's best practices) on the
 * page as it is now, and fails on any violation, each told with its rule, impact and elements. axe goes in through the
 * DevTools protocol, which the page's Content-Security-Policy does not apply to: the policy stays the one users get.
 */
export async function assertNoAxeViolations(page: Page, what = page.url()): Promise<void> {
  // Once per document: the dashboard changes pages without loading a new one, and the 650 KB of axe-core parsed again at
  // each check was a third of the checks' time.
  if ((await page.evaluate('typeof axe')) === 'undefined') await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((results) =>
    results.violations.map(({ id, impact, help, nodes }) => ({
      id, impact, help, nodes: nodes.map(({ target, failureSummary }) => ({ target, failureSummary })),
    })))`)) as AxeViolation[];
  const told = violations.map(
    (v) => `${v.id} (${v.impact}): ${v.help}\n${v.nodes.map((n) => `  ${n.target.join(' ')}: ${n.failureSummary}`).join('\n')}`,
  );
  assert.deepEqual(told, [], `axe-core found accessibility violations on ${what}`);
}

/** Whether the element has the focus (the test is compiled without the DOM's types, hence the cast). */
export async function isFocused(locator: Locator): Promise<boolean> {
  await locator.waitFor();
  return locator.evaluate(
    (element) => element === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement,
  );
}

/**
 * Asserts that the locator comes to match `count` elements. A plain `count()` reads the page at once, before React has
 * rendered what a click or a fetch brings, so a loaded machine fails it; this reads again until the count holds or
 * the time is up. For a count that must stay 0, read `count()` once: waiting for an absence proves nothing.
 */
export async function assertCount(locator: Locator, count: number, message?: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  let seen = await locator.count();
  while (seen !== count && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    seen = await locator.count();
  }
  assert.equal(seen, count, message);
}
