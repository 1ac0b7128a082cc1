/**
 * The product page's "Stock movements" section (why did my stock change?): every change of its variants' pool, newest
 * first, a page at a time (GET /products/stock-movements?product_id=), each with its reason, the order it came from
 * (linked) or the member who made it.
 */
import { useState } from 'react';
import { api, inWorkspace, unwrap } from '../api/client';
import { Link } from '../router';
import { ErrorMessage, formatDate, Loading, useRequest } from '../ui';
import { orderUrl, type StockMovement } from './order-parts';

const PER_PAGE = 20;

const REASON_LABEL: Record<StockMovement['reason'], string> = {
  edit: 'Changed in the catalogue',
  import: 'Imported',
  order: 'Sold',
  cancellation: 'Order cancelled: given back',
};

async function loadMovements(workspaceId: string, productId: number, page: number) {
  const query = { product_id: productId, page, per_page: PER_PAGE };
  const header = inWorkspace(workspaceId);
  const answer = unwrap(await api.GET('/api/v1/products/stock-movements', { params: { query, header } }));
  // A movement names Storelink's order id; the seller knows the order by the platform's, read once per order of the page.
  const ids = [...new Set(answer.data.flatMap((m) => (m.order_id === null ? [] : [m.order_id])))];
  const orders = await Promise.all(
    ids.map(async (id) => {
      const order = await api.GET('/api/v1/orders/{order_id}', { params: { path: { order_id: id }, header } });
      return [id, order.data?.data.external_id ?? String(id)] as const;
    }),
  );
  return { rows: answer.data, total: answer.meta.total, orderNames: new Map(orders) };
}

/** "+3", "−2". */
const signed = (delta: number) => (delta > 0 ? `+${delta}` : delta < 0 ? `−${-delta}` : '0');

export function StockMovements({ workspaceId, productId, version }: { workspaceId: string; productId: number; version: number }) {
  const [page, setPage] = useState(1);
  const movements = useRequest(
    () => loadMovements(workspaceId, productId, page),
    `movements-${workspaceId}-${productId}-${page}-${version}`,
  );
  const pages = movements.state === 'ready' ? Math.max(1, Math.ceil(movements.data.total / PER_PAGE)) : 1;
  return (
    <section className="card" aria-labelledby="movements-heading">
      <h2 id="movements-heading">Stock movements</h2>
      <p className="muted small">Why the stock changed, newest first: a sale on any site, a cancellation, an edit or an import.</p>
      {movements.state === 'loading' && <Loading what="the stock movements" />}
      {movements.state === 'error' && <ErrorMessage error={movements.error} title="Could not load the stock movements" />}
      {movements.state === 'ready' && movements.data.total === 0 && <p className="empty">No stock movements yet.</p>}
      {movements.state === 'ready' && movements.data.rows.length > 0 && (
        <div className="table-wrap">
          <table className="stack movements-table">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">SKU</th>
                <th scope="col" className="num">
                  Change
                </th>
                <th scope="col" className="num">
                  Stock after
                </th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {movements.data.rows.map((movement) => (
                <tr key={movement.id}>
                  <td data-label="When">{formatDate(movement.at)}</td>
                  <td data-label="SKU">
                    <code>{movement.sku}</code>
                  </td>
                  <td data-label="Change" className="num">
                    {signed(movement.delta)}
                  </td>
                  <td data-label="Stock after" className="num">
                    {movement.quantity_after}
                  </td>
                  <td data-label="Why">
                    <Why movement={movement} workspaceId={workspaceId} orderName={movements.data.orderNames.get(movement.order_id ?? 0)} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {pages > 1 && (
        <nav className="pagination" aria-label="Pages of stock movements">
          <button type="button" onClick={() => setPage((p) => p - 1)} disabled={page <= 1}>
            Newer
          </button>
          <span>
            Page {page} of {pages}
          </span>
          <button type="button" onClick={() => setPage((p) => p + 1)} disabled={page >= pages}>
            Older
          </button>
        </nav>
      )}
    </section>
  );
}

function Why({ movement, workspaceId, orderName }: { movement: StockMovement; workspaceId: string; orderName: string | undefined }) {
  return (
    <span>
      {REASON_LABEL[movement.reason] ?? movement.reason}
      {movement.order_id !== null && (
        <>
          {' · '}
          <Link href={orderUrl(workspaceId, movement.order_id)}>Order {orderName ?? movement.order_id}</Link>
        </>
      )}
      {movement.actor && <span className="muted small"> by {movement.actor.name}</span>}
    </span>
  );
}
