/**
 * The Notifications API v1 of the sandbox Amazon (orders.md §3; amzn/selling-partner-api-models
 * `models/notifications-api-model/notifications.json`), on each region's SP-API host, behind the listings' guard with
 * the model's usage plan (1 a second, burst 5, every operation). State and delivery: notifications-store.ts.
 * - Grantless (a token of LWA's client credentials grant with `sellingpartnerapi::notifications`; a seller's token is
 *   refused 403 Unauthorized, jrl84/amazon-sp-api#20): createDestination `POST /notifications/v1/destinations`
 *   `{name, resourceSpecification: {sqs: {arn}}}`, getDestinations, getDestination and deleteDestination
 *   (`…/destinations/{destinationId}`; one with subscriptions is refused 403 Unauthorized "The requested action is
 *   forbidden." "Destination has subscriptions", selling-partner-api-docs#1800), getSubscriptionById and
 *   deleteSubscriptionById (`…/subscriptions/{notificationType}/{subscriptionId}`). A second destination for an ARN the
 *   app already has is 409 Conflict "The requested resource conflict with a resource in the server." (#1800, #2072).
 * - With the seller's access token (createSubscription is not grantless, selling-partner-api-models#4491):
 *   createSubscription `POST /notifications/v1/subscriptions/{notificationType}` `{payloadVersion, destinationId,
 *   processingDirective}` and getSubscription `GET …/{notificationType}` (optional `payloadVersion`). ORDER_CHANGE needs
 *   `processingDirective.eventFilter` (abuzuhri/Amazon-SP-API-CSharp#621, jlevers/selling-partner-api#885: "Processing
 *   Directive eventFilter must not be empty") of `eventFilterType` ORDER_CHANGE with optional `orderChangeTypes`, and
 *   refuses `marketplaceIds` (selling-partner-api-models#4135: "EventFilter Payload … failed to validate for
 *   notification type ORDER_CHANGE"). A second subscription of the seller to the type is 409 StateConflict "The
 *   resource specified conflicts with the current state." "Subscription already exist for notification type …"
 *   (selling-partner-api-docs#3448).
 * ASSUMPTION: an ARN of a queue the sandbox does not have (every one but SANDBOX_QUEUE_ARN) and EventBridge are 400
 * InvalidInput, as Amazon refuses a queue it cannot write to; an unknown destinationId is 400 InvalidInput with the
 * model's sendTestNotification wording; ORDER_CHANGE's filter refuses `aggregationSettings` and `filterExpression` as it
 * refuses `marketplaceIds`; notification types other than ORDER_CHANGE are refused (the sandbox delivers none); a
 * `payloadVersion` that is not the subscription's is 404 on getSubscription; the details of 404 NotFound; the usage
 * plans are kept per selling partner, and per application for the grantless operations (listings-guard.ts).
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AmazonRegion } from '../../domain/index.js';
import { SANDBOX_CLIENTS, type SandboxContext } from '../context.js';
import type { LwaSimulator } from '../lwa/simulator.js';
import { createSpApiGuard, spApiErrors } from './listings-guard.js';
import type { SpApiOperation } from './listings-rate-limits.js';
import { amazonNotificationsOf, type StoredDestination, type StoredSubscription } from './notifications-store.js';
import { SANDBOX_QUEUE_ARN } from './sqs.js';

const SCOPE = 'sellingpartnerapi::notifications';
const INVALID_INPUT = 'Request has missing or invalid parameters and cannot be parsed.';
const NOT_FOUND = 'The resource specified does not exist.';
const ORDER_CHANGE_TYPES = ['BuyerRequestedChange', 'DeliveryTipChange', 'OrderStatusChange'];
const NAME_MAX = 256;
const ARN_PATTERN = /^arn:aws:sqs:\S+:\S+:\S+/;
type Body = Record<string, unknown>;

const presentDestination = (destination: StoredDestination) => ({
  name: destination.name,
  destinationId: destination.destinationId,
  resource: { sqs: { arn: destination.arn } },
});

const presentSubscription = (subscription: StoredSubscription) => ({
  subscriptionId: subscription.subscriptionId,
  payloadVersion: subscription.payloadVersion,
  destinationId: subscription.destinationId,
  processingDirective: subscription.processingDirective,
});

const objectOf = (value: unknown): Body | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Body) : null;

/** The destination a createDestination body asks for, or the InvalidInput details refusing it. */
function readDestination(body: Body): { name: string; arn: string } | string {
  if (typeof body.name !== 'string' || body.name === '' || body.name.length > NAME_MAX) return `name must be 1 to ${NAME_MAX} characters.`;
  const specification = objectOf(body.resourceSpecification);
  if (!specification) return 'resourceSpecification is required.';
  if (specification.eventBridge !== undefined)
    return 'The sandbox delivers notifications to SQS only: resourceSpecification.eventBridge is not served.';
  const arn = objectOf(specification.sqs)?.arn;
  if (typeof arn !== 'string' || !ARN_PATTERN.test(arn) || arn.length > 1000)
    return 'resourceSpecification.sqs.arn must be an SQS queue ARN.';
  return { name: body.name, arn };
}

