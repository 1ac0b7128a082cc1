/**
 * One contract, every track: each adapter runs against its simulator through the whole flow (authenticate-site,
 * consent, callback, token exchange, identity, storage) and lands where the seed's redirect table says.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import type { Track } from '../../src/domain/index.js';
import { type Actor, connectThroughSandbox, locationOf } from '../helpers/connect.js';
import { databaseKinds, selectRows } from '../helpers/database.js';
import { refreshDue } from '../helpers/jobs.js';
import { call, createTestApp, registerUser, type TestApp } from '../helpers/test-app.js';

const CUSTOM = 'https://seller.example/connected?from=storelink';

interface TrackContract {
  track: Track;
  /** The authenticate-site body; `siteId` is the connected seller site, for the advertising track. */
  body(siteId: number | null): Record<string, unknown>;
  /** Whether the track needs a connected Amazon seller site first. */
  needsSellerSite?: boolean;
  /** Where a success lands, given the site id. */
  success(siteId: number): string;
  /** Where a failure with `message` and status `code` lands, the message last; null for the advertising track's retry page. */
  failure(message: string, code: number): string | null;
}

const withParams = (base: string, params: Record<string, string | number>) =>
  `${base}&${new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]))}`;

export const CONTRACTS: TrackContract[] = [
  {
    track: 'etsy',
    body: () => ({ platform_id: 1, redirect_url: CUSTOM }),
    success: () => CUSTOM,
    failure: (message) => withParams(CUSTOM, { authorization_error: message }),
  },
  {
    track: 'tiktok-shop',
    // The redirect travels in custom_field_value, with tracking pairs after it; redirect_url is ignored for platform 4.
    body: () => ({ platform_id: 4, custom_field_value: `${CUSTOM};utm_source=contract`, redirect_url: 'https://ignored.example/' }),
    success: () => CUSTOM,
    failure: (message) => withParams(CUSTOM, { authorization_error: message }),
  },
  {
    track: 'amazon-seller',
    body: () => ({ platform_id: 5, redirect_url: CUSTOM }),
    success: (siteId) => withParams(CUSTOM, { platform: 'marketplace', site_id: siteId }),
    failure: (message, code) => withParams(CUSTOM, { platform: 'marketplace', code, message }),
  },
  {
    track: 'amazon-ads',
    body: (siteId) => ({ platform_id: 5, site_id: siteId, redirect_url: CUSTOM }),
    needsSellerSite: true,
    success: (siteId) => withParams(CUSTOM, { platform: 'marketplace', site_id: siteId, segment: 'advertising' }),
    failure: () => null,
  },
];

async function connectedSellerSite(t: TestApp, actor: Actor): Promise<number> {
  const location = locationOf(await connectThroughSandbox(t, actor, { platform_id: 5 }));
  return Number(/\/site\/(\d+)\/listings$/.exec(location)![1]);
}

async function siteCount(t: TestApp): Promise<number> {
  return Number((await selectRows<{ n: string }>(t.database, sql`select count(*) as n from sites where status = 'connected'`))[0]!.n);
}

async function credentialCount(t: TestApp, track: 'seller' | 'advertising'): Promise<number> {
  return Number(
    (await selectRows<{ n: string }>(t.database, sql`select count(*) as n from site_credentials where grant_kind = ${track}`))[0]!.n,
  );
}

