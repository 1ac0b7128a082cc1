/**
 * E-mail (docs/e-mail.md), against a local SMTP sink: a password reset mails a link that sets a new password once
 * within the hour and ends every session; an invitation is mailed with the link its answer holds; a mail the server
 * refuses is tried again and never fails the request; oversold stock, a site to reconnect and a listing's failed sync
 * are mailed to the workspace's owners and admins. Without SMTP_URL the same requests answer the same, and the log
 * says, once per mail and without the link's token, that no mail was sent.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { LISTING_QUEUE } from '../../src/core/listings/listing-work.js';
import { MAIL_QUEUE } from '../../src/core/mail/mail-work.js';
import * as sitesRepo from '../../src/db/sites.repo.js';
import type { PlatformOrder } from '../../src/platforms/contracts/orders.js';
import { connectEtsySite } from '../helpers/connect.js';
import { databaseKinds, selectRows } from '../helpers/database.js';
import { INVALID } from '../helpers/fixtures.js';
import { refreshDue, storeRevoked } from '../helpers/jobs.js';
import { etsySeller, publishMug } from '../helpers/listings.js';
import { type ReceivedMail, type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.js';
import { call, createTestApp, registerUser, runDueJobs, type TestApp } from '../helpers/test-app.js';

const HOUR_MS = 3600_000;
const NEW_PASSWORD = 'a brand new passphrase';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

type User = Awaited<ReturnType<typeof registerUser>>;
const as = (user: User) => ({ token: user.session });
let addresses = 0;
/** A client address of its own for each test, so the per-address limits of one test never reach another's requests. */
const newAddress = () => `10.9.${Math.floor(++addresses / 200)}.${addresses % 200}`;

/** A paid Etsy order of one line, `quantity` of `sku`. */
function paidOrder(externalId: string, sku: string, quantity: number): PlatformOrder {
  const now = new Date();
  return {
    externalId,
    status: 'open',
    platformStatus: 'paid',
    currency: 'USD',
    total: '10.00',
    placedAt: now,
    updatedAt: now,
    externalUrl: null,
    lines: [{ externalId: `${externalId}-1`, sku, quantity, price: '5.00', externalListingId: null }],
  };
}

/** A workspace with a connected sandbox Etsy shop whose orders count, and a product of `sku` with `stock` units. */
async function shopWith(t: TestApp, owner: User, account: string, sku: string, stock: number) {
  const siteId = await connectEtsySite(t, owner, account);
  await t.database.db.execute(sql`update sites set orders_from = '2020-01-01' where id = ${siteId}`);
  const body = { title: `Product ${sku}`, currency: 'USD', variants: [{ sku, price: '5.00', quantity: stock }] };
  const created = await call(t, 'POST', '/products', { ...as(owner), workspace: owner.workspace.id, body });
  assert.equal(created.statusCode, 201, created.body);
  return (await sitesRepo.findSite(t.database.db, owner.workspace.id, siteId))!;
}

const mailJobs = (t: TestApp) =>
  selectRows<{ n: number }>(t.database, sql`select count(*)::int as n from pgboss.job where name = ${MAIL_QUEUE}`).then((r) => r[0]!.n);

