/**
 * Amazon's order notifications (orders.md §3 "ORDER_CHANGE"): Amazon sends them to an Amazon SQS queue (or EventBridge),
 * never to an HTTP endpoint, so Storelink reads a queue of the operator's (`AMAZON_ORDER_QUEUE_*`, docs/orders.md).
 *
 * - **Destination** (Notifications API v1 `createDestination`, a grantless operation): the queue's ARN is made a
 *   destination once per region, with an LWA token of the client credentials grant and the scope
 *   `sellingpartnerapi::notifications`; one the app made before is found with `getDestinations` first.
 * - **Subscription** (`getSubscription`, then `createSubscription`, with the seller's own token): each seller is
 *   subscribed to ORDER_CHANGE on that destination, with the event filter the type requires (`eventFilterType`
 *   ORDER_CHANGE, `orderChangeTypes` OrderStatusChange and BuyerRequestedChange). A subscription to another destination
 *   (a queue the operator replaced) is deleted (`deleteSubscriptionById`, grantless) and made again.
 * - **The queue** (Amazon SQS's JSON protocol, each request signed with Signature Version 4 by the `aws4` library):
 *   `ReceiveMessage` long-polls up to 20 s for up to 10 messages; a message is removed (`DeleteMessageBatch`) only after
 *   it was acted on, so one taken by an instance that dies comes back after its visibility timeout.
 * - A message's body is an SP-API notification. Only its type, the app it is for, the seller and the order id are read:
 *   the order is then read whole with getOrder (its `Summary` has no price, and notifications repeat and come out of
 *   order), and no buyer field is read.
 */
import aws4 from 'aws4';
import Type from 'typebox';
import type { Clock } from '../../lib/clock.js';
import { PlatformError } from '../contracts/errors.js';
import type { ListingsCall } from '../contracts/listings.js';
import type { NotificationQueue, PlatformNotification, QueuedNotification } from '../contracts/notifications.js';
import { type PlatformHttp, readAnswer } from '../http.js';
import { parseBody } from '../parse.js';
import type { AmazonOrderQueue, AmazonSellerConfig } from './connect.js';
import type { AmazonMarketplace } from './listing-requests.js';
import { reader, readerOrGone } from './listing-responses.js';
import { createSpApi, marketplaceFor } from './sp-api.js';

/** `arn:aws:sqs:us-east-1:123456789012:name` → its region, account and name; null for anything else. */
export function readQueueArn(arn: string): { region: string; account: string; name: string } | null {
  const match = /^arn:aws[a-z-]*:sqs:([a-z0-9-]+):([0-9]{12}):([A-Za-z0-9_-]{1,80}(?:\.fifo)?)$/.exec(arn);
  return match ? { region: match[1]!, account: match[2]!, name: match[3]! } : null;
}

/** The queue's URL on AWS itself, as SQS forms it from the ARN's parts. */
export function queueUrlOf(arn: string): string | null {
  const parts = readQueueArn(arn);
  return parts && `https://sqs.${parts.region}.amazonaws.com/${parts.account}/${parts.name}`;
}

const SUBSCRIPTIONS_PATH = '/notifications/v1/subscriptions/ORDER_CHANGE';
const DESTINATIONS_PATH = '/notifications/v1/destinations';
const NOTIFICATIONS_SCOPE = 'sellingpartnerapi::notifications';
/** The payload version of ORDER_CHANGE the subscription asks for. */
export const ORDER_CHANGE_PAYLOAD_VERSION = '1.0';
/** What the subscription filters for: a status change (placed, paid, shipped, cancelled) and a buyer's cancel request. */
export const ORDER_CHANGE_TYPES = ['OrderStatusChange', 'BuyerRequestedChange'] as const;
/** SQS's most: 10 messages a receive, a 20 s long poll. */
export const RECEIVE_MAX = 10;
export const WAIT_SECONDS_MAX = 20;
/** How long a received message stays hidden from other readers before it is delivered again if not removed. */
export const VISIBILITY_SECONDS = 120;

const Subscription = Type.Object({ subscriptionId: Type.String({ minLength: 1 }), destinationId: Type.String({ minLength: 1 }) });
const GetSubscription = Type.Object({ payload: Subscription });
const Destination = Type.Object({
  destinationId: Type.String({ minLength: 1 }),
  resource: Type.Object({ sqs: Type.Optional(Type.Object({ arn: Type.String() })) }),
});
const GetDestinations = Type.Object({ payload: Type.Array(Destination) });
const CreateDestination = Type.Object({ payload: Destination });
const GrantlessToken = Type.Object({ access_token: Type.String({ minLength: 1 }) });
const Received = Type.Object({
  Messages: Type.Optional(Type.Array(Type.Object({ ReceiptHandle: Type.String({ minLength: 1 }), Body: Type.String() }))),
});
const Notification = Type.Object({
  NotificationType: Type.String(),
  Payload: Type.Object({
    OrderChangeNotification: Type.Optional(
      Type.Object({ SellerId: Type.String({ minLength: 1 }), AmazonOrderId: Type.String({ minLength: 1 }) }),
    ),
  }),
  NotificationMetadata: Type.Object({ ApplicationId: Type.String() }),
});

