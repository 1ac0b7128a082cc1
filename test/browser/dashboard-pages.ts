/**
 * Which dashboard addresses the server lists as pages (src/web/dashboard.routes.ts, DASHBOARD_PAGES). One it does not
 * list is still answered with the app when a browser asks for it, but with a 404, which Chromium logs as a console error.
 * The browser tests expect that line only for such an address, and a 200 otherwise, so they hold before and after the
 * server lists the newer pages (/invite/…, /workspace/…/settings, /webhooks, /audit-log).
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { DASHBOARD_PAGES } from '../../src/web/dashboard.routes.js';

/** The console lines a direct visit (or reload) of `url` may add: none for a listed page, the 404 for another. */
export function notYetListed(url: string): RegExp[] {
  const path = new URL(url).pathname;
  const listed = DASHBOARD_PAGES.some((page) => new RegExp(`^${page.replace(/:[a-z_]+/g, '[^/]+')}$`).test(path));
  return listed ? [] : [/404 \(Not Found\)/];
}

/** Opens `url` as a typed address and checks its status (200 for a listed page, 404 otherwise); the console lines it may add. */
export async function visit(page: Page, url: string): Promise<RegExp[]> {
  const response = await page.goto(url);
  const expected = notYetListed(url);
  assert.equal(response?.status(), expected.length === 0 ? 200 : 404, `the status of ${url}`);
  return expected;
}
