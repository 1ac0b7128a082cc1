/**
 * Pieces the orders pages share (DESIGN §14): the order's type, its statuses in words, the orders' address, the sandbox
 * account a site stands for, and the oversold alert shown on the dashboard and the Orders page.
 */
import { api, inWorkspace, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { Link } from '../router';
import { formatDate, PLATFORMS } from '../ui';

export type Order = components['schemas']['Order'];
export type OrderLine = Order['lines'][number];
export type OrderStatus = Order['status'];
export type StockMovement = components['schemas']['StockMovement'];
type Site = components['schemas']['Site'];

export const ORDER_STATUSES: { value: OrderStatus; label: string }[] = [
  { value: 'pending', label: 'Pending' },
  { value: 'open', label: 'Open' },
  { value: 'shipped', label: 'Shipped' },
  { value: 'completed', label: 'Completed' },
  { value: 'cancelled', label: 'Cancelled' },
];

export const orderStatusLabel = (status: OrderStatus) => ORDER_STATUSES.find((s) => s.value === status)?.label ?? status;

export interface OrderFilters {
  siteId: number | null;
  status: OrderStatus | null;
  sku: string;
  /** A day (YYYY-MM-DD), read as the start of that day where the seller is. */
  since: string;
  page: number;
}

export const ordersUrl = (workspaceId: string, filters: Partial<OrderFilters> = {}) => {
  const query = new URLSearchParams();
  if (filters.siteId) query.set('site_id', String(filters.siteId));
  if (filters.status) query.set('status', filters.status);
  if (filters.sku) query.set('sku', filters.sku);
  if (filters.since) query.set('since', filters.since);
  if (filters.page && filters.page > 1) query.set('page', String(filters.page));
  const search = query.toString();
  return `/workspace/${workspaceId}/orders${search ? `?${search}` : ''}`;
};

/** One order's own page. */
export const orderUrl = (workspaceId: string, orderId: number) => `/workspace/${workspaceId}/orders/${orderId}`;

/** The filters in the address, each kept only when it is one the API takes. */
export function filtersOf(search: URLSearchParams): OrderFilters {
  const status = search.get('status');
  const siteId = Math.floor(Number(search.get('site_id')));
  const since = search.get('since') ?? '';
  return {
    siteId: siteId > 0 ? siteId : null,
    status: ORDER_STATUSES.some((s) => s.value === status) ? (status as OrderStatus) : null,
    sku: (search.get('sku') ?? '').trim(),
    since: /^\d{4}-\d{2}-\d{2}$/.test(since) && !Number.isNaN(new Date(`${since}T00:00`).getTime()) ? since : '',
    page: Math.max(1, Math.floor(Number(search.get('page'))) || 1),
  };
}

/** Whether a line sold more than the pool held. */
export const isOversold = (line: OrderLine) => line.issues.some((issue) => issue.code === 'oversold');

/**
 * The sandbox account number a site of the simulator stands for, from its platform account's id (each simulator's
 * scheme: Etsy shop 80,000,000 + n, a TikTok Shop shop id ending in n's six digits, Amazon's `ASANDBOX` + n), or null.
 */
export function sandboxAccountOf(site: Pick<Site, 'platform' | 'external_id'>): number | null {
  const id = site.external_id;
  let account: number | null = null;
  if (site.platform === 'etsy' && /^\d+$/.test(id)) account = Number(id) - 80_000_000;
  if (site.platform === 'tiktok-shop' && /^\d+$/.test(id)) account = Number(BigInt(id) % 1_000_000n);
  if (site.platform === 'amazon-seller') account = Number(/^ASANDBOX(\d{6})$/.exec(id)?.[1] ?? Number.NaN);
  return account !== null && Number.isInteger(account) && account >= 1 && account <= 999_999 ? account : null;
}

/** What placing a sale on the sandbox came to: the platform's order id, or the simulator's refusal. */
export type SaleOutcome = { kind: 'placed'; id: string } | { kind: 'too-few'; message: string } | { kind: 'refused'; message: string };

/**
 * Places an order as a buyer would on the site's simulator (DESIGN §14, "Sandbox"). The simulators' buyer side is no
 * part of the API (no /api/v1 path, no OpenAPI operation, no auth), so this is the dashboard's one plain fetch.
 */
export async function placeSandboxSale(platform: string, account: number, line: { sku: string; quantity: number }): Promise<SaleOutcome> {
  const response = await fetch(`/sandbox/${platform}/accounts/${account}/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ lines: [line] }),
  });
  const body = (await response.json().catch(() => ({}))) as { id?: string; error?: string };
  if (response.ok && body.id) return { kind: 'placed', id: body.id };
  const message = body.error ?? `The sandbox refused the sale (HTTP ${response.status}).`;
  return response.status === 409 ? { kind: 'too-few', message } : { kind: 'refused', message };
}

/** At most this many of the newest orders are read for the alert: 5 pages of 100. */
const ALERT_PAGES = 5;

/**
 * The orders with a line oversold, among the newest 500 that are not cancelled (a cancelled order sold nothing to
 * make good). The API has no filter on issues, so the lines are looked at here.
 */
export async function loadOversold(workspaceId: string): Promise<Order[]> {
  const found: Order[] = [];
  for (let page = 1; page <= ALERT_PAGES; page++) {
    const answer = unwrap(
      await api.GET('/api/v1/orders', { params: { query: { page, per_page: 100 }, header: inWorkspace(workspaceId) } }),
    );
    found.push(...answer.data.filter((order) => order.status !== 'cancelled' && order.lines.some(isOversold)));
    if (page * 100 >= answer.meta.total) break;
  }
  return found;
}

/**
 * The alert a seller cannot miss: an `alert` region at the top of the page naming each oversold order, its sku and how
 * many units the pool could not cover, linking to the order on the platform and to the Orders page.
 */
export function OversoldAlert({
  orders: given,
  workspaceId,
  siteName,
}: {
  orders: Order[];
  workspaceId: string;
  siteName: (id: number) => string;
}) {
  const orders = given.filter((order) => order.lines.some(isOversold));
  if (orders.length === 0) return null;
  return (
    <section className="alert alert-error oversold" role="alert" aria-labelledby="oversold-heading">
      <h2 id="oversold-heading">
        {orders.length === 1 ? 'An order was oversold' : `${orders.length} orders were oversold`}: there is not enough stock to send
      </h2>
      <p>
        A buyer paid for more units than you had, most often the last unit sold on two sites at once. Cancel the order on its platform, or
        add the stock to the product and send it.
      </p>
      <ul>
        {orders.map((order) =>
          order.lines.filter(isOversold).map((line) => (
            <li key={`${order.id}-${line.external_id}`}>
              {line.sku ?? 'An item'}: {line.quantity - line.stock_taken} of {line.quantity} not in stock, order {order.external_id} on{' '}
              {siteName(order.site_id)} ({formatDate(order.placed_at)})
              {order.external_url && (
                <>
                  {' · '}
                  <a href={order.external_url} target="_blank" rel="noopener noreferrer">
                    Open order {order.external_id} on {platformOfId(order.platform_id)} ↗
                  </a>
                </>
              )}
            </li>
          )),
        )}
      </ul>
      <p>
        <Link href={ordersUrl(workspaceId)}>See every order</Link>
      </p>
    </section>
  );
}

/** The name a seller knows an order's platform by, from its `platform_id`. */
export const platformOfId = (platformId: number) => PLATFORMS.find((p) => p.id === platformId)?.name ?? 'the platform';