/**
 * A message's body in Storelink's words: an ORDER_CHANGE of this app is the seller's order changed; anything else
 * (another type, another app's, a body that is no notification) is null, removed unread.
 */
export function readOrderChange(body: string, appId: string): PlatformNotification | null {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return null;
  }
  const notification = parseBody(Notification, json);
  const change = notification?.Payload.OrderChangeNotification;
  if (!notification || notification.NotificationType !== 'ORDER_CHANGE' || !change) return null;
  if (notification.NotificationMetadata.ApplicationId !== appId) return null;
  return { kind: 'order_changed', accountId: change.SellerId, externalOrderId: change.AmazonOrderId };
}

/** SQS's JSON protocol error (`{__type, message}`): a throttle or 5xx is passing, any other the operator's to fix. */
function sqsFailure(status: number, body: unknown): PlatformError {
  const error = (body ?? {}) as { __type?: unknown; message?: unknown; Message?: unknown };
  const said = [error.__type, error.message ?? error.Message].filter((part) => typeof part === 'string').join(': ');
  const throttled = typeof error.__type === 'string' && /Throttl|RequestThrottled|OverLimit/.test(error.__type);
  if (status >= 500 || status === 429 || throttled)
    return new PlatformError('unavailable', `Amazon SQS could not complete the request (HTTP ${status}${said ? `, ${said}` : ''})`);
  return new PlatformError('misconfigured', `Amazon SQS refused Storelink's request (HTTP ${status}${said ? `, ${said}` : ''})`);
}

/** X-Amz-Date's form: `20261204T173000Z`. */
const amzDate = (at: Date) => at.toISOString().replace(/[:-]|\.\d{3}/g, '');

