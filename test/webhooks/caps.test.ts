/**
 * Caps (issue 12, item 5; red-team L5): PATs per user, webhook endpoints per workspace and redeliveries per message.
 * Each refusal is a clear 422 or 429 in the seed's error shape and writes nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { webhookDeliveries } from '../../src/db/schema.js';
import {
  MAX_ACTIVE_PATS_PER_USER,
  MAX_REDELIVERIES_PER_MESSAGE,
  MAX_WEBHOOKS_PER_WORKSPACE,
  REDELIVERY_WINDOW_MS,
} from '../../src/domain/index.js';
import { databaseKinds, selectRows } from '../helpers/database.js';
import { call, createPat, createTestApp, errorBody, registerUser, type TestApp } from '../helpers/test-app.js';

type Response = Awaited<ReturnType<typeof call>>;

function assertRetryAfter(response: Response, max: number) {
  const retryAfter = String(response.headers['retry-after']);
  assert.match(retryAfter, /^[0-9]+$/, `Retry-After: ${retryAfter}`);
  assert.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= max, `Retry-After: ${retryAfter}`);
}

function assertRateLimited(response: Response, message = 'Too many requests', maxRetryAfter = 60) {
  assert.deepEqual([response.statusCode, response.json()], [429, errorBody(429, message)]);
  assertRetryAfter(response, maxRetryAfter);
}

function assertCapped(response: Response, field: string, message: string) {
  assert.deepEqual(
    [response.statusCode, response.json()],
    [422, { ...errorBody(422, 'The given data was invalid.'), errors: { [field]: [message] } }],
  );
}

const count = async (t: TestApp, query: ReturnType<typeof sql>) => Number((await selectRows<{ n: string }>(t.database, query))[0]!.n);

for (const kind of databaseKinds()) {
  describe(`caps [${kind}]`, () => {
    let t: TestApp;
    before(async () => (t = await createTestApp(kind)));
    after(() => t.close());

    test(`a user's ${MAX_ACTIVE_PATS_PER_USER + 1}th active PAT is 422 and not created; revoking one makes room`, async () => {
      const { session, user } = await registerUser(t);
      const pats = [];
      for (let i = 0; i < MAX_ACTIVE_PATS_PER_USER; i++) pats.push(await createPat(t, session, { name: `pat ${i}` }));
      const rows = () => count(t, sql`select count(*) as n from access_tokens where user_id = ${user.id} and kind = 'pat'`);
      const before = await rows();
      const refused = await call(t, 'POST', '/personal-access-tokens', { token: session, body: { name: 'one more', expires_in_days: 30 } });
      assertCapped(
        refused,
        'personal_access_tokens',
        `You already have ${MAX_ACTIVE_PATS_PER_USER} active personal access tokens, the most allowed: revoke one you no longer use first.`,
      );
      assert.equal(await rows(), before);
      assert.equal((await call(t, 'DELETE', `/personal-access-tokens/${pats[0]!.id}`, { token: session })).statusCode, 200);
      await createPat(t, session, { name: 'in the freed place' });
    });

    test(`a workspace's ${MAX_WEBHOOKS_PER_WORKSPACE + 1}th webhook endpoint is 422 and not created; deleting one makes room`, async () => {
      const owner = await registerUser(t);
      const create = (i: number) =>
        call(t, 'POST', '/webhooks', {
          token: owner.session,
          workspace: owner.workspace.id,
          body: { url: `http://127.0.0.1:9/hook/${i}`, events: ['site.connected'] },
        });
      const ids: number[] = [];
      for (let i = 0; i < MAX_WEBHOOKS_PER_WORKSPACE; i++) {
        const response = await create(i);
        assert.equal(response.statusCode, 201, response.body);
        ids.push(response.json().data.id);
      }
      const endpoints = () => count(t, sql`select count(*) as n from webhook_endpoints where workspace_id = ${owner.workspace.id}`);
      assertCapped(
        await create(99),
        'webhooks',
        `This workspace already has ${MAX_WEBHOOKS_PER_WORKSPACE} webhook endpoints, the most allowed: delete one first.`,
      );
      assert.equal(await endpoints(), MAX_WEBHOOKS_PER_WORKSPACE);
      assert.equal(
        (await call(t, 'DELETE', `/webhooks/${ids[0]}`, { token: owner.session, workspace: owner.workspace.id })).statusCode,
        200,
      );
      assert.equal((await create(100)).statusCode, 201);
    });

    test(`the ${MAX_REDELIVERIES_PER_MESSAGE + 1}th redelivery of one message within an hour is 429 until the window moves on`, async () => {
      const owner = await registerUser(t);
      const hook = await call(t, 'POST', '/webhooks', {
        token: owner.session,
        workspace: owner.workspace.id,
        body: { url: 'http://127.0.0.1:9/hook', events: ['site.connected'] },
      });
      const endpointId = hook.json().data.id as number;
      const [delivery] = await t.database.db
        .insert(webhookDeliveries)
        .values({
          endpointId,
          messageId: 'msg_redeliveries',
          eventType: 'site.connected',
          payload: { type: 'site.connected' },
          createdAt: t.clock.now(),
        })
        .returning({ id: webhookDeliveries.id });
      const redeliver = () =>
        call(t, 'POST', `/webhooks/${endpointId}/deliveries/${delivery!.id}/redeliver`, {
          token: owner.session,
          workspace: owner.workspace.id,
        });
      for (let i = 0; i < MAX_REDELIVERIES_PER_MESSAGE; i++) assert.equal((await redeliver()).statusCode, 202, `redelivery ${i + 1}`);
      const rows = () => count(t, sql`select count(*) as n from webhook_deliveries where endpoint_id = ${endpointId}`);
      const before = await rows();
      assertRateLimited(
        await redeliver(),
        `This message was redelivered ${MAX_REDELIVERIES_PER_MESSAGE} times within an hour, the most allowed. Try again later.`,
        REDELIVERY_WINDOW_MS / 1000,
      );
      assert.equal(await rows(), before);
      t.clock.advance(REDELIVERY_WINDOW_MS);
      try {
        assert.equal((await redeliver()).statusCode, 202, 'an hour later');
      } finally {
        t.clock.advance(-REDELIVERY_WINDOW_MS);
      }
    });
  });
}