for (const kind of databaseKinds()) {
  for (const contract of CONTRACTS) {
    describe(`connect contract: ${contract.track} [${kind}]`, () => {
      let t: TestApp;
      let actor: Actor;
      let sellerSite: number | null = null;
      const credentialTrack = contract.track === 'amazon-ads' ? 'advertising' : 'seller';
      const body = () => contract.body(sellerSite);

      before(async () => {
        t = await createTestApp(kind, { listen: true, renewals: 'by-hand' });
        actor = await registerUser(t);
        if (contract.needsSellerSite) sellerSite = await connectedSellerSite(t, actor);
      });
      after(() => t.close());

      /** Asserts a failure landed where the contract says, and that nothing was stored. */
      async function assertFailure(response: Response, message: string, code: number, before: { sites: number; credentials: number }) {
        const target = contract.failure(message, code);
        if (target === null) {
          assert.equal(response.status, code);
          const page = await response.text();
          assert.match(page, /Try again/);
          // A page, though answered by the API: its policy lets its own style apply (docs/decisions.md, "Security headers").
          assert.match(String(response.headers.get('content-security-policy')), /style-src [^;]*'unsafe-inline'/);
          assert.equal(response.headers.get('x-frame-options'), 'SAMEORIGIN');
          assert.ok(page.includes(message.replace(/'/g, '&#39;')), page);
        } else {
          assert.equal(locationOf(response), target);
        }
        assert.equal(await siteCount(t), before.sites);
        assert.equal(await credentialCount(t, credentialTrack), before.credentials);
      }

      const counts = async () => ({ sites: await siteCount(t), credentials: await credentialCount(t, credentialTrack) });

      test('allowing consent connects the account and lands on the success target', async () => {
        const response = await connectThroughSandbox(t, actor, body());
        const sites = (await call(t, 'GET', '/sites', { token: actor.session, workspace: actor.workspace.id })).json().data as Array<{
          id: number;
          status: string;
          advertising: { connected: boolean; profiles: unknown[] } | null;
        }>;
        const site = contract.track === 'amazon-ads' ? sites.find((s) => s.id === sellerSite)! : sites.at(-1)!;
        assert.equal(locationOf(response), contract.success(site.id));
        assert.equal(site.status, 'connected');
        if (contract.track === 'amazon-ads') assert.equal(site.advertising?.connected, true);
        const [stored] = await selectRows<{ ciphertext: string; key_id: string }>(
          t.database,
          sql`select ciphertext, key_id from site_credentials where site_id = ${site.id} and grant_kind = ${credentialTrack}`,
        );
        assert.ok(stored, 'credentials are stored');
        assert.ok(
          !Buffer.from(stored.ciphertext, 'base64url').toString('latin1').includes('access_token'),
          'credentials are not stored in clear',
        );
      });

      test('reconnecting the same account keeps the site id', async () => {
        const first = await call(t, 'GET', '/sites', { token: actor.session, workspace: actor.workspace.id });
        await connectThroughSandbox(t, actor, body());
        const second = await call(t, 'GET', '/sites', { token: actor.session, workspace: actor.workspace.id });
        assert.deepEqual(
          second.json().data.map((s: { id: number }) => s.id),
          first.json().data.map((s: { id: number }) => s.id),
        );
      });

      test('denying consent lands on the failure target with Access denied and stores nothing', async () => {
        const before = await counts();
        await assertFailure(await connectThroughSandbox(t, actor, body(), 'deny', '7'), 'Access denied', 403, before);
      });

      test('a code the platform rejects lands on the failure target with Invalid credentials', async () => {
        const before = await counts();
        await assertFailure(await connectThroughSandbox(t, actor, body(), 'fail', '8'), 'Invalid credentials', 400, before);
      });

      test('a token endpoint answering 500 fails as unavailable and stores nothing', async () => {
        const before = await counts();
        t.deps.sandbox.faults.set(contract.track, 'token', 'error');
        try {
          const response = await connectThroughSandbox(t, actor, body(), 'allow', '9');
          // The message is the platform's own; everything before it is fixed by the contract.
          const prefix = contract.failure('', 502);
          if (prefix === null) assert.equal(response.status, 502);
          else assert.ok(locationOf(response).startsWith(prefix) && locationOf(response).length > prefix.length, locationOf(response));
          assert.deepEqual(await counts(), before);
        } finally {
          t.deps.sandbox.faults.clear();
        }
      });

      test('the refresh worker renews the access token through the adapter before it expires', async () => {
        const [due] = await selectRows<{ site_id: number; next_refresh_at: Date }>(
          t.database,
          sql`select site_id, next_refresh_at from site_credentials where grant_kind = ${credentialTrack} order by site_id limit 1`,
        );
        const wait = new Date(due!.next_refresh_at).getTime() - t.clock.now().getTime() + 1000;
        t.clock.advance(wait);
        try {
          const result = await refreshDue(t);
          assert.ok(result.refreshed >= 1 && result.retry === 0 && result.reauthorization_required === 0, JSON.stringify(result));
          const [after] = await selectRows<{ refreshed_at: Date | null }>(
            t.database,
            sql`select refreshed_at from site_credentials where site_id = ${due!.site_id} and grant_kind = ${credentialTrack}`,
          );
          assert.equal(new Date(after!.refreshed_at!).getTime(), t.clock.now().getTime());
          // Read from the database: a clock moved a day ahead (TikTok's tokens are renewed daily) has outlived the session.
          const [site] = await selectRows<{ status: string }>(t.database, sql`select status from sites where id = ${due!.site_id}`);
          assert.equal(site!.status, 'connected');
        } finally {
          t.clock.advance(-wait);
        }
      });

      test('a grant revoked on the platform is refused at the next renewal', async () => {
        const [due] = await selectRows<{ site_id: number; next_refresh_at: Date }>(
          t.database,
          sql`select site_id, next_refresh_at from site_credentials where grant_kind = ${credentialTrack} order by site_id limit 1`,
        );
        // TikTok Shop also tells Storelink at once (its deauthorization webhook, tested in tiktok-notifications): that
        // notification is kept from arriving here, so the renewal is what finds the revocation.
        const notificationUrl = t.deps.sandbox.notificationUrl;
        t.deps.sandbox.notificationUrl = () => 'http://127.0.0.1:9/nowhere';
        const revoked = await t.app.inject({ method: 'POST', url: '/sandbox/revoke', payload: { track: contract.track, account: 1 } });
        t.deps.sandbox.notificationUrl = notificationUrl;
        assert.equal(revoked.statusCode, 204);
        const wait = new Date(due!.next_refresh_at).getTime() - t.clock.now().getTime() + 1000;
        t.clock.advance(wait);
        try {
          assert.equal((await refreshDue(t)).reauthorization_required, 1);
          const [site] = await selectRows<{ status: string; advertising_profiles: unknown }>(
            t.database,
            sql`select status, advertising_profiles from sites where id = ${due!.site_id}`,
          );
          // A refused advertising grant removes advertising and leaves the seller connection alone.
          if (contract.track === 'amazon-ads') assert.deepEqual([site!.status, site!.advertising_profiles], ['connected', null]);
          else assert.equal(site!.status, 'reauthorization_required');
        } finally {
          t.clock.advance(-wait);
        }
      });

      // Every track looks the account up after the token exchange (Amazon's seller track on the Sellers API).
      test('an identity call failing after a good token exchange leaves no site and no credentials', async () => {
        const before = await counts();
        t.deps.sandbox.faults.set(contract.track, 'identity', 'error');
        try {
          const response = await connectThroughSandbox(t, actor, body(), 'allow', '10');
          if (contract.failure('x', 502) === null) assert.equal(response.status, 502);
          else assert.equal(response.status, 302);
          assert.deepEqual(await counts(), before);
          assert.equal(t.deps.sandbox.calls.get(`${contract.track}:token`)! > 0, true);
        } finally {
          t.deps.sandbox.faults.clear();
        }
      });
    });
  }
}
