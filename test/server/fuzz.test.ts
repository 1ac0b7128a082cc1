/**
 * Property-based fuzzing of every operation of the app's own OpenAPI document (issue 6): over 10,000 generated
 * requests per database, with real and broken credentials, workspaces, ids, query strings and bodies (JSON, and CSV
 * or multipart where an operation declares it). Every answer is below 500, every error is in the seed's shape, and a
 * rejected request leaves the database as it found it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { decodeJwt } from 'jose';
import { memberships, sites, webhookDeliveries } from '../../src/db/schema.js';
import { PRODUCT_IMAGES_MAX } from '../../src/domain/index.js';
import { databaseKinds, selectRows } from '../helpers/database.js';
import { tote } from '../helpers/fixtures.js';
import { materialize } from '../helpers/fuzz-materialize.js';
import {
  type Fixtures,
  type FuzzRequest,
  type Operation,
  operationsOf,
  type ProductFixture,
  requestArbitrary,
} from '../helpers/fuzz-requests.js';
import { API, call, createPat, createTestApp, registerUser, type TestApp } from '../helpers/test-app.js';

/** Per database: the two draw different requests (SEED_OF), 10,000 in all where both run. */
const RUNS = 5_000;
// Fixed so a failure reproduces; fast-check prints it with the counterexample's path.
const SEED_OF = { pglite: 20_260_601, postgres: 20_260_602 } as const;
// Columns an accepted read may change: last_used_at is written by the usage flush, not by the request's outcome.
const VOLATILE_COLUMNS: Record<string, string[]> = { access_tokens: ['last_used_at'] };
// Rows a refused request is meant to write: the security events of a failed login or a 403 (docs/decisions.md); and
// rows an accepted read may write: a search's total, kept once counted by a full page of GET /products?q= (a cache of
// a count, docs/catalogue.md "meta.total"; a refused request never reaches the count).
const VOLATILE_ROWS: Record<string, string> = {
  audit_events: "where action not in ('auth.login_failed', 'authz.denied')",
  product_search_totals: 'where false',
};

type User = Awaited<ReturnType<typeof registerUser>>;

/** One digest per table of every row (volatile columns left out), in one round trip; tables come from the catalog. */
async function snapshotQuery(t: TestApp) {
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
  return { tables, query: sql.raw(parts.join(' union all ')) };
}

async function insertSite(t: TestApp, workspaceId: number, platform: 'etsy' | 'amazon-seller', externalId: string): Promise<number> {
  const [row] = await t.database.db
    .insert(sites)
    .values({ workspaceId, platformId: platform === 'etsy' ? 1 : 5, platform, name: `Fuzz ${platform}`, externalId })
    .returning({ id: sites.id });
  return row!.id;
}

/** A webhook endpoint made through the API, and a delivery in its log, so the delivery routes have something to find. */
async function createWebhook(t: TestApp, user: User): Promise<{ webhook: number; delivery: number }> {
  const response = await call(t, 'POST', '/webhooks', {
    token: user.session,
    workspace: user.workspace.id,
    body: { url: 'http://127.0.0.1:9/hook', events: ['site.connected'] },
  });
  assert.equal(response.statusCode, 201, response.body);
  const webhook = response.json().data.id as number;
  const [delivery] = await t.database.db
    .insert(webhookDeliveries)
    .values({ endpointId: webhook, messageId: `msg_fuzz_${webhook}`, eventType: 'site.connected', payload: { type: 'site.connected' } })
    .returning({ id: webhookDeliveries.id });
  return { webhook, delivery: delivery!.id };
}

/** A product made through the API, with two variants and an image URL, so the product routes have something to find. */
async function createProduct(t: TestApp, user: User, prefix: string): Promise<{ id: number; skus: string[] }> {
  const { options, variants, ...product } = tote(prefix);
  const body = {
    ...product,
    options: options.slice(0, 1),
    variants: variants
      .filter((variant) => variant.option_values.Size === 'S')
      .map(({ option_values, ...variant }) => ({ ...variant, option_values: { Color: option_values.Color } })),
  };
  const response = await call(t, 'POST', '/products', { token: user.session, workspace: user.workspace.id, body });
  assert.equal(response.statusCode, 201, response.body);
  return { id: response.json().data.id as number, skus: body.variants.map((variant) => variant.sku) };
}

