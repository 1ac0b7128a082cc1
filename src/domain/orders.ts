/** Orders and the stock pool (DESIGN §14): the words every layer shares. */

/** An order's state in Storelink's words; the platform's own word is kept beside it as `platform_status`. */
export const ORDER_STATUSES = ['pending', 'open', 'shipped', 'completed', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** The states whose lines hold units: every state but `cancelled` (a platform holds stock from checkout, before payment). */
export const takesStock = (status: OrderStatus): boolean => status !== 'cancelled';

/** Why a variant's quantity changed (`GET /products/stock-movements`). */
export const STOCK_REASONS = ['edit', 'import', 'order', 'cancellation'] as const;
export type StockReason = (typeof STOCK_REASONS)[number];