/** The SQS reader of the operator's queue: ReceiveMessage and DeleteMessageBatch, signed. */
export function createAmazonOrderQueue(
  config: AmazonSellerConfig & { orderQueue: AmazonOrderQueue },
  deps: { http: PlatformHttp; clock: Clock },
): NotificationQueue {
  const queue = config.orderQueue;
  // The JSON protocol is served at the endpoint's root; the queue is named in the body.
  const endpoint = new URL(queue.url.replace(/\/[^/]+\/[^/]+\/?$/, '/'));

  async function send(operation: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<unknown> {
    const json = { QueueUrl: queue.url, ...body };
    const signed = aws4.sign(
      {
        host: endpoint.host,
        path: endpoint.pathname,
        method: 'POST',
        service: 'sqs',
        region: queue.region,
        body: JSON.stringify(json),
        headers: {
          'Content-Type': 'application/x-amz-json-1.0',
          'X-Amz-Target': `AmazonSQS.${operation}`,
          'X-Amz-Date': amzDate(deps.clock.now()),
        },
      },
      { accessKeyId: queue.accessKeyId, secretAccessKey: queue.secretAccessKey },
    );
    const headers = Object.fromEntries(
      Object.entries(signed.headers ?? {})
        .map(([name, value]) => [name.toLowerCase(), String(value)])
        // fetch sets these two itself, to the same values.
        .filter(([name]) => name !== 'content-length' && name !== 'host'),
    );
    const answer = await deps.http.request(endpoint.href, { method: 'POST', headers, json, ...(signal ? { signal } : {}) });
    return readAnswer(answer, (status, parsed) => {
      if (status >= 400) throw sqsFailure(status, parsed);
      return parsed;
    });
  }

  return {
    platform: 'amazon-seller',
    receiveMax: RECEIVE_MAX,
    async receive(waitSeconds, signal): Promise<QueuedNotification[]> {
      const answer = await send(
        'ReceiveMessage',
        {
          MaxNumberOfMessages: RECEIVE_MAX,
          WaitTimeSeconds: Math.max(0, Math.min(WAIT_SECONDS_MAX, Math.floor(waitSeconds))),
          VisibilityTimeout: VISIBILITY_SECONDS,
        },
        signal,
      );
      const received = parseBody(Received, answer ?? {});
      if (!received) throw new PlatformError('unavailable', 'Amazon SQS answered a receive of an unexpected shape');
      return (received.Messages ?? []).map((message) => ({
        handle: message.ReceiptHandle,
        notification: readOrderChange(message.Body, config.appId),
      }));
    },
    async remove(handles) {
      for (let at = 0; at < handles.length; at += RECEIVE_MAX) {
        const entries = handles.slice(at, at + RECEIVE_MAX).map((handle, index) => ({ Id: String(index), ReceiptHandle: handle }));
        const answer = (await send('DeleteMessageBatch', { Entries: entries })) as { Failed?: { Id?: string; Code?: string }[] } | null;
        const failed = answer?.Failed ?? [];
        // One not removed comes back after its visibility timeout and is acted on again, which changes nothing.
        if (failed.length > 0)
          throw new PlatformError('unavailable', `Amazon SQS kept ${failed.length} message(s): ${failed.map((f) => f.Code).join(', ')}`);
      }
    },
  };
}

/**
 * The seller's ORDER_CHANGE subscription to the queue, made where missing: `subscribe(call)` answers what it found or
 * did. The destination of each region is found or made once, with a grantless token, and remembered.
 */
export function createOrderSubscriptions(config: AmazonSellerConfig & { orderQueue: AmazonOrderQueue }, deps: { http: PlatformHttp }) {
  const sp = createSpApi(config, deps.http);
  const destinations = new Map<string, Promise<string>>();

  async function grantlessToken(): Promise<string> {
    const answer = await deps.http.request(config.lwaTokenUrl, {
      method: 'POST',
      form: {
        grant_type: 'client_credentials',
        scope: NOTIFICATIONS_SCOPE,
        client_id: config.lwaClientId,
        client_secret: config.lwaClientSecret,
      },
    });
    return readAnswer(answer, (status, body) => {
      const token = status < 400 ? parseBody(GrantlessToken, body) : null;
      if (token) return token.access_token;
      if (status >= 500 || status === 429)
        throw new PlatformError('unavailable', `Login with Amazon could not grant a token (HTTP ${status})`);
      throw new PlatformError('misconfigured', `Login with Amazon refused the app a grantless token (HTTP ${status})`);
    });
  }

  /** A grantless call to the region's Notifications API, with a token of grantlessToken(). */
  async function grantless<T>(
    token: string,
    marketplace: AmazonMarketplace,
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    parse: (s: number, b: unknown) => T,
    json?: unknown,
  ) {
    const answer = await deps.http.request(`${config.regions[marketplace.region].apiUrl}${path}`, {
      method,
      headers: { 'x-amz-access-token': token },
      ...(json === undefined ? {} : { json }),
    });
    return readAnswer(answer, parse);
  }

  async function findOrMakeDestination(marketplace: AmazonMarketplace): Promise<string> {
    const arn = config.orderQueue.arn;
    const token = await grantlessToken();
    const ours = (list: { destinationId: string; resource: { sqs?: { arn: string } } }[]) =>
      list.find((destination) => destination.resource.sqs?.arn === arn)?.destinationId;
    const existing = ours((await grantless(token, marketplace, 'GET', DESTINATIONS_PATH, reader(GetDestinations))).payload);
    if (existing) return existing;
    const body = { name: 'storelink-orders', resourceSpecification: { sqs: { arn } } };
    const made = await grantless(
      token,
      marketplace,
      'POST',
      DESTINATIONS_PATH,
      (status, answer) =>
        // Another instance made it in between: it is listed now.
        status === 409 ? null : reader(CreateDestination)(status, answer),
      body,
    );
    if (made) return made.payload.destinationId;
    const listed = ours((await grantless(token, marketplace, 'GET', DESTINATIONS_PATH, reader(GetDestinations))).payload);
    if (!listed) throw new PlatformError('unavailable', 'Amazon said the queue is a destination already, but does not list it');
    return listed;
  }

  function destinationOf(marketplace: AmazonMarketplace): Promise<string> {
    let found = destinations.get(marketplace.region);
    if (!found) {
      found = findOrMakeDestination(marketplace);
      // A failure is not remembered: the next seller's read tries again.
      found.catch(() => destinations.delete(marketplace.region));
      destinations.set(marketplace.region, found);
    }
    return found;
  }

  return {
    async subscribe(call: ListingsCall): Promise<string> {
      const marketplace = marketplaceFor(call);
      const destinationId = await destinationOf(marketplace);
      const query = { payloadVersion: ORDER_CHANGE_PAYLOAD_VERSION };
      const current = await sp.send(call, marketplace, 'getSubscription', 'GET', SUBSCRIPTIONS_PATH, readerOrGone(GetSubscription), {
        query,
      });
      if (current?.payload.destinationId === destinationId) return 'subscribed to ORDER_CHANGE already';
      if (current)
        await grantless(
          await grantlessToken(),
          marketplace,
          'DELETE',
          `${SUBSCRIPTIONS_PATH}/${encodeURIComponent(current.payload.subscriptionId)}`,
          (status, body) => {
            if (status >= 400 && status !== 404) reader(Type.Object({}))(status, body);
            return null;
          },
        );
      const json = {
        payloadVersion: ORDER_CHANGE_PAYLOAD_VERSION,
        destinationId,
        processingDirective: { eventFilter: { eventFilterType: 'ORDER_CHANGE', orderChangeTypes: [...ORDER_CHANGE_TYPES] } },
      };
      await sp.send(
        call,
        marketplace,
        'createSubscription',
        'POST',
        SUBSCRIPTIONS_PATH,
        (status, body) => (status === 409 ? null : reader(GetSubscription)(status, body)),
        { json },
      );
      return current ? 'subscribed to ORDER_CHANGE on this queue, in place of another destination' : 'subscribed to ORDER_CHANGE';
    },
  };
}