/** The state of an authorization URL and the track it is for. */
function stateOf(url: string, body: { platform_id?: unknown; site_id?: unknown }): { state: string; track: string } | null {
  const state = new URL(url).searchParams.get('state');
  const track =
    body.platform_id === 1 ? 'etsy' : body.platform_id === 4 ? 'tiktok-shop' : body.site_id !== undefined ? 'amazon-ads' : 'amazon-seller';
  return state ? { state, track } : null;
}

/** The oracle every answer must meet: below 500, redirects only from callbacks, errors in the seed's shape. */
function checkAnswer(
  operation: Operation,
  response: { statusCode: number; headers: Record<string, unknown>; body: string },
  label: () => string,
) {
  const { statusCode: status } = response;
  assert.ok(status < 500, `${label()}: ${response.body.slice(0, 500)}`);
  if (status >= 300 && status < 400) {
    assert.ok(operation.isCallback, `a redirect from ${label()}`);
    assert.ok(response.headers.location, `no Location: ${label()}`);
    return;
  }
  const declared = status < 300 ? operation.successContent[String(status)] : undefined;
  if (declared && declared.length === 0) return assert.equal(response.body, '', `a body with ${label()}`);
  if (declared && !declared.includes('application/json')) {
    const type = String(response.headers['content-type']).split(';')[0];
    return assert.ok(declared.includes(type!), `${type} is not what ${label()} declares`);
  }
  assert.match(String(response.headers['content-type']), /^application\/json/, `not JSON: ${label()}`);
  const body = JSON.parse(response.body);
  if (status < 300) return assert.equal(body.success, true, `no success:true: ${label()}`);
  const keys = Object.keys(body).sort();
  assert.deepEqual(
    keys,
    status === 422 && 'errors' in body ? ['code', 'errors', 'message', 'success'] : ['code', 'message', 'success'],
    `error keys: ${label()}: ${response.body.slice(0, 500)}`,
  );
  assert.equal(body.success, false);
  assert.equal(body.code, status, `error code: ${label()}`);
  assert.ok(typeof body.message === 'string' && body.message.trim().length > 0, `error message: ${label()}`);
  if ('errors' in body) {
    for (const [field, messages] of Object.entries(body.errors)) {
      assert.ok(
        Array.isArray(messages) && messages.length > 0 && messages.every((m) => typeof m === 'string' && m.length > 0),
        `errors.${field} of ${label()}`,
      );
    }
  }
}

