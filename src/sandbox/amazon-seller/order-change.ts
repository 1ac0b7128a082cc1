/**
 * The ORDER_CHANGE notification of a sandbox order, payload version 1.0, as amzn/selling-partner-api-models
 * `schemas/notifications/OrderChangeNotification.json` shapes it (orders.md §3): the envelope (`NotificationVersion`,
 * `NotificationType`, `PayloadVersion`, `EventTime`, `NotificationMetadata` with the app, the subscription, the publish
 * time and a `NotificationId` to deduplicate on) around an order-level `OrderChangeNotification` whose `Summary` has
 * the order's status in the Orders v0 words (Pending, Unshipped, Shipped, Canceled), its marketplace, purchase date,
 * MFN fulfilment, StandardOrder type and items (`OrderItemId`, `SellerSKU`, `SupplySourceId`, `Quantity`,
 * `QuantityShipped`, `IsBuyerRequestedCancel`). No price: the schema has none (amzn/selling-partner-api-models#5062).
 * No buyer: `DestinationPostalCode`, required but nullable "when there is no related information", is null.
 * ASSUMPTION: that null (the sandbox keeps the fake buyer's address out of every notification, so a client that
 * stored it would have to take it from the Orders API's RECIPIENT dataset), `ChangeReason`'s wording for a status
 * change, `SupplySourceId` null (the seller has no supply sources), and the optional dates and programs left out.
 */
import { randomUUID } from 'node:crypto';
import type { SandboxOrderStatus, StoredOrder } from './orders-store.js';

const STATUS_WORDS: Readonly<Record<SandboxOrderStatus, string>> = {
  PENDING: 'Pending',
  UNSHIPPED: 'Unshipped',
  SHIPPED: 'Shipped',
  CANCELLED: 'Canceled',
};

const iso = (ms: number) => new Date(ms).toISOString();

/** The notification's JSON text, as the SQS message's body. */
export function buildOrderChangeBody(input: {
  order: Readonly<StoredOrder>;
  sellerId: string;
  applicationId: string;
  subscriptionId: string;
  now: number;
}): string {
  const { order, now } = input;
  const shipped = order.status === 'SHIPPED';
  const units = order.items.reduce((sum, item) => sum + item.quantity, 0);
  return JSON.stringify({
    NotificationVersion: '1.0',
    NotificationType: 'ORDER_CHANGE',
    PayloadVersion: '1.0',
    EventTime: iso(now),
    Payload: {
      OrderChangeNotification: {
        NotificationLevel: 'OrderLevel',
        SellerId: input.sellerId,
        AmazonOrderId: order.orderId,
        OrderChangeType: 'OrderStatusChange',
        OrderChangeTrigger: { TimeOfOrderChange: iso(order.updatedAt), ChangeReason: 'Order Status Changed' },
        Summary: {
          MarketplaceId: order.marketplaceId,
          OrderStatus: STATUS_WORDS[order.status],
          PurchaseDate: iso(order.createdAt),
          DestinationPostalCode: null,
          FulfillmentType: 'MFN',
          OrderType: 'StandardOrder',
          NumberOfItemsShipped: shipped ? units : 0,
          NumberOfItemsUnshipped: shipped || order.status === 'CANCELLED' ? 0 : units,
          OrderItems: order.items.map((item) => ({
            OrderItemId: item.orderItemId,
            SellerSKU: item.sku,
            SupplySourceId: null,
            Quantity: item.quantity,
            QuantityShipped: shipped ? item.quantity : 0,
            IsBuyerRequestedCancel: false,
          })),
        },
      },
    },
    NotificationMetadata: {
      ApplicationId: input.applicationId,
      SubscriptionId: input.subscriptionId,
      PublishTime: iso(now),
      NotificationId: randomUUID(),
    },
  });
}
