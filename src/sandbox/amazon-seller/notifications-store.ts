/**
 * The sandbox Amazon's Notifications API state (notifications.ts) and what it sends: destinations, the app's, per
 * region host, and subscriptions, per selling partner, region host and notification type; kept across restarts as a
 * state part (state.ts). When the orders store places an order or moves it to another status (orders-store.ts, driven
 * by the buyer's side in orders-sandbox.ts), the seller's ORDER_CHANGE subscription on the region host of the order's
 * marketplace, if its `orderChangeTypes` filter (when given) holds OrderStatusChange, puts one notification
 * (order-change.ts) on its destination's queue (sqs-queue.ts) before the change's answer is sent; none when the test
 * lost the track's notifications (`context.lostNotifications`).
 * ASSUMPTION: a new order is notified (the docs' "order status changes"; whether ORDER_CHANGE fires for a new order is
 * UNCONFIRMED, orders.md §3), destinations are per region host as every SP-API resource is, and a seller who revoked the
 * app is sent nothing.
 */
import type { AmazonRegion } from '../../domain/index.js';
import { SANDBOX_MARKETPLACES } from '../amazon-marketplaces.js';
import { isRevoked, SANDBOX_CLIENTS, type SandboxContext } from '../context.js';
import { sandboxSellerId } from '../lwa/simulator.js';
import { refill, registerStatePart } from '../state.js';
import { buildOrderChangeBody } from './order-change.js';
import { amazonOrdersOf, type StoredOrder } from './orders-store.js';
import { SANDBOX_QUEUE_ARN } from './sqs.js';
import { sandboxSqsQueueOf } from './sqs-queue.js';

export interface StoredDestination {
  destinationId: string;
  region: AmazonRegion;
  name: string;
  arn: string;
}

export interface StoredSubscription {
  subscriptionId: string;
  region: AmazonRegion;
  sellerId: string;
  notificationType: string;
  payloadVersion: string;
  destinationId: string;
  processingDirective: { eventFilter: { eventFilterType: string; orderChangeTypes?: string[] } };
}

/** The region whose SP-API host serves a marketplace; null for one no region has. */
function regionOf(marketplaceId: string): AmazonRegion | null {
  const found = Object.entries(SANDBOX_MARKETPLACES).find(([, marketplaces]) => marketplaces.some((each) => each.id === marketplaceId));
  return found ? (found[0] as AmazonRegion) : null;
}

export type NotificationsStore = ReturnType<typeof createNotificationsStore>;

function createNotificationsStore(context: SandboxContext) {
  const destinations = new Map<string, StoredDestination>();
  const subscriptions = new Map<string, StoredSubscription>();
  const queue = sandboxSqsQueueOf(context);
  registerStatePart(context.stateParts, 'amazon-seller:notifications', {
    save: () => ({ destinations, subscriptions }),
    load: (state) => {
      const saved = state as { destinations?: typeof destinations; subscriptions?: typeof subscriptions };
      refill(destinations, saved.destinations);
      refill(subscriptions, saved.subscriptions);
    },
  });

  const notify = (order: Readonly<StoredOrder>) => {
    const region = regionOf(order.marketplaceId);
    if (region === null || context.lostNotifications.has('amazon-seller') || isRevoked(context, 'amazon-seller', order.account)) return;
    const sellerId = sandboxSellerId(order.account);
    for (const subscription of subscriptions.values()) {
      if (subscription.region !== region || subscription.sellerId !== sellerId || subscription.notificationType !== 'ORDER_CHANGE')
        continue;
      const types = subscription.processingDirective.eventFilter.orderChangeTypes;
      if (types && !types.includes('OrderStatusChange')) continue;
      if (destinations.get(subscription.destinationId)?.arn !== SANDBOX_QUEUE_ARN) continue;
      queue.send(
        buildOrderChangeBody({
          order,
          sellerId,
          applicationId: SANDBOX_CLIENTS.amazonSeller.appId,
          subscriptionId: subscription.subscriptionId,
          now: context.clock.nowMs(),
        }),
      );
    }
  };
  amazonOrdersOf(context).onChange(notify);

  const inRegion = <T extends { region: AmazonRegion }>(found: T | undefined, region: AmazonRegion) =>
    found?.region === region ? found : undefined;

  return {
    destinationsIn: (region: AmazonRegion) => [...destinations.values()].filter((each) => each.region === region),
    destination: (region: AmazonRegion, destinationId: string) => inRegion(destinations.get(destinationId), region),
    addDestination(destination: StoredDestination): void {
      destinations.set(destination.destinationId, destination);
    },
    /** Deletes a destination no subscription uses; false when one does. */
    removeDestination(destinationId: string): boolean {
      if ([...subscriptions.values()].some((each) => each.destinationId === destinationId)) return false;
      return destinations.delete(destinationId);
    },
    /** The seller's subscription to a notification type on this region's host. */
    subscriptionOf: (region: AmazonRegion, sellerId: string, notificationType: string) =>
      [...subscriptions.values()].find(
        (each) => each.region === region && each.sellerId === sellerId && each.notificationType === notificationType,
      ),
    subscription: (region: AmazonRegion, subscriptionId: string) => inRegion(subscriptions.get(subscriptionId), region),
    addSubscription(subscription: StoredSubscription): void {
      subscriptions.set(subscription.subscriptionId, subscription);
    },
    removeSubscription: (subscriptionId: string) => subscriptions.delete(subscriptionId),
  };
}

const stores = new WeakMap<SandboxContext, NotificationsStore>();

/** The notifications state of a running sandbox, shared by the three regions' simulators. */
export function amazonNotificationsOf(context: SandboxContext): NotificationsStore {
  let store = stores.get(context);
  if (!store) stores.set(context, (store = createNotificationsStore(context)));
  return store;
}