for (const kind of databaseKinds()) {
  describe(`fuzzing every API operation [${kind}]`, () => {
    let t: TestApp;
    let operations: Operation[];
    let fixtures: Fixtures;
    let users: { a: User; b: User };
    let snapshot: () => Promise<Record<string, string>>;
    let productsMade = 0;
    /** The snapshot's xmax: it moves when any write transaction ends, on this database or (on PostgreSQL) beside it. */
    const lastTransaction = async () =>
      (await selectRows<{ xmax: string }>(t.database, sql`select pg_snapshot_xmax(pg_current_snapshot())::text as xmax`))[0]!.xmax;

    before(async () => {
      t = await createTestApp(kind, { env: { LOG_LEVEL: 'error' } });
      const [a, b, c] = [await registerUser(t), await registerUser(t), await registerUser(t)];
      users = { a, b };
      // B is a member of A's workspace, so the owner-and-admin routes see a member too.
      await t.database.db.insert(memberships).values({ workspaceId: a.workspace.id, userId: b.user.id, role: 'member' });
      const [pat, memberPat] = [await createPat(t, a.session, { expires_in_days: null }), await createPat(t, b.session)];
      const revoked = (await t.deps.accounts.login({ email: a.user.email, password: a.password })).token;
      assert.equal((await call(t, 'POST', '/auth/logout', { token: revoked })).statusCode, 200);
      const amazonSite = await insertSite(t, a.workspace.id, 'amazon-seller', 'FUZZSELLER');
      const [own, other] = [await createWebhook(t, a), await createWebhook(t, b)];
      fixtures = {
        tokens: { session: a.session, pat: pat.token, 'member-session': b.session, 'member-pat': memberPat.token, revoked, state: '' },
        workspaces: { own: a.workspace.id, other: b.workspace.id, foreign: c.workspace.id },
        ids: {
          pat: pat.id,
          'member-pat': memberPat.id,
          site: await insertSite(t, a.workspace.id, 'etsy', 'fuzz-shop'),
          'amazon-site': amazonSite,
          'other-site': await insertSite(t, b.workspace.id, 'etsy', 'fuzz-other-shop'),
          webhook: own.webhook,
          delivery: own.delivery,
          'other-webhook': other.webhook,
          'other-delivery': other.delivery,
          product: 0,
          'other-product': 0,
        },
        skus: { product: [], 'other-product': [] },
        states: [],
      };
      await makeProduct('product', a);
      await makeProduct('other-product', b);
      for (const body of [{ platform_id: 1 }, { platform_id: 4 }, { platform_id: 5 }, { platform_id: 5, site_id: amazonSite }]) {
        const response = await call(t, 'POST', '/authenticate-site', { token: a.session, workspace: a.workspace.id, body });
        assert.equal(response.statusCode, 200, response.body);
        fixtures.states.push(stateOf(response.json().data.url, body)!);
      }
      fixtures.tokens.state = fixtures.states[0]!.state;
      const { query } = await snapshotQuery(t);
      snapshot = async () =>
        Object.fromEntries((await selectRows<{ name: string; digest: string }>(t.database, query)).map((r) => [r.name, r.digest]));
      const document = await t.app.inject({ method: 'GET', url: `${API}/openapi.json` });
      // The live event stream never ends, so inject would wait for it for ever: test/server/events.test.ts covers it.
      operations = operationsOf(document.json()).filter((op) => !(op.method === 'GET' && op.template === `${API}/events`));
    });
    after(() => t.close());

    /** Makes a fixture product anew, with skus no earlier one had: an import may have taken those for another product. */
    async function makeProduct(name: ProductFixture, user: User) {
      const made = await createProduct(t, user, `FUZZ${++productsMade}`);
      fixtures.ids[name] = made.id;
      fixtures.skus[name] = made.skus;
    }

    /**
     * Puts back fixtures an accepted request used up: a logged-out session, a revoked PAT, a deleted webhook, a deleted
     * product or one with no image slot left.
     */
    async function repair() {
      const tokens = fixtures.tokens;
      const jtis = (['session', 'member-session', 'pat', 'member-pat'] as const).map(
        (who) => [who, String(decodeJwt(tokens[who]).jti)] as const,
      );
      const revoked = new Set(
        (
          await selectRows<{ jti: string }>(
            t.database,
            sql`select jti from access_tokens where revoked_at is not null and jti in (${sql.join(
              jtis.map(([, jti]) => sql`${jti}`),
              sql`, `,
            )})`,
          )
        ).map((r) => r.jti),
      );
      for (const [who, jti] of jtis) {
        if (!revoked.has(jti)) continue;
        const user = who.startsWith('member') ? users.b : users.a;
        const session = (await t.deps.accounts.login({ email: user.user.email, password: user.password })).token;
        if (who === 'session' || who === 'member-session') tokens[who] = user.session = session;
        else {
          const created = await createPat(t, user.session);
          tokens[who] = created.token;
          fixtures.ids[who] = created.id;
        }
      }
      const existing = new Set((await selectRows<{ id: number }>(t.database, sql`select id from webhook_endpoints`)).map((r) => r.id));
      for (const [webhook, delivery, user] of [
        ['webhook', 'delivery', users.a],
        ['other-webhook', 'other-delivery', users.b],
      ] as const) {
        if (existing.has(fixtures.ids[webhook])) continue;
        const created = await createWebhook(t, user);
        fixtures.ids[webhook] = created.webhook;
        fixtures.ids[delivery] = created.delivery;
      }
      // A product with every image slot taken refuses all uploads: it is used up as much as a deleted one.
      const { product, 'other-product': otherProduct } = fixtures.ids;
      const usable = new Set(
        (
          await selectRows<{ id: number }>(
            t.database,
            sql`select id from products p where id in (${product}, ${otherProduct})
                and (select count(*) from product_images i where i.product_id = p.id) < ${PRODUCT_IMAGES_MAX}`,
          )
        ).map((r) => r.id),
      );
      if (!usable.has(product)) await makeProduct('product', users.a);
      if (!usable.has(otherProduct)) await makeProduct('other-product', users.b);
    }

    test(`${RUNS} generated requests across every operation answer below 500, in the seed's error shape, and a rejected one changes no table`, async (context) => {
      const sent = new Map<string, Map<number, number>>(operations.map((op) => [`${op.method} ${op.template}`, new Map()]));
      let total = 0;
      let baseline = { xmax: await lastTransaction(), tables: await snapshot() };

      /**
       * Takes a full snapshot only when a write transaction has ended since the last look (the snapshot's xmax moved):
       * a request whose statements only read leaves xmax alone, and one that wrote must have left every row as it was.
       */
      async function checkUnchanged(mustNotChange: boolean, label: () => string) {
        const xmax = await lastTransaction();
        if (xmax === baseline.xmax) return;
        const [before, tables] = [baseline.tables, await snapshot()];
        // The new state becomes the baseline first, so shrinking a failure compares each candidate with its own before.
        baseline = { xmax, tables };
        if (mustNotChange) assert.deepEqual(tables, before, `${label()} changed the database`);
      }

      await fc.assert(
        fc.asyncProperty(requestArbitrary(operations), async (request: FuzzRequest) => {
          const operation = operations[request.operation]!;
          const options = materialize(request, operations, fixtures);
          const response = await t.app.inject(options);
          // The URL may carry a fixture's JWT (as a state); a failure message names the choice instead.
          const label = () =>
            `${response.statusCode} for ${options.method} ${options.url.replace(/eyJ[\w-]*\.[\w-]*\.[\w-]*/g, '<jwt>').slice(0, 200)} (${JSON.stringify(request).slice(0, 600)})`;
          total += 1;
          if (request.otherMethod === null) {
            const statuses = sent.get(`${operation.method} ${operation.template}`)!;
            statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
          }
          // A method the path has after all (DELETE sent to a GET's path) answers as that operation declares.
          const answering = operations.find((op) => op.template === operation.template && op.method === options.method) ?? operation;
          checkAnswer(answering, response, label);
          // Callbacks are GETs that may consume a state, but the generator only ever sends states that cannot be used.
          await checkUnchanged(response.statusCode >= 400 || operation.isCallback || options.method === 'GET', label);
          if (response.statusCode < 300 && options.method !== 'GET') {
            if (operation.template === `${API}/authenticate-site`) {
              const state = stateOf(response.json().data.url, JSON.parse(String(options.payload)));
              if (state) fixtures.states = [...fixtures.states.slice(-39), state];
            }
            await repair();
            await checkUnchanged(false, label);
          }
        }),
        { numRuns: RUNS, seed: SEED_OF[kind], includeErrorInReport: true },
      );

      for (const [operation, statuses] of sent) {
        context.diagnostic(
          `${operation}: ${[...statuses]
            .sort(([x], [y]) => x - y)
            .map(([status, n]) => `${status}×${n}`)
            .join(' ')}`,
        );
      }
      assert.ok(total >= RUNS, `${total} requests sent`);
      const missed = [...sent].filter(([, statuses]) => statuses.size === 0).map(([operation]) => operation);
      assert.deepEqual(missed, [], 'every operation of the OpenAPI document was fuzzed');
      // Authentication must not stop everything: each protected operation got past it at least once.
      const neverPast = [...sent]
        .filter(([, statuses]) => [...statuses.keys()].every((status) => status === 401 || status === 403))
        .map(([operation]) => operation);
      assert.deepEqual(neverPast, [], 'every operation answered something other than 401 and 403');
    });

    // Fastify meets such a path before routing; its `frameworkErrors` option hands the error to ours.
    test("a path with a malformed percent escape is 400 in the seed's error shape", async () => {
      const response = await t.app.inject({ method: 'DELETE', url: `${API}/personal-access-tokens/%zz` });
      assert.equal(response.statusCode, 400);
      assert.deepEqual(response.json(), { success: false, code: 400, message: 'Bad request' });
    });
  });
}
