/** An order and a stock movement as the API, their webhook events and the dashboard show them (DESIGN §14, §9). */
import type { OrderLineRow, OrderRecord, StockMovementRow } from '../../db/orders.repo.js';

export function presentLine(line: OrderLineRow) {
  return {
    external_id: line.externalId,
    sku: line.sku,
    product_id: line.productId,
    variant_id: line.variantId,
    quantity: line.quantity,
    price: line.price,
    stock_taken: line.stockTaken,
    stock_returned: line.stockReturned,
    issues: line.issues,
  };
}

export function presentOrder(order: OrderRecord) {
  return {
    id: order.id,
    site_id: order.siteId,
    platform_id: order.platformId,
    external_id: order.externalId,
    status: order.status,
    platform_status: order.platformStatus,
    currency: order.currency,
    total: order.total,
    placed_at: order.placedAt.toISOString(),
    platform_updated_at: order.platformUpdatedAt.toISOString(),
    external_url: order.externalUrl,
    history: order.history,
    lines: order.lines.map(presentLine),
    issues: order.issues,
    created_at: order.createdAt.toISOString(),
    updated_at: order.updatedAt.toISOString(),
  };
}

export type Order = ReturnType<typeof presentOrder>;

export function presentMovement(row: StockMovementRow, actor: { id: number; email: string; name: string } | null) {
  return {
    id: row.id,
    at: row.at.toISOString(),
    product_id: row.productId,
    variant_id: row.variantId,
    sku: row.sku,
    delta: row.delta,
    quantity_after: row.quantityAfter,
    reason: row.reason,
    order_id: row.orderId,
    actor,
  };
}
