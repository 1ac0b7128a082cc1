/**
 * The viewer role (DESIGN §12, issue 37 item 5): a viewer reads what a member reads and changes nothing. Driven from the
 * app's own OpenAPI document, so a route added later is covered without touching this file: every operation on a
 * workspace that is not a read (any method but GET) answers a viewer 403 `Invalid workspace or access denied` and leaves
 * the database and the sandbox shop as they were; every read answers a viewer exactly what it answers a member (200,
 * or 403 for the admins' pages). Invitations name the role, role changes set it, and a viewer may leave.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { listingAdvertising, orders, webhookDeliveries } from '../../src/db/schema.js';
import { OPERATION_IDS } from '../../src/http/openapi-operations.js';
import { databaseKinds, selectRows } from '../helpers/database.js';
import { FORBIDDEN, GIF_1X1, mug } from '../helpers/fixtures.js';
import { etsySeller, heldListings, leafCategory, mugProduct, publishMug } from '../helpers/listings.js';
import { API, call, createPat, createTestApp, registerUser, type TestApp } from '../helpers/test-app.js';

type User = Awaited<ReturnType<typeof registerUser>>;

/**
 * The operations that are the caller's own account, not a workspace's: a viewer may use them as anyone may. A
 * non-public operation neither here nor on a workspace fails the test until it is placed.
 */
const OWN_ACCOUNT = new Set([
  'POST /auth/logout',
  'GET /personal-access-tokens',
  'POST /personal-access-tokens',
  'DELETE /personal-access-tokens/{id}',
  'GET /workspaces',
  'POST /workspaces',
  'GET /invitations/{token}',
  'POST /invitations/{token}/accept',
  'PATCH /user',
  'POST /user/password',
  'GET /platforms',
]);

/** The reads a member is refused as well (admins' pages, DESIGN §12): a viewer is refused them alike. */
const ADMIN_READS = new Set([
  'GET /audit-events',
  'GET /webhooks',
  'GET /webhooks/{webhook_id}/deliveries',
  'GET /workspaces/{workspace_id}/invitations',
]);

// Rows a refused request is meant to write (the security event of a 403, docs/decisions.md) and columns an accepted
// read may change (a token's last use); a search's kept total, which an accepted list may write (docs/catalogue.md).
const VOLATILE_ROWS: Record<string, string> = {
  audit_events: "where action not in ('auth.login_failed', 'authz.denied')",
  product_search_totals: 'where false',
};
const VOLATILE_COLUMNS: Record<string, string[]> = { access_tokens: ['last_used_at'] };

/** One digest per table of the public schema, every row. */
async function snapshot(t: TestApp): Promise<Record<string, string>> {
  const tables = (
    await selectRows<{ name: string }>(
      t.database,
      sql`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`,
    )
  ).map((r) => r.name);
  const parts = tables.map((table) => {
    const row = ['to_jsonb(r)', ...(VOLATILE_COLUMNS[table] ?? []).map((column) => `'${column}'`)].join(' - ');
    return `select '${table}' as name, md5(coalesce(string_agg(x, E'\\n' order by x), '')) as digest from (select (${row})::text as x from "${table}" r ${VOLATILE_ROWS[table] ?? ''}) rows`;
  });
  const rows = await selectRows<{ name: string; digest: string }>(t.database, sql.raw(parts.join(' union all ')));
  return Object.fromEntries(rows.map((r) => [r.name, r.digest]));
}

interface DocOperation {
  key: string;
  method: string;
  template: string;
  workspace: boolean;
  public: boolean;
  bodyType: string | null;
}