/** ORDER_CHANGE's processing directive, or the InvalidInput details refusing it. */
function readOrderChangeDirective(value: unknown): StoredSubscription['processingDirective'] | string {
  const filter = objectOf(objectOf(value)?.eventFilter);
  if (!filter || Object.keys(filter).length === 0) return 'Processing Directive eventFilter must not be empty';
  const types = filter.orderChangeTypes;
  const known = ['eventFilterType', 'orderChangeTypes'];
  const valid =
    filter.eventFilterType === 'ORDER_CHANGE' &&
    Object.keys(filter).every((name) => known.includes(name)) &&
    (types === undefined || (Array.isArray(types) && types.every((type) => ORDER_CHANGE_TYPES.includes(type as string))));
  if (!valid || objectOf(value)?.filterExpression !== undefined)
    return `EventFilter Payload ${JSON.stringify(filter)} failed to validate for notification type ORDER_CHANGE`;
  return {
    eventFilter: { eventFilterType: 'ORDER_CHANGE', ...(types === undefined ? {} : { orderChangeTypes: [...(types as string[])] }) },
  };
}

/** InvalidInput for a notification type the path may not name; null for ORDER_CHANGE. */
function typeProblem(notificationType: string): string | null {
  if (notificationType === 'ORDER_CHANGE') return null;
  if (!/^[A-Z][A-Z0-9_]*$/.test(notificationType)) return `Invalid value "${notificationType}" for path parameter notificationType`;
  return `The sandbox delivers ORDER_CHANGE notifications only; ${notificationType} is not served.`;
}

