/**
 * The sandbox Amazon's order notifications (orders.md §3), driven over real HTTP as a client would: LWA's client
 * credentials grant, the Notifications API's destinations and subscriptions, and the SQS queue the ORDER_CHANGE
 * notifications land on, read in SQS's JSON protocol with requests signed by the `aws4` library (not the simulator's
 * own SigV4 code, which is checked against AWS's published example). A sale of the buyer's side puts one notification
 * on the queue, in the schema's shape, without the buyer; long polls, visibility timeouts and deletes behave as SQS's.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import { setAmazonSellerRateLimit } from '../../../src/sandbox/amazon-seller/listings-rate-limits.js';
import { SANDBOX_AMAZON_BUYER } from '../../../src/sandbox/amazon-seller/orders-store.js';
import { SANDBOX_QUEUE_ARN, sandboxQueueUrl, sigV4Signature } from '../../../src/sandbox/amazon-seller/sqs.js';
import { SANDBOX_CLIENTS } from '../../../src/sandbox/context.js';
import { amazonSellerGrant, sqsRequest } from '../../helpers/amazon-sandbox.js';
import { databaseKinds } from '../../helpers/database.js';
import { createTestApp, type TestApp } from '../../helpers/test-app.js';

const SELLER = SANDBOX_CLIENTS.amazonSeller;
const AWS = SANDBOX_CLIENTS.amazonSqs;
const NOTIFICATIONS = 'sellingpartnerapi::notifications';

test('the simulator computes the signature of AWS SigV4 documentation example', () => {
  // IAM User Guide, "Create a signed AWS API request": GET https://iam.amazonaws.com/?Action=ListUsers&Version=2010-05-08.
  const signature = sigV4Signature({
    secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
    amzDate: '20150830T123600Z',
    scope: { date: '20150830', region: 'us-east-1', service: 'iam' },
    request: {
      method: 'GET',
      path: '/',
      query: 'Version=2010-05-08&Action=ListUsers',
      headers: {
        'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
        host: 'iam.amazonaws.com',
        'x-amz-date': '20150830T123600Z',
      },
      signedHeaders: ['content-type', 'host', 'x-amz-date'],
      payloadHash: createHash('sha256').update('').digest('hex'),
    },
  });
  assert.equal(signature, '5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7');
});

interface Message {
  MessageId: string;
  ReceiptHandle: string;
  MD5OfBody: string;
  Body: string;
}

for (const kind of databaseKinds()) {
  describe(`Amazon order notifications through the sandbox's SQS [${kind}]`, () => {
    let t: TestApp;
    let base: string;
    let queueUrl: string;
    let appToken: string;
    let destinationId: string;
    let nextAccount = 700;

    /** One call to the sandbox's SQS, signed by `aws4` as a client signs it (`sign` overrides the key or the date). */
    async function sqs(operation: string, input: object, sign: Parameters<typeof sqsRequest>[3] = {}) {
      const response = await sqsRequest(t.deps.sandbox.sandboxUrl, operation, input, sign);
      return { status: response.status, headers: response.headers, body: (await response.json()) as any };
    }
    const receive = async (input: object = {}) => {
      const answer = await sqs('ReceiveMessage', { QueueUrl: queueUrl, ...input });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return (answer.body.Messages ?? []) as Message[];
    };
    /** Receives messages and deletes them at once, as a consumer does once it has acted on them. */
    async function take(input: object = {}) {
      const messages = await receive(input);
      for (const message of messages)
        assert.equal((await sqs('DeleteMessage', { QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle })).status, 200);
      return messages;
    }
    /** Receives and deletes what the queue shows, so each test starts from an empty queue (each deletes what it received). */
    async function drain() {
      for (;;) {
        const messages = await receive({ MaxNumberOfMessages: 10, VisibilityTimeout: 60 });
        if (messages.length === 0) return;
        const entries = messages.map((message, i) => ({ Id: `m${i}`, ReceiptHandle: message.ReceiptHandle }));
        assert.equal((await sqs('DeleteMessageBatch', { QueueUrl: queueUrl, Entries: entries })).status, 200);
      }
    }
    const queueCounts = async () => (await fetch(`${base}/sqs-queue`)).json();

    async function lwa(form: Record<string, string>, path = `${base}/auth/o2/token`) {
      const response = await fetch(path, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: SELLER.lwaClientId, client_secret: SELLER.lwaClientSecret, ...form }),
      });
      return { status: response.status, body: (await response.json()) as any };
    }

    /** One SP-API call on the region's host with a token (`region` '' for NA). */
    async function sp(token: string, method: string, path: string, body?: unknown, region = '') {
      const response = await fetch(`${base}${region}${path}`, {
        method,
        headers: { 'x-amz-access-token': token, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : null) as any };
    }

    /** A new sandbox seller through Seller Central's consent and LWA's code grant. */
    const connect = () => amazonSellerGrant(t, nextAccount++);
    const subscribe = (token: string, orderChangeTypes?: string[]) =>
      sp(token, 'POST', '/notifications/v1/subscriptions/ORDER_CHANGE', {
        payloadVersion: '1.0',
        destinationId,
        processingDirective: { eventFilter: { eventFilterType: 'ORDER_CHANGE', ...(orderChangeTypes ? { orderChangeTypes } : {}) } },
      });
    async function sell(account: number) {
      const response = await fetch(`${base}/accounts/${account}/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ lines: [{ sku: 'NOTIFY-UNLISTED', quantity: 2 }] }),
      });
      assert.equal(response.status, 201);
      return ((await response.json()) as { id: string }).id;
    }

    before(async () => {
      t = await createTestApp(kind, { listen: true });
      base = `${t.deps.sandbox.sandboxUrl}/amazon-seller`;
      queueUrl = sandboxQueueUrl(t.deps.sandbox.sandboxUrl);
      setAmazonSellerRateLimit(t.deps.sandbox, 1_000);
      const grant = await lwa({ grant_type: 'client_credentials', scope: NOTIFICATIONS });
      assert.equal(grant.status, 200);
      assert.deepEqual(Object.keys(grant.body).sort(), ['access_token', 'expires_in', 'scope', 'token_type']);
      assert.equal(grant.body.token_type, 'bearer');
      appToken = grant.body.access_token;
      const created = await sp(appToken, 'POST', '/notifications/v1/destinations', {
        name: 'storelink-orders',
        resourceSpecification: { sqs: { arn: SANDBOX_QUEUE_ARN } },
      });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      destinationId = created.body.payload.destinationId;
      assert.deepEqual(created.body.payload, { name: 'storelink-orders', destinationId, resource: { sqs: { arn: SANDBOX_QUEUE_ARN } } });
    });
    after(() => t.close());
    beforeEach(async () => {
      t.deps.sandbox.lostNotifications.clear();
      await drain();
    });

    test('an unsigned, wrongly signed, stale or unknown-key ReceiveMessage is refused as SQS refuses it', async () => {
      const input = { QueueUrl: queueUrl };
      const unsigned = await sqs('ReceiveMessage', input, null);
      assert.equal(unsigned.status, 403);
      assert.equal(unsigned.body.__type, 'com.amazon.coral.service#MissingAuthenticationTokenException');
      const wrong = await sqs('ReceiveMessage', input, { secretAccessKey: 'not-the-secret' });
      assert.equal(wrong.status, 403);
      assert.equal(wrong.body.__type, 'com.amazon.coral.service#InvalidSignatureException');
      assert.equal(wrong.headers.get('x-amzn-query-error'), 'SignatureDoesNotMatch;Sender');
      const stale = new Date(t.clock.now().getTime() - 16 * 60_000).toISOString().replace(/[:-]|\.\d{3}/g, '');
      const expired = await sqs('ReceiveMessage', input, { amzDate: stale });
      assert.equal(expired.status, 403);
      assert.match(expired.body.message, /^Signature expired: /);
      const stranger = await sqs('ReceiveMessage', input, { accessKeyId: 'AKIAEXAMPLESTRANGER0' });
      assert.equal(stranger.status, 403);
      assert.equal(stranger.headers.get('x-amzn-query-error'), 'InvalidClientTokenId;Sender');
    });

    test('a queue the sandbox does not have and an operation SQS does not know are refused', async () => {
      const other = await sqs('ReceiveMessage', { QueueUrl: queueUrl.replace(AWS.queueName, 'someone-elses-queue') });
      assert.equal(other.status, 400);
      assert.deepEqual(other.body, { __type: 'com.amazonaws.sqs#QueueDoesNotExist', message: 'The specified queue does not exist.' });
      assert.equal(other.headers.get('x-amzn-query-error'), 'AWS.SimpleQueueService.NonExistentQueue;Sender');
      const unknown = await sqs('Frobnicate', { QueueUrl: queueUrl });
      assert.equal(unknown.status, 400);
      assert.deepEqual(unknown.body, { __type: 'com.amazon.coral.service#UnknownOperationException' });
    });

    test('the destination is listed on its region host only, and a second one for its queue is a conflict', async () => {
      const listed = await sp(appToken, 'GET', '/notifications/v1/destinations');
      assert.equal(listed.status, 200);
      assert.deepEqual(
        listed.body.payload.map((each: { destinationId: string }) => each.destinationId),
        [destinationId],
      );
      assert.deepEqual((await sp(appToken, 'GET', '/notifications/v1/destinations', undefined, '/eu')).body, { payload: [] });
      const again = await sp(appToken, 'POST', '/notifications/v1/destinations', {
        name: 'again',
        resourceSpecification: { sqs: { arn: SANDBOX_QUEUE_ARN } },
      });
      assert.equal(again.status, 409);
      assert.equal(again.body.errors[0].code, 'Conflict');
    });

    test("a seller's token cannot create a destination, nor LWA grant a scope of no grantless operation", async () => {
      const seller = await connect();
      const refused = await sp(seller.token, 'POST', '/notifications/v1/destinations', {
        name: 'mine',
        resourceSpecification: { sqs: { arn: SANDBOX_QUEUE_ARN } },
      });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.errors[0].code, 'Unauthorized');
      const scope = await lwa({ grant_type: 'client_credentials', scope: 'sellingpartnerapi::orders' });
      assert.equal(scope.status, 400);
      assert.equal(scope.body.error, 'invalid_scope');
      const ads = await lwa(
        {
          grant_type: 'client_credentials',
          scope: NOTIFICATIONS,
          client_id: SANDBOX_CLIENTS.amazonAds.clientId,
          client_secret: SANDBOX_CLIENTS.amazonAds.clientSecret,
        },
        `${t.deps.sandbox.sandboxUrl}/amazon-ads/auth/o2/token`,
      );
      assert.equal(ads.body.error, 'unsupported_grant_type');
    });

    test('a seller subscribes to ORDER_CHANGE once, with an event filter', async () => {
      const seller = await connect();
      const bare = await sp(seller.token, 'POST', '/notifications/v1/subscriptions/ORDER_CHANGE', { payloadVersion: '1.0', destinationId });
      assert.equal(bare.status, 400);
      const created = await subscribe(seller.token, ['OrderStatusChange']);
      assert.equal(created.status, 200, JSON.stringify(created.body));
      assert.equal(created.body.payload.destinationId, destinationId);
      const read = await sp(seller.token, 'GET', '/notifications/v1/subscriptions/ORDER_CHANGE');
      assert.deepEqual(read.body, created.body);
      assert.equal((await subscribe(seller.token)).status, 409);
      const other = await connect();
      assert.equal((await sp(other.token, 'GET', '/notifications/v1/subscriptions/ORDER_CHANGE')).status, 404);
    });

    test('a sale and its cancellation each put one ORDER_CHANGE on the queue, without the buyer or a price', async () => {
      const seller = await connect();
      const subscriptionId = (await subscribe(seller.token)).body.payload.subscriptionId;
      const orderId = await sell(seller.account);
      const [sold, ...more] = await take({ MaxNumberOfMessages: 10 });
      assert.equal(more.length, 0);
      assert.equal(sold!.MD5OfBody, createHash('md5').update(sold!.Body).digest('hex'));
      for (const value of Object.values(SANDBOX_AMAZON_BUYER)) assert.ok(!sold!.Body.includes(value), value);
      assert.doesNotMatch(sold!.Body, /Price|Amount|Currency/);
      const notification = JSON.parse(sold!.Body);
      assert.deepEqual(Object.keys(notification).sort(), [
        'EventTime',
        'NotificationMetadata',
        'NotificationType',
        'NotificationVersion',
        'Payload',
        'PayloadVersion',
      ]);
      assert.equal(notification.NotificationType, 'ORDER_CHANGE');
      assert.equal(notification.PayloadVersion, '1.0');
      const change = notification.Payload.OrderChangeNotification;
      assert.equal(change.SellerId, seller.sellerId);
      assert.equal(change.AmazonOrderId, orderId);
      assert.equal(change.NotificationLevel, 'OrderLevel');
      assert.equal(change.OrderChangeType, 'OrderStatusChange');
      assert.equal(typeof change.OrderChangeTrigger.ChangeReason, 'string');
      for (const field of [
        'MarketplaceId',
        'OrderStatus',
        'PurchaseDate',
        'DestinationPostalCode',
        'FulfillmentType',
        'OrderType',
        'OrderItems',
      ])
        assert.ok(field in change.Summary, field);
      assert.equal(change.Summary.OrderStatus, 'Unshipped');
      assert.equal(change.Summary.FulfillmentType, 'MFN');
      assert.deepEqual(
        change.Summary.OrderItems.map((item: Record<string, unknown>) => [
          item.SellerSKU,
          item.Quantity,
          'OrderItemId' in item,
          'SupplySourceId' in item,
        ]),
        [['NOTIFY-UNLISTED', 2, true, true]],
      );
      assert.equal(notification.NotificationMetadata.ApplicationId, SELLER.appId);
      assert.equal(notification.NotificationMetadata.SubscriptionId, subscriptionId);
      assert.match(notification.NotificationMetadata.NotificationId, /^[0-9a-f-]{36}$/);

      const cancel = await fetch(`${base}/accounts/${seller.account}/orders/${orderId}/cancel`, { method: 'POST' });
      assert.equal(cancel.status, 204);
      const [cancelled, ...others] = await take({ MaxNumberOfMessages: 10 });
      assert.equal(others.length, 0);
      assert.equal(JSON.parse(cancelled!.Body).Payload.OrderChangeNotification.Summary.OrderStatus, 'Canceled');
    });

    test('a seller without a subscription, or one filtering status changes out, is sent nothing, nor are lost notifications', async () => {
      await sell((await connect()).account);
      const buyerChangesOnly = await connect();
      await subscribe(buyerChangesOnly.token, ['BuyerRequestedChange']);
      await sell(buyerChangesOnly.account);
      const subscribed = await connect();
      await subscribe(subscribed.token);
      t.deps.sandbox.lostNotifications.add('amazon-seller');
      await sell(subscribed.account);
      assert.deepEqual(await queueCounts(), { visible: 0, inFlight: 0 });
      assert.deepEqual((await sqs('ReceiveMessage', { QueueUrl: queueUrl, WaitTimeSeconds: 0 })).body, {});
    });

    test('a long poll started before a sale answers with its notification', async () => {
      const seller = await connect();
      await subscribe(seller.token);
      const polling = take({ WaitTimeSeconds: 5 });
      await new Promise((resolve) => setTimeout(resolve, 50));
      const orderId = await sell(seller.account);
      const messages = await polling;
      assert.equal(messages.length, 1);
      assert.equal(JSON.parse(messages[0]!.Body).Payload.OrderChangeNotification.AmazonOrderId, orderId);
    });

    test('an undeleted message comes back with a new receipt handle after its visibility timeout; a deleted one never', async () => {
      const seller = await connect();
      await subscribe(seller.token);
      await sell(seller.account);
      const [first] = await receive({ VisibilityTimeout: 1 });
      assert.deepEqual(await receive(), []);
      t.clock.advance(1_000);
      const [again] = await receive({ VisibilityTimeout: 30 });
      assert.equal(again!.MessageId, first!.MessageId);
      assert.notEqual(again!.ReceiptHandle, first!.ReceiptHandle);
      // The first receive's handle is stale: SQS answers success, and the message stays.
      assert.equal((await sqs('DeleteMessage', { QueueUrl: queueUrl, ReceiptHandle: first!.ReceiptHandle })).status, 200);
      assert.deepEqual(await queueCounts(), { visible: 0, inFlight: 1 });
      const batch = await sqs('DeleteMessageBatch', {
        QueueUrl: queueUrl,
        Entries: [
          { Id: 'current', ReceiptHandle: again!.ReceiptHandle },
          { Id: 'made-up', ReceiptHandle: 'not-a-receipt-handle' },
        ],
      });
      assert.deepEqual(batch.body.Successful, [{ Id: 'current' }]);
      assert.deepEqual(
        batch.body.Failed.map((each: { Id: string; Code: string }) => [each.Id, each.Code]),
        [['made-up', 'ReceiptHandleIsInvalid']],
      );
      t.clock.advance(31_000);
      assert.deepEqual(await receive(), []);
      assert.deepEqual(await queueCounts(), { visible: 0, inFlight: 0 });
    });
  });
}

test("closing the app answers a long poll at once, rather than waiting out the poll's 20 s", async () => {
  const t = await createTestApp('pglite', { listen: true });
  const polling = sqsRequest(t.deps.sandbox.sandboxUrl, 'ReceiveMessage', {
    QueueUrl: sandboxQueueUrl(t.deps.sandbox.sandboxUrl),
    WaitTimeSeconds: 20,
  });
  const received = () => t.deps.sandbox.calls.get('amazon-seller:sqs.ReceiveMessage') ?? 0;
  while (received() === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  // As the server's shutdown closes it (src/main.ts): the requests under way are waited for.
  const closing = performance.now();
  await t.app.close();
  const answer = await polling;
  await t.close();
  assert.deepEqual([answer.status, await answer.json()], [200, {}], 'the poll is answered, with nothing');
  assert.ok(performance.now() - closing < 10_000, 'well before the poll would have ended');
});