for (const kind of databaseKinds()) {
  describe(`e-mail with SMTP_URL [${kind}]`, () => {
    let t: TestApp;
    let sink: SmtpSink;
    before(async () => {
      sink = await startSmtpSink();
      t = await createTestApp(kind, { listen: true, renewals: 'by-hand', env: { SMTP_URL: sink.url } });
      // The sandbox's per-second budget is timed by the test's clock, which stands still here: rate limits have tests of their own.
      Object.assign(t.deps.sandbox.etsyLimits, { perSecond: 1_000_000, perDay: 1_000_000_000 });
    });
    after(async () => {
      await t.close();
      await sink.close();
    });

    const mailsTo = (email: string) => sink.messages.filter((m) => m.to.includes(email));
    const tokenOf = (mail: ReceivedMail) => new URL(mail.links[0]!).searchParams.get('token')!;
    /** `user` joins `owner`'s workspace as `role` (their invitation mails are sent and set aside). */
    async function join(owner: User, user: User, role: string) {
      const body = { email: user.user.email, role };
      const invited = await call(t, 'POST', `/workspaces/${owner.workspace.id}/invitations`, { ...as(owner), body });
      assert.equal(invited.statusCode, 201, invited.body);
      assert.equal((await call(t, 'POST', `/invitations/${invited.json().data.token}/accept`, as(user))).statusCode, 200);
      await runDueJobs(t, MAIL_QUEUE);
    }

    test('a password reset mails a link that sets a new password once, and ends every session of the account', async () => {
      const remoteAddress = newAddress();
      const ana = await registerUser(t);
      const other = await call(t, 'POST', '/auth/login', { body: { email: ana.user.email, password: ana.password }, remoteAddress });
      assert.equal(other.statusCode, 200);

      const asked = await call(t, 'POST', '/auth/password-reset', { body: { email: ana.user.email.toUpperCase() }, remoteAddress });
      assert.equal(asked.statusCode, 202, asked.body);
      assert.deepEqual(asked.json(), { success: true, data: null });
      assert.deepEqual(await runDueJobs(t, MAIL_QUEUE), { sent: 1 });
      const [mail] = mailsTo(ana.user.email);
      assert.ok(mail, 'the account is mailed');
      assert.deepEqual(mail.to, [ana.user.email]);
      assert.equal(mail.subject, 'Reset your Storelink password');
      assert.match(mail.from, /^Storelink <storelink@127\.0\.0\.1>$/);
      assert.equal(mail.links.length, 1);
      const link = new URL(mail.links[0]!);
      assert.equal(`${link.origin}${link.pathname}`, `${t.deps.config.appUrl}/reset-password`);
      const token = tokenOf(mail);

      // Only the token's hash is kept; the link's token reaches no log.
      const rows = await selectRows<{ token_hash: string }>(
        t.database,
        sql`select token_hash from password_resets where user_id = ${ana.user.id}`,
      );
      assert.deepEqual(
        rows.map((r) => r.token_hash),
        [sha256(token)],
      );
      assert.ok(!t.logs.join('').includes(token), 'the token is not logged');

      const confirmed = await call(t, 'POST', '/auth/password-reset/confirm', { body: { token, password: NEW_PASSWORD }, remoteAddress });
      assert.equal(confirmed.statusCode, 200, confirmed.body);
      assert.deepEqual(confirmed.json(), { success: true, data: null });
      for (const session of [ana.session, other.json().data.token])
        assert.equal((await call(t, 'GET', '/workspaces', { token: session })).statusCode, 401, 'every session ended');
      const login = (password: string) => call(t, 'POST', '/auth/login', { body: { email: ana.user.email, password }, remoteAddress });
      assert.equal((await login(ana.password)).statusCode, 401);
      assert.equal((await login(NEW_PASSWORD)).statusCode, 200);

      const again = await call(t, 'POST', '/auth/password-reset/confirm', {
        body: { token, password: 'yet another passphrase' },
        remoteAddress,
      });
      assert.equal(again.statusCode, 422);
      assert.equal(again.json().message, INVALID);
      assert.deepEqual(Object.keys(again.json().errors), ['token'], 'a link is used once');
      assert.equal((await login(NEW_PASSWORD)).statusCode, 200);
      assert.equal((await selectRows(t.database, sql`select 1 from password_resets where user_id = ${ana.user.id}`)).length, 0);
    });

    test('an e-mail no account has gets the same answer, and no mail', async () => {
      const remoteAddress = newAddress();
      const before = sink.messages.length;
      const email = `nobody-${Date.now()}@example.com`;
      const asked = await call(t, 'POST', '/auth/password-reset', { body: { email }, remoteAddress });
      assert.equal(asked.statusCode, 202);
      assert.deepEqual(asked.json(), { success: true, data: null });
      assert.deepEqual(await runDueJobs(t, MAIL_QUEUE), { skipped: 1 });
      assert.equal(sink.messages.length, before);
    });

    test('a weak new password is refused and leaves the link usable; an hour on, the link is refused', async () => {
      const remoteAddress = newAddress();
      const bea = await registerUser(t);
      assert.equal((await call(t, 'POST', '/auth/password-reset', { body: { email: bea.user.email }, remoteAddress })).statusCode, 202);
      await runDueJobs(t, MAIL_QUEUE);
      const token = tokenOf(mailsTo(bea.user.email)[0]!);
      const confirm = (password: string) => call(t, 'POST', '/auth/password-reset/confirm', { body: { token, password }, remoteAddress });

      const weak = await confirm(bea.user.email);
      assert.equal(weak.statusCode, 422);
      assert.deepEqual(Object.keys(weak.json().errors), ['password']);
      assert.equal((await call(t, 'GET', '/workspaces', as(bea))).statusCode, 200, 'a refused reset ends no session');

      const start = t.clock.now();
      t.clock.advance(HOUR_MS);
      const late = await confirm(NEW_PASSWORD);
      t.clock.set(start);
      assert.equal(late.statusCode, 422);
      assert.deepEqual(Object.keys(late.json().errors), ['token']);
      const login = await call(t, 'POST', '/auth/login', { body: { email: bea.user.email, password: bea.password }, remoteAddress });
      assert.equal(login.statusCode, 200, 'the password is unchanged');
      assert.equal((await confirm(NEW_PASSWORD)).statusCode, 200, 'within the hour it still works');
    });

    test('requests are limited per e-mail as logins are, in a bucket of their own, whether an account has it or not', async () => {
      const limit = t.deps.config.loginRateLimit.perEmail;
      const cy = await registerUser(t);
      for (const email of [cy.user.email, `nobody-${Date.now()}@example.com`]) {
        const remoteAddress = newAddress();
        const ask = () => call(t, 'POST', '/auth/password-reset', { body: { email }, remoteAddress: newAddress() });
        for (let i = 0; i < limit; i++) assert.equal((await ask()).statusCode, 202);
        const refused = await ask();
        assert.equal(refused.statusCode, 429);
        assert.deepEqual(refused.json(), { success: false, code: 429, message: 'Too many requests' });
        assert.ok(Number(refused.headers['retry-after']) > 0);
        const other = await call(t, 'POST', '/auth/password-reset', { body: { email: `x${email}` }, remoteAddress });
        assert.equal(other.statusCode, 202, 'another e-mail has its own bucket');
      }
      const login = await call(t, 'POST', '/auth/login', {
        body: { email: cy.user.email, password: cy.password },
        remoteAddress: newAddress(),
      });
      assert.equal(login.statusCode, 200, "the account's logins are not spent");
      await runDueJobs(t, MAIL_QUEUE);
      assert.equal(mailsTo(cy.user.email).length, limit, 'one mail per request allowed');
    });

    test('an invitation is mailed to the invitee with the link its answer holds, and the link joins them', async () => {
      const owner = await registerUser(t, { name: 'Dora' });
      const eve = await registerUser(t);
      const body = { email: eve.user.email, role: 'admin' };
      const invited = await call(t, 'POST', `/workspaces/${owner.workspace.id}/invitations`, { ...as(owner), body });
      assert.equal(invited.statusCode, 201, invited.body);
      const { url, token, mailed } = invited.json().data;
      assert.equal(mailed, true, 'the answer says the link is being mailed');
      assert.deepEqual(await runDueJobs(t, MAIL_QUEUE), { sent: 1 });
      const [mail] = mailsTo(eve.user.email);
      assert.ok(mail);
      assert.deepEqual(mail.to, [eve.user.email]);
      assert.equal(mail.subject, `Dora invited you to ${owner.workspace.name} on Storelink`);
      assert.deepEqual(mail.links, [url]);
      const jobs = await selectRows<{ data: string }>(t.database, sql`select data::text from pgboss.job where name = ${MAIL_QUEUE}`);
      assert.ok(!jobs.some((job) => job.data.includes(token)), 'the token is kept in clear nowhere');

      const path = new URL(mail.links[0]!).pathname;
      assert.equal(path, `/invite/${token}`);
      const accepted = await call(t, 'POST', `/invitations/${path.split('/')[2]}/accept`, as(eve));
      assert.equal(accepted.statusCode, 200, accepted.body);
      const members = (await call(t, 'GET', `/workspaces/${owner.workspace.id}/members`, as(owner))).json().data;
      assert.deepEqual(members.map((m: { email: string; role: string }) => [m.email, m.role]).sort(), [
        [owner.user.email, 'owner'],
        [eve.user.email, 'admin'],
      ]);
    });

    test('a mail the server refuses never fails the request: it is sent on a later try', async () => {
      const owner = await registerUser(t);
      const email = `fay-${Date.now()}@example.com`;
      sink.refuse(1);
      const invited = await call(t, 'POST', `/workspaces/${owner.workspace.id}/invitations`, {
        ...as(owner),
        body: { email, role: 'member' },
      });
      assert.equal(invited.statusCode, 201, invited.body);
      await assert.rejects(runDueJobs(t, MAIL_QUEUE));
      assert.equal(mailsTo(email).length, 0);
      assert.match(t.logs.join(''), /a mail could not be sent; it will be tried again/);
      assert.ok(!t.logs.join('').includes(invited.json().data.token));
      t.clock.advance(5 * 60_000);
      assert.deepEqual(await runDueJobs(t, MAIL_QUEUE), { sent: 1 });
      assert.deepEqual(mailsTo(email)[0]?.links, [invited.json().data.url]);
    });

    test("oversold stock is mailed to the workspace's owners and admins", async () => {
      const owner = await registerUser(t);
      const admin = await registerUser(t);
      const member = await registerUser(t);
      await join(owner, admin, 'admin');
      await join(owner, member, 'member');
      const site = await shopWith(t, owner, '731', 'ALERT-1', 1);
      await t.deps.orderIntake.record(site, [paidOrder('R731', 'ALERT-1', 3)]);
      assert.deepEqual(await runDueJobs(t, MAIL_QUEUE), { sent: 1 });
      const [mail] = mailsTo(owner.user.email);
      assert.ok(mail);
      assert.deepEqual(mail.to, [owner.user.email, admin.user.email], 'owners and admins, not members');
      assert.equal(mail.subject, 'Oversold: ALERT-1 is 2 short on order R731');
      const [order] = (await call(t, 'GET', '/orders', { ...as(owner), workspace: owner.workspace.id })).json().data;
      assert.deepEqual(mail.links, [`${t.deps.config.appUrl}/workspace/${owner.workspace.id}/orders/${order.id}`]);
    });

    test('a site turning reauthorization_required is mailed to the owners', async () => {
      const owner = await registerUser(t);
      const siteId = await connectEtsySite(t, owner, '732');
      await storeRevoked(t, siteId, '70000732.revoked');
      assert.equal((await refreshDue(t)).reauthorization_required, 1);
      assert.deepEqual(await runDueJobs(t, MAIL_QUEUE), { sent: 1 });
      const [mail] = mailsTo(owner.user.email);
      assert.ok(mail);
      assert.match(mail.subject, /^Reconnect .+: etsy no longer accepts Storelink's access$/);
      assert.match(mail.text, /refused to renew access/);
    });

    test("a listing's failed sync is mailed to the owners", async () => {
      const me = await etsySeller(t, '733');
      const { id } = await publishMug(t, me, 'ALERT-3');
      const ran = await runDueJobs(t, LISTING_QUEUE);
      const live = (await call(t, 'GET', `/listings/${id}`, me.as)).json().data;
      assert.equal(live.status, 'active', JSON.stringify({ ran, live }));
      await runDueJobs(t, MAIL_QUEUE);
      const attributes = { 200: '3', 507: ['601', '602', '603', '604', '605', '606'] };
      assert.equal((await call(t, 'PATCH', `/listings/${id}`, { ...me.as, body: { attributes } })).statusCode, 202);
      await runDueJobs(t, LISTING_QUEUE);
      assert.equal((await call(t, 'GET', `/listings/${id}`, me.as)).json().data.sync_status, 'failed');
      assert.deepEqual(await runDueJobs(t, MAIL_QUEUE), { sent: 1 });
      const [mail] = mailsTo(me.user.email);
      assert.ok(mail);
      assert.match(mail.subject, /^A listing failed to sync: /);
      assert.match(mail.text, /at most 5 values/);
      assert.deepEqual(mail.links, [`${t.deps.config.appUrl}/site/${me.site}/listings/${id}`]);
    });
  });

  describe(`e-mail without SMTP_URL [${kind}]`, () => {
    let t: TestApp;
    before(async () => (t = await createTestApp(kind, { listen: true })));
    after(() => t.close());
    const notSent = () => t.logs.filter((line) => line.includes('no mail was sent')).map((line) => JSON.parse(line));

    test('a password reset is answered the same, and the log says no mail was sent', async () => {
      const gus = await registerUser(t);
      const before = notSent().length;
      for (const email of [gus.user.email, `nobody-${Date.now()}@example.com`]) {
        const asked = await call(t, 'POST', '/auth/password-reset', { body: { email }, remoteAddress: newAddress() });
        assert.equal(asked.statusCode, 202);
        assert.deepEqual(asked.json(), { success: true, data: null });
      }
      const lines = notSent().slice(before);
      assert.deepEqual(
        lines.map((line) => [line.mail, line.userId]),
        [
          ['password_reset', gus.user.id],
          ['password_reset', null],
        ],
      );
      assert.equal((await selectRows(t.database, sql`select 1 from password_resets`)).length, 0, 'no link is made');
      assert.equal(await mailJobs(t), 0);
    });

    test('an invitation still answers its link, and the log says once, without the token, that no mail was sent', async () => {
      const owner = await registerUser(t);
      const before = notSent().length;
      const body = { email: `hal-${Date.now()}@example.com`, role: 'member' };
      const invited = await call(t, 'POST', `/workspaces/${owner.workspace.id}/invitations`, { ...as(owner), body });
      assert.equal(invited.statusCode, 201);
      const { token, url, id, mailed } = invited.json().data;
      assert.equal(url, `${t.deps.config.appUrl}/invite/${token}`);
      assert.equal(mailed, false, 'the answer says the link must be sent by hand');
      assert.deepEqual(
        notSent()
          .slice(before)
          .map((line) => [line.mail, line.invitationId]),
        [['invitation', id]],
      );
      assert.ok(!t.logs.join('').includes(token));
      assert.equal(await mailJobs(t), 0);
    });

    test('an alert is logged as not sent, once', async () => {
      const owner = await registerUser(t);
      const site = await shopWith(t, owner, '734', 'ALERT-4', 0);
      const before = notSent().length;
      await t.deps.orderIntake.record(site, [paidOrder('R734', 'ALERT-4', 1)]);
      assert.deepEqual(await runDueJobs(t, MAIL_QUEUE), { not_sent: 1 });
      assert.deepEqual(
        notSent()
          .slice(before)
          .map((line) => [line.mail, line.event, line.workspaceId, line.recipients]),
        [['alert', 'stock.oversold', owner.workspace.id, 1]],
      );
    });
  });
}