export function registerAmazonNotificationsApi(app: FastifyInstance, context: SandboxContext, region: AmazonRegion, lwa: LwaSimulator) {
  const guard = createSpApiGuard(context, lwa, region);
  const store = amazonNotificationsOf(context);
  const grantless = (request: Parameters<typeof guard.admitGrantless>[0], reply: FastifyReply, operation: SpApiOperation) =>
    guard.admitGrantless(request, reply, { operation, scope: SCOPE });
  const refuse = (reply: FastifyReply, status: number, code: string, message: string, details = '') =>
    reply.code(status).send(spApiErrors(code, message, details));
  const invalid = (reply: FastifyReply, details: string) => refuse(reply, 400, 'InvalidInput', INVALID_INPUT, details);

  void app.register(async (spApi) => {
    spApi.post('/notifications/v1/destinations', async (request, reply) => {
      if (!(await grantless(request, reply, 'createDestination'))) return reply;
      const wanted = readDestination(objectOf(request.body) ?? {});
      if (typeof wanted === 'string') return invalid(reply, wanted);
      if (store.destinationsIn(region).some((each) => each.arn === wanted.arn)) {
        const details = `A destination with arn ${wanted.arn} already exists for the application ${SANDBOX_CLIENTS.amazonSeller.appId}`;
        return refuse(reply, 409, 'Conflict', 'The requested resource conflict with a resource in the server.', details);
      }
      if (wanted.arn !== SANDBOX_QUEUE_ARN)
        return invalid(
          reply,
          `The SQS queue ${wanted.arn} does not exist or does not allow the Selling Partner API to send messages to it.`,
        );
      const destination: StoredDestination = { destinationId: randomUUID(), region, ...wanted };
      store.addDestination(destination);
      return reply.send({ payload: presentDestination(destination) });
    });

    spApi.get('/notifications/v1/destinations', async (request, reply) => {
      if (!(await grantless(request, reply, 'getDestinations'))) return reply;
      return reply.send({ payload: store.destinationsIn(region).map(presentDestination) });
    });

    spApi.get('/notifications/v1/destinations/:destinationId', async (request, reply) => {
      if (!(await grantless(request, reply, 'getDestination'))) return reply;
      const destination = store.destination(region, (request.params as { destinationId: string }).destinationId);
      return destination ? reply.send({ payload: presentDestination(destination) }) : refuse(reply, 404, 'NotFound', NOT_FOUND);
    });

    spApi.delete('/notifications/v1/destinations/:destinationId', async (request, reply) => {
      if (!(await grantless(request, reply, 'deleteDestination'))) return reply;
      const destination = store.destination(region, (request.params as { destinationId: string }).destinationId);
      if (!destination) return refuse(reply, 404, 'NotFound', NOT_FOUND);
      if (!store.removeDestination(destination.destinationId))
        return refuse(reply, 403, 'Unauthorized', 'The requested action is forbidden.', 'Destination has subscriptions');
      return reply.send({});
    });

    spApi.post('/notifications/v1/subscriptions/:notificationType', async (request, reply) => {
      const { notificationType } = request.params as { notificationType: string };
      const caller = await guard.admit(request, reply, { operation: 'createSubscription', fault: 'listings' });
      if (!caller) return reply;
      const problem = typeProblem(notificationType);
      if (problem) return invalid(reply, problem);
      const body = objectOf(request.body) ?? {};
      if (typeof body.payloadVersion !== 'string' || typeof body.destinationId !== 'string')
        return invalid(reply, 'payloadVersion and destinationId are required.');
      if (body.payloadVersion !== '1.0')
        return invalid(reply, `Payload version ${body.payloadVersion} is not supported for notification type ${notificationType}`);
      const directive = readOrderChangeDirective(body.processingDirective);
      if (typeof directive === 'string') return invalid(reply, directive);
      if (!store.destination(region, body.destinationId))
        return invalid(
          reply,
          'Invalid Input, recheck that the AppId and DestinationId are valid and DestinationId belongs to the application',
        );
      if (store.subscriptionOf(region, caller.sellerId, notificationType)) {
        const details = `Subscription already exist for notification type ${notificationType}`;
        return refuse(reply, 409, 'StateConflict', 'The resource specified conflicts with the current state.', details);
      }
      const subscription: StoredSubscription = {
        subscriptionId: randomUUID(),
        region,
        sellerId: caller.sellerId,
        notificationType,
        payloadVersion: body.payloadVersion,
        destinationId: body.destinationId,
        processingDirective: directive,
      };
      store.addSubscription(subscription);
      return reply.send({ payload: presentSubscription(subscription) });
    });

    spApi.get('/notifications/v1/subscriptions/:notificationType', async (request, reply) => {
      const { notificationType } = request.params as { notificationType: string };
      const caller = await guard.admit(request, reply, { operation: 'getSubscription', fault: 'listings' });
      if (!caller) return reply;
      const problem = typeProblem(notificationType);
      if (problem) return invalid(reply, problem);
      const subscription = store.subscriptionOf(region, caller.sellerId, notificationType);
      const version = caller.query.payloadVersion;
      if (!subscription || (version !== undefined && version !== subscription.payloadVersion))
        return refuse(reply, 404, 'NotFound', NOT_FOUND);
      return reply.send({ payload: presentSubscription(subscription) });
    });

    const subscriptionOfPath = (params: unknown) => {
      const { notificationType, subscriptionId } = params as { notificationType: string; subscriptionId: string };
      const found = store.subscription(region, subscriptionId);
      return found?.notificationType === notificationType ? found : undefined;
    };

    spApi.get('/notifications/v1/subscriptions/:notificationType/:subscriptionId', async (request, reply) => {
      if (!(await grantless(request, reply, 'getSubscriptionById'))) return reply;
      const subscription = subscriptionOfPath(request.params);
      return subscription ? reply.send({ payload: presentSubscription(subscription) }) : refuse(reply, 404, 'NotFound', NOT_FOUND);
    });

    spApi.delete('/notifications/v1/subscriptions/:notificationType/:subscriptionId', async (request, reply) => {
      if (!(await grantless(request, reply, 'deleteSubscriptionById'))) return reply;
      const subscription = subscriptionOfPath(request.params);
      if (!subscription) return refuse(reply, 404, 'NotFound', NOT_FOUND);
      store.removeSubscription(subscription.subscriptionId);
      return reply.send({});
    });
  });
}