for (const kind of databaseKinds()) {
  describe(`the viewer role [${kind}]`, () => {
    let t: TestApp;
    let operations: DocOperation[];
    let owner: Awaited<ReturnType<typeof etsySeller>>;
    let member: User;
    let viewer: User;
    let ids: Record<string, number | string>;
    let publishBody: Record<string, unknown>;
    let csv: string;

    const as = (user: User, workspace?: number) => ({ token: user.session, ...(workspace ? { workspace } : {}) });
    const join = async (user: User, role: string) => {
      const invited = await call(t, 'POST', `/workspaces/${owner.workspace.id}/invitations`, {
        ...as(owner),
        body: { email: user.user.email, role },
      });
      assert.equal(invited.statusCode, 201, invited.body);
      assert.equal(invited.json().data.role, role);
      const accepted = await call(t, 'POST', `/invitations/${invited.json().data.token}/accept`, as(user));
      assert.equal(accepted.statusCode, 200, accepted.body);
      assert.deepEqual(accepted.json().data, { id: owner.workspace.id, name: owner.workspace.name, role });
    };

    before(async () => {
      t = await createTestApp(kind, { listen: true });
      // Two members reading every page of the site at once are within no real shop's rate.
      Object.assign(t.deps.sandbox.etsyLimits, { perSecond: 1_000_000, perDay: 1_000_000_000 });
      const doc = (await call(t, 'GET', '/openapi.json')).json();
      operations = Object.entries<Record<string, any>>(doc.paths).flatMap(([path, item]) =>
        Object.entries<any>(item).map(([method, op]) => {
          const template = path.slice(API.length);
          const parameters: { in: string; name: string }[] = op.parameters ?? [];
          return {
            key: `${method.toUpperCase()} ${template}`,
            method: method.toUpperCase(),
            template,
            workspace:
              parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === 'x-workspace-id') ||
              template.startsWith('/workspaces/{workspace_id}'),
            public: Array.isArray(op.security) && op.security.length === 0,
            bodyType: Object.keys(op.requestBody?.content ?? {})[0] ?? null,
          };
        }),
      );

      // The owner's workspace, with a bit of everything: a site, a live listing and one not published, a webhook and
      // its delivery, an order, a pending invitation; a member and a viewer in it.
      owner = await etsySeller(t, '37');
      const listed = await publishMug(t, owner, 'VIEW-MUG');
      const unlisted = await mugProduct(t, owner, 'VIEW-CUP');
      const category = await leafCategory(t, owner, 'mug');
      publishBody = { product_id: unlisted, category_id: category.id, attributes: category.attributes };
      const hook = await call(t, 'POST', '/webhooks', {
        ...owner.as,
        body: { url: 'http://127.0.0.1:9/hook', events: ['listing.published'] },
      });
      assert.equal(hook.statusCode, 201, hook.body);
      const [delivery] = await t.database.db
        .insert(webhookDeliveries)
        .values({
          endpointId: hook.json().data.id,
          messageId: 'msg_viewer',
          eventType: 'listing.published',
          payload: { type: 'listing.published' },
          createdAt: t.clock.now(),
        })
        .returning({ id: webhookDeliveries.id });
      const now = t.clock.now();
      const [order] = await t.database.db
        .insert(orders)
        .values({
          workspaceId: owner.workspace.id,
          siteId: owner.site,
          platformId: 1,
          externalId: 'viewer-order-1',
          status: 'open',
          platformStatus: 'paid',
          currency: 'USD',
          total: '28.00',
          placedAt: now,
          platformUpdatedAt: now,
        })
        .returning({ id: orders.id });
      // Advertising as its record stands once started (an Amazon listing's, in DESIGN §13; the reads only show it).
      await t.database.db.insert(listingAdvertising).values({
        workspaceId: owner.workspace.id,
        listingId: listed.id,
        siteId: owner.site,
        profileId: '3700',
        marketplaceId: 'ATVPDKIKX0DER',
        currency: 'USD',
        targeting: 'auto',
        dailyBudget: '10.00',
        defaultBid: '0.75',
      });
      const pending = await call(t, 'POST', `/workspaces/${owner.workspace.id}/invitations`, {
        ...as(owner),
        body: { email: 'someone-else@example.com', role: 'member' },
      });
      assert.equal(pending.statusCode, 201, pending.body);
      member = await registerUser(t);
      viewer = await registerUser(t);
      await join(member, 'member');
      await join(viewer, 'viewer');
      csv = (await call(t, 'GET', '/products/export', owner.as)).body.replace('VIEW-MUG', 'VIEW-MUG-RENAMED');
      ids = {
        workspace_id: owner.workspace.id,
        user_id: member.user.id,
        product_id: listed.productId,
        listing_id: listed.id,
        site_id: owner.site,
        category_id: category.id,
        webhook_id: hook.json().data.id,
        delivery_id: delivery!.id,
        order_id: order!.id,
        invitation_id: pending.json().data.id,
      };
    });
    after(() => t.close());

    const pathOf = (template: string) =>
      template.replace(/\{(\w+)\}/g, (_, name: string) => {
        assert.ok(name in ids, `a value for the path parameter ${name} (add one to the test's fixtures)`);
        return encodeURIComponent(String(ids[name]));
      });

    /** A request a member could make to change something: a valid body, so a route without the role check would act. */
    function writeRequest(op: DocOperation): { payload?: string | Buffer; contentType?: string } {
      const json = (body: unknown) => ({ payload: JSON.stringify(body), contentType: 'application/json' });
      const bodies: Record<string, unknown> = {
        'POST /products': mug('VIEW-NEW'),
        'PATCH /products/{product_id}': { title: 'Changed by a viewer' },
        'POST /products/bulk-edit': { product_ids: [ids.product_id], price: { set: '1.00' } },
        'POST /sites/{site_id}/listings': publishBody,
        'PATCH /listings/{listing_id}': { title: 'Changed by a viewer' },
        'PUT /sites/{site_id}/listing-settings': { who_made: 'someone_else', when_made: 'made_to_order' },
        'POST /authenticate-site': { platform_id: 1, redirect_url: 'https://example.com/connected' },
        'POST /webhooks': { url: 'http://127.0.0.1:9/other', events: ['listing.published'] },
        'PATCH /workspaces/{workspace_id}': { name: 'Taken over' },
        'DELETE /workspaces/{workspace_id}': { confirm: owner.workspace.name },
        'POST /workspaces/{workspace_id}/transfer-ownership': { user_id: viewer.user.id },
        'PATCH /workspaces/{workspace_id}/members/{user_id}': { role: 'viewer' },
        'POST /workspaces/{workspace_id}/invitations': { email: 'friend@example.com', role: 'admin' },
        'POST /listings/{listing_id}/advertising': { daily_budget: '10.00' },
        'PATCH /listings/{listing_id}/advertising': { daily_budget: '15.00', state: 'paused' },
      };
      if (op.bodyType === null) return {};
      if (op.bodyType === 'text/csv') return { payload: csv, contentType: 'text/csv' };
      if (op.bodyType === 'multipart/form-data') {
        const boundary = 'viewer-boundary';
        const payload = Buffer.concat([
          Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="x.gif"\r\ncontent-type: image/gif\r\n\r\n`),
          GIF_1X1,
          Buffer.from(`\r\n--${boundary}--\r\n`),
        ]);
        return { payload, contentType: `multipart/form-data; boundary=${boundary}` };
      }
      return json(bodies[op.key] ?? {});
    }

    const send = (user: { session: string }, op: DocOperation, request: { payload?: string | Buffer; contentType?: string } = {}) =>
      t.app.inject({
        method: op.method as 'GET',
        url: `${API}${pathOf(op.template)}`,
        headers: {
          authorization: `Bearer ${user.session}`,
          'x-workspace-id': String(owner.workspace.id),
          ...(request.contentType ? { 'content-type': request.contentType } : {}),
        },
        ...(request.payload !== undefined ? { payload: request.payload } : {}),
      });

    test('every operation of the API is placed: public, the caller’s own account, or a workspace’s', () => {
      assert.ok(operations.length >= Object.keys(OPERATION_IDS).length - 1, `${operations.length} operations`);
      const unplaced = operations.filter((op) => !op.public && !op.workspace && !OWN_ACCOUNT.has(op.key)).map((op) => op.key);
      assert.deepEqual(unplaced, [], 'operations neither public, nor the own account, nor on a workspace');
      for (const key of OWN_ACCOUNT)
        assert.ok(
          operations.some((op) => op.key === key),
          `${key} is still an operation`,
        );
    });

    test('a viewer reads every workspace read as a member does: the same answer, 200 but for the admins’ pages', async () => {
      // The event stream never ends an answer: test/server/events.test.ts reads it, a viewer's too.
      const reads = operations.filter((op) => op.workspace && op.method === 'GET' && op.key !== 'GET /events');
      assert.ok(reads.length >= 20, `${reads.length} reads`);
      const answers: string[] = [];
      for (const op of reads) {
        const byMember = await send(member, op);
        const byViewer = await send(viewer, op);
        const expected = ADMIN_READS.has(op.key) ? 403 : 200;
        answers.push(`${op.key} ${byViewer.statusCode}`);
        assert.equal(byMember.statusCode, expected, `${op.key} as a member: ${byMember.body}`);
        assert.equal(byViewer.statusCode, expected, `${op.key} as a viewer: ${byViewer.body}`);
        if (expected === 403) assert.deepEqual(byViewer.json(), FORBIDDEN, op.key);
        else if (op.template === '/user') {
          assert.equal(byViewer.json().data.workspace.role, 'viewer');
          assert.equal(byMember.json().data.workspace.role, 'member');
        } else assert.equal(byViewer.body, byMember.body, `${op.key}: the viewer's answer is the member's`);
      }
      assert.ok(answers.includes('GET /products 200') && answers.includes('GET /orders/{order_id} 200'), answers.join('\n'));
    });

    test("a viewer follows the workspace's event stream as a member does", async () => {
      const stop = new AbortController();
      const response = await fetch(`${t.deps.config.appUrl}${API}/events`, {
        headers: { authorization: `Bearer ${viewer.session}`, 'x-workspace-id': String(owner.workspace.id) },
        signal: stop.signal,
      });
      assert.equal(response.status, 200);
      const { value } = await response.body!.getReader().read();
      stop.abort();
      assert.match(new TextDecoder().decode(value), /event: ready/);
    });

    test('every workspace write answers a viewer 403 and changes nothing, in the database or on the platform', async () => {
      const writes = operations.filter((op) => op.workspace && op.method !== 'GET');
      assert.ok(writes.length >= 30, `${writes.length} writes`);
      const before = await snapshot(t);
      const shopBefore = await heldListings(t, 'etsy', owner.account);
      const refused: string[] = [];
      for (const op of writes) {
        const answer = await send(viewer, op, writeRequest(op));
        assert.equal(answer.statusCode, 403, `${op.key}: ${answer.statusCode} ${answer.body}`);
        assert.deepEqual(answer.json(), FORBIDDEN, op.key);
        refused.push(op.key);
      }
      // The writes DESIGN §12 names for a member, among those refused.
      for (const key of [
        'POST /products',
        'PATCH /products/{product_id}',
        'DELETE /products/{product_id}',
        'POST /products/{product_id}/images',
        'POST /files',
        'POST /products/import',
        'POST /products/bulk-edit',
        'POST /sites/{site_id}/listings',
        'PATCH /listings/{listing_id}',
        'DELETE /listings/{listing_id}',
        'POST /sites/{site_id}/orders/sync',
        'PUT /sites/{site_id}/listing-settings',
        'POST /webhooks',
        'POST /listings/{listing_id}/advertising',
        'PATCH /workspaces/{workspace_id}/members/{user_id}',
      ])
        assert.ok(refused.includes(key), `${key} refused`);
      assert.deepEqual(await snapshot(t), before);
      assert.deepEqual(await heldListings(t, 'etsy', owner.account), shopBefore);
      // The refusals are security events, as any other 403 (docs/decisions.md; repeats within a window are one).
      const [denied] = await selectRows<{ n: number }>(
        t.database,
        sql`select count(*)::int as n from audit_events where action = 'authz.denied' and actor_user_id = ${viewer.user.id}`,
      );
      assert.ok(denied!.n >= 1);
    });

    test('a viewer’s personal access token is refused writes as their session is, and reads as well', async () => {
      const pat = await createPat(t, viewer.session);
      const created = await call(t, 'POST', '/products', { token: pat.token, workspace: owner.workspace.id, body: mug('VIEW-PAT') });
      assert.equal(created.statusCode, 403);
      assert.deepEqual(created.json(), FORBIDDEN);
      const listed = await call(t, 'GET', '/products', { token: pat.token, workspace: owner.workspace.id });
      assert.equal(listed.statusCode, 200);
      assert.ok(
        listed.json().data.some((p: { sku?: string; variants: { sku: string }[] }) => p.variants.some((v) => v.sku.startsWith('VIEW-MUG'))),
      );
    });

    test('a viewer cannot make themselves anything more, nor invite, nor change others', async () => {
      const ws = owner.workspace.id;
      const promote = await call(t, 'PATCH', `/workspaces/${ws}/members/${viewer.user.id}`, { ...as(viewer), body: { role: 'member' } });
      assert.equal(promote.statusCode, 403);
      assert.deepEqual(promote.json(), FORBIDDEN);
      const invite = await call(t, 'POST', `/workspaces/${ws}/invitations`, {
        ...as(viewer),
        body: { email: 'friend@example.com', role: 'viewer' },
      });
      assert.equal(invite.statusCode, 403);
      const members = (await call(t, 'GET', `/workspaces/${ws}/members`, as(viewer))).json().data;
      assert.deepEqual(Object.fromEntries(members.map((m: { user_id: number; role: string }) => [m.user_id, m.role])), {
        [owner.user.id]: 'owner',
        [member.user.id]: 'member',
        [viewer.user.id]: 'viewer',
      });
    });

    test('roles change to and from viewer: an admin may, a member may not; the change holds at the next request', async () => {
      const ws = owner.workspace.id;
      const admin = await registerUser(t);
      await join(admin, 'admin');
      const byMember = await call(t, 'PATCH', `/workspaces/${ws}/members/${viewer.user.id}`, { ...as(member), body: { role: 'viewer' } });
      assert.equal(byMember.statusCode, 403);
      const demoted = await call(t, 'PATCH', `/workspaces/${ws}/members/${member.user.id}`, { ...as(admin), body: { role: 'viewer' } });
      assert.equal(demoted.statusCode, 200, demoted.body);
      assert.equal(demoted.json().data.role, 'viewer');
      const refused = await call(t, 'POST', '/products', { ...as(member, ws), body: mug('VIEW-DEMOTED') });
      assert.equal(refused.statusCode, 403);
      const restored = await call(t, 'PATCH', `/workspaces/${ws}/members/${member.user.id}`, { ...as(admin), body: { role: 'member' } });
      assert.equal(restored.json().data.role, 'member');
      const created = await call(t, 'POST', '/products', { ...as(member, ws), body: mug('VIEW-RESTORED') });
      assert.equal(created.statusCode, 201, created.body);
      const audit = await selectRows<{ details: { from: string; to: string } }>(
        t.database,
        sql`select details from audit_events where workspace_id = ${ws} and action = 'member.role_changed' order by id`,
      );
      assert.deepEqual(
        audit.map((a) => [a.details.from, a.details.to]),
        [
          ['member', 'viewer'],
          ['viewer', 'member'],
        ],
      );
      const unknown = await call(t, 'PATCH', `/workspaces/${ws}/members/${member.user.id}`, { ...as(admin), body: { role: 'reader' } });
      assert.equal(unknown.statusCode, 422);
      assert.deepEqual(unknown.json().errors, { role: ['The selected role is invalid.'] });
    });

    test('a viewer may leave the workspace, and then reads nothing of it', async () => {
      const ws = owner.workspace.id;
      const left = await call(t, 'DELETE', `/workspaces/${ws}/members/${viewer.user.id}`, as(viewer));
      assert.equal(left.statusCode, 200, left.body);
      const after = await call(t, 'GET', '/products', as(viewer, ws));
      assert.equal(after.statusCode, 403);
      assert.deepEqual(after.json(), FORBIDDEN);
    });
  });
}
