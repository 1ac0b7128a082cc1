/**
 * Webhooks and the audit log in Chromium (issue 16 item 3): an owner adds an endpoint (its signing secret shown once,
 * with Copy), watches a delivery fail, be retried and be redelivered, deletes the endpoint after a confirmation, and
 * reads the workspace's audit log newest first, a page at a time, filtered by action on the server. Deliveries are sent
 * by the test (one pass of the due jobs), as a worker's poll would. Screenshots: test-results/screenshots/hooks-*.png.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { apiCaller, type BrowserSession, openBrowser, signUp } from '../helpers/browser.js';
import { dashboardDatabaseKinds } from '../helpers/database.js';
import { sendDue } from '../helpers/jobs.js';
import { within } from '../helpers/test-app.js';
import { notYetListed } from './dashboard-pages.js';

/** A receiver on loopback answering `state.status`, recording each delivery's headers. */
async function startReceiver() {
  const received: IncomingHttpHeaders[] = [];
  const state = { status: 200 };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(req.headers);
      res.writeHead(state.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/storelink-events`;
  return { url, received, state, close: () => new Promise((resolve) => server.close(resolve)) };
}

for (const kind of dashboardDatabaseKinds()) {
  describe(`webhooks and the audit log in a browser [${kind}]`, () => {
    let session: BrowserSession;
    let page: Page;
    let baseUrl: string;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    const user = { name: 'Hook Seller', email: `hooks-${Date.now()}@example.com`, password: 'correct horse battery' };
    let workspaceId = '';
    let token = '';
    const api = apiCaller(
      () => baseUrl,
      () => ({ token, workspaceId }),
    );

    before(async () => {
      receiver = await startReceiver();
      session = await openBrowser(kind);
      ({ page, baseUrl } = session);
      await session.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
      ({ workspaceId, token } = await signUp(page, baseUrl, user));
    });
    after(async () => {
      await session?.close();
      await receiver?.close();
    });

    async function openFromMenu(name: 'Webhooks' | 'Audit log') {
      await page.locator('summary', { hasText: 'Settings' }).click();
      await page.getByRole('link', { name }).click();
      await page.getByRole('heading', { name, level: 1 }).waitFor();
    }

    const createProduct = async (title: string) => {
      const body = { title, currency: 'USD', variants: [{ sku: `SKU-${title.replace(/\W+/g, '-')}`, price: '12.00', quantity: 3 }] };
      const response = await api('POST', '/products', body);
      assert.equal(response.status, 201, await response.text());
    };

    const deliveryRow = () => page.getByRole('region', { name: 'Deliveries' }).getByRole('row').filter({ hasText: 'product.created' });

    test('an endpoint is added with its URL and events, and its signing secret is shown once, with Copy', async () => {
      await openFromMenu('Webhooks');
      assert.equal(await page.title(), `Webhooks · ${user.name}'s workspace · Storelink`);
      await page.getByText('No endpoints yet.').waitFor();
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await page.getByText('Enter the endpoint’s address.').waitFor();
      await page.getByLabel('Endpoint URL').fill('ftp://example.com/hooks');
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await page.getByText('Enter an address starting with https://').waitFor();
      await page.getByText('Choose at least one event to send.').waitFor();
      await session.noAxeViolations('the webhooks page with the form’s errors');

      await page.getByLabel('Endpoint URL').fill(receiver.url);
      await page.getByRole('checkbox', { name: /^A product is created/ }).check();
      await page.getByRole('checkbox', { name: /^A site is connected/ }).check();
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      const secret = await page.getByLabel('Signing secret').inputValue();
      assert.match(secret, /^whsec_/);
      await page.getByText('Copy it now: it is shown once.').waitFor();
      await page.getByRole('button', { name: 'Copy' }).click();
      await page.getByRole('button', { name: 'Copied' }).waitFor();
      assert.equal(await page.evaluate('navigator.clipboard.readText()'), secret);
      const endpoint = page.getByRole('listitem').filter({ hasText: receiver.url });
      await endpoint.getByText('2 events: A site is connected; A product is created').waitFor();
      await session.shot('hooks-endpoint-added');
      await session.noAxeViolations('the webhooks page with a new endpoint and its secret');

      await page.reload();
      await endpoint.waitFor();
      assert.equal(await page.getByLabel('Signing secret').count(), 0, 'the secret is not shown again');
      assert.ok(!(await page.content()).includes(secret));
      session.noConsoleErrors(notYetListed(page.url()));
    });

    test('a delivery shows its status, attempts and last answer; Redeliver sends it again with the same webhook-id', async () => {
      receiver.state.status = 500;
      await createProduct('Failing tote');
      assert.equal((await sendDue(session.t)).retry, 1);
      await page.getByRole('button', { name: 'Deliveries' }).click();
      const row = deliveryRow();
      await row.getByText('Pending').waitFor();
      await row.getByRole('cell', { name: 'HTTP 500' }).waitFor();
      await row.getByText(/^Next try /).waitFor();
      assert.equal(await row.getByRole('cell', { name: '1', exact: true }).count(), 1, 'one attempt');
      await session.shot('hooks-delivery-failing');
      await session.noAxeViolations('an endpoint’s deliveries with a failing one');

      receiver.state.status = 200;
      await row.getByRole('button', { name: /^Redeliver/ }).click();
      await page.getByRole('status').filter({ hasText: 'queued to be sent again as a new delivery, with the same webhook-id' }).waitFor();
      assert.equal((await sendDue(session.t)).delivered, 1);
      await page.getByRole('region', { name: 'Deliveries' }).getByRole('button', { name: 'Refresh' }).click();
      // The redelivery is a delivery of its own, on top; the first one keeps its retries.
      const [redelivered, first] = [row.first(), row.nth(1)];
      await redelivered.getByText('Delivered', { exact: true }).waitFor();
      await redelivered.getByRole('cell', { name: 'HTTP 200' }).waitFor();
      await first.getByRole('cell', { name: 'HTTP 500' }).waitFor();
      assert.equal(await row.count(), 2);
      assert.equal(receiver.received.length, 2);
      assert.equal(receiver.received[1]!['webhook-id'], receiver.received[0]!['webhook-id']);
      await session.shot('hooks-delivery-redelivered');
      await session.noAxeViolations('an endpoint’s deliveries after a redelivery');
      session.noConsoleErrors();
    });

    test('an endpoint is deleted after a confirmation that opens on Cancel', async () => {
      const remove = page.getByRole('button', { name: `Delete the endpoint ${receiver.url}` });
      await remove.click();
      const cancel = page.getByRole('alertdialog').getByRole('button', { name: 'Cancel' });
      assert.ok(
        await cancel.evaluate(
          (element) => element === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement,
        ),
      );
      await session.noAxeViolations('the delete confirmation of an endpoint');
      await page.getByRole('button', { name: 'Yes, delete' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `The endpoint ${receiver.url} is deleted` })
        .waitFor();
      await page.getByText('No endpoints yet.').waitFor();
      await createProduct('Unheard tote');
      assert.deepEqual(await sendDue(session.t), { delivered: 0, retry: 0, failed: 0 });
      session.noConsoleErrors();
    });

    test('the audit log lists the workspace’s events newest first, a page at a time, filtered by action on the server', async () => {
      for (let i = 1; i <= 52; i++) await createProduct(`Tote ${i}`);
      await openFromMenu('Audit log');
      assert.equal(await page.title(), `Audit log · ${user.name}'s workspace · Storelink`);
      const status = page.locator('#audit-summary');
      await status.getByText(/^\d+ events, page 1 of 2\.$/).waitFor();
      const rows = page.locator('.audit-table tbody tr');
      assert.equal(await rows.count(), 50);
      // Newest first: the last product made heads the log.
      await rows.first().getByText('Created a product').waitFor();
      await rows.first().getByText(user.name).waitFor();
      // The product by its name, not its id.
      await rows.first().getByRole('cell', { name: 'Product “Tote 52”', exact: true }).waitFor();
      await session.shot('hooks-audit-log');
      await session.noAxeViolations('the audit log');

      await page.getByRole('button', { name: 'Older' }).click();
      await page.waitForURL(`${baseUrl}/workspace/${workspaceId}/audit-log?page=2`);
      await status.getByText(/page 2 of 2\.$/).waitFor();
      await page.getByRole('cell', { name: /^Added a webhook endpoint/ }).waitFor();

      const asked = page.waitForRequest((request) => request.url().includes('/api/v1/audit-events') && request.url().includes('action='));
      await page.getByLabel('Action').selectOption('webhook.deleted');
      assert.match((await asked).url(), /[?&]action=webhook\.deleted(&|$)/);
      await page.waitForURL(`${baseUrl}/workspace/${workspaceId}/audit-log?action=webhook.deleted`);
      await status.getByText('1 event of “Deleted a webhook endpoint”.').waitFor();
      assert.equal(await rows.count(), 1);
      await rows.first().getByText('Deleted a webhook endpoint').waitFor();
      await session.shot('hooks-audit-log-filtered');
      await session.noAxeViolations('the audit log filtered by an action');

      // A wrong password for the account is recorded with no one signed in as its actor.
      const login = { email: user.email, password: 'not the password' };
      const refused = await fetch(`${baseUrl}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(login),
      });
      assert.equal(refused.status, 401);
      // The failed login is recorded after its 401 is answered: the filter is chosen once the API has it.
      await within(10_000, async () => {
        const found = await api('GET', '/audit-events?action=auth.login_failed');
        return ((await found.json()) as { data: unknown[] }).data.length === 1;
      });
      await page.getByLabel('Action').selectOption('auth.login_failed');
      await rows.first().getByText('Not signed in').waitFor();

      await page.getByLabel('Action').selectOption('member.removed');
      await page.getByText('No “Removed a member, or left” events.').waitFor();
      await page.reload();
      assert.equal(await page.getByLabel('Action').inputValue(), 'member.removed', 'the filter is in the address');
      session.noConsoleErrors(notYetListed(page.url()));
    });
  });
}
