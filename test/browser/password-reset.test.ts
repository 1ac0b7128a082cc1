/**
 * A forgotten password reset in Chromium (docs/e-mail.md), the mail caught by a local SMTP sink: "Forgot password?" on
 * the sign-in page asks for a link, the mailed link opens the reset page, which says a weak password or two that
 * differ under their fields, sets the new one, and refuses the link a second time; the new password signs in.
 * axe-core on every page visited. Screenshots: test-results/screenshots/password-reset-*.png.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { MAIL_QUEUE } from '../../src/core/mail/mail-work.js';
import { type BrowserSession, openBrowser } from '../helpers/browser.js';
import { dashboardDatabaseKinds } from '../helpers/database.js';
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js';
import { runDueJobs } from '../helpers/test-app.js';

for (const kind of dashboardDatabaseKinds()) {
  describe(`a password reset in a browser [${kind}]`, () => {
    let sink: SmtpSink;
    let session: BrowserSession;
    let page: Page;
    let baseUrl: string;
    const user = { name: 'Forgetful Seller', email: `forgetful-${Date.now()}@example.com`, password: 'correct horse battery' };
    const NEW_PASSWORD = 'a much better passphrase';
    let link = '';

    before(async () => {
      sink = await startSmtpSink();
      session = await openBrowser(kind, { env: { SMTP_URL: sink.url } });
      ({ page, baseUrl } = session);
      const registered = await fetch(`${baseUrl}/api/v1/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(user),
      });
      assert.equal(registered.status, 201);
    });
    after(async () => {
      await session?.close();
      await sink?.close();
    });

    test('"Forgot password?" on the sign-in page mails a link to the account', async () => {
      await page.goto(`${baseUrl}/login`);
      await page.getByRole('link', { name: 'Forgot password?' }).waitFor();
      await session.noAxeViolations('the sign-in page');
      await page.getByRole('link', { name: 'Forgot password?' }).click();
      await page.waitForURL(/\/forgot-password$/);
      assert.equal(await page.title(), 'Forgot your password · Storelink');
      await session.noAxeViolations('the forgot-password page');
      await page.getByRole('button', { name: 'Send me a link' }).click();
      await page.getByText('Enter your email address.').waitFor();
      await page.getByLabel('Email').fill(user.email);
      await page.getByRole('button', { name: 'Send me a link' }).click();
      await page.getByRole('status').filter({ hasText: 'If an account has this email address' }).waitFor();
      await session.shot('password-reset-asked');
      await session.noAxeViolations('the forgot-password page once asked');

      assert.deepEqual(await runDueJobs(session.t, MAIL_QUEUE), { sent: 1 });
      const mail = sink.messages.find((m) => m.to.includes(user.email));
      assert.ok(mail, 'the account is mailed');
      assert.equal(mail.subject, 'Reset your Storelink password');
      link = mail.links[0]!;
      assert.ok(link.startsWith(`${baseUrl}/reset-password?token=`), link);
      session.noConsoleErrors();
    });

    test('the mailed link sets a new password, after saying what is wrong with a weak one', async () => {
      await page.goto(link);
      assert.equal(await page.title(), 'Choose a new password · Storelink');
      await session.noAxeViolations('the reset-password page');
      await page.getByLabel('New password', { exact: true }).fill('a fine passphrase');
      await page.getByLabel('New password again').fill('another passphrase');
      await page.getByRole('button', { name: 'Set the new password' }).click();
      await page.getByText('The two passwords differ.').waitFor();
      await page.getByLabel('New password', { exact: true }).fill('password123');
      await page.getByLabel('New password again').fill('password123');
      await page.getByRole('button', { name: 'Set the new password' }).click();
      await page.getByText(/too common/).waitFor();
      await session.noAxeViolations('the reset-password page with field errors');
      await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
      await page.getByLabel('New password again').fill(NEW_PASSWORD);
      await page.getByRole('button', { name: 'Set the new password' }).click();
      await page.getByRole('status').filter({ hasText: 'You are signed out everywhere' }).waitFor();
      await session.shot('password-reset-done');
      await session.noAxeViolations('the reset-password page once done');

      await page.getByRole('link', { name: 'Sign in' }).click();
      await page.waitForURL(/\/login$/);
      await session.noAxeViolations('the sign-in page the reset leads to');
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill(NEW_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(/\/workspace\/\d+\/dashboard$/);
      // The common password's refusal is a 422 the browser reports: the one console error expected.
      session.noConsoleErrors([/status of 422/]);
    });

    test("an invitation made in the dashboard says it is being mailed, and the invitee's mail holds its link", async () => {
      const workspaceUrl = /\/workspace\/(\d+)\//.exec(page.url())![1]!;
      await page.goto(`${baseUrl}/workspace/${workspaceUrl}/settings`);
      const invitee = `invitee-${Date.now()}@example.com`;
      await page.getByLabel('Email address').fill(invitee);
      await page.getByRole('button', { name: 'Create invitation link' }).click();
      const shown = await page.getByLabel('Invitation link').inputValue();
      await page.getByText(`Storelink is mailing this link to ${invitee}.`).waitFor();
      await session.shot('invitation-mailed');
      await session.noAxeViolations('workspace settings with a mailed invitation');
      assert.deepEqual(await runDueJobs(session.t, MAIL_QUEUE), { sent: 1 });
      const mail = sink.messages.find((m) => m.to.includes(invitee));
      assert.ok(mail, 'the invitee is mailed');
      assert.ok(mail.links.includes(shown), `the mail holds the link shown (${mail.links.join(', ')})`);
      session.noConsoleErrors();
    });

    test('the link used once is refused, with a way to ask for a new one', async () => {
      await page.goto(link);
      await page.getByLabel('New password', { exact: true }).fill('yet another passphrase');
      await page.getByLabel('New password again').fill('yet another passphrase');
      await page.getByRole('button', { name: 'Set the new password' }).click();
      await page.getByRole('alert').filter({ hasText: 'This link is invalid, has been used or has expired.' }).waitFor();
      await session.noAxeViolations('the reset-password page with a used link');
      await page.getByRole('link', { name: 'Ask for a new link' }).click();
      await page.waitForURL(/\/forgot-password$/);
      const login = await fetch(`${baseUrl}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: user.email, password: NEW_PASSWORD }),
      });
      assert.equal(login.status, 200, 'the password set by the link holds');
      // The reset page's request for the used link answers 422: the one console error expected.
      session.noConsoleErrors([/status of 422/]);
    });
  });
}
