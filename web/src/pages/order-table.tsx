/** An orders table: each order's platform id (linked to the order on the platform), site, statuses, total and lines. */
import { Link } from '../router';
import { formatDate } from '../ui';
import { isOversold, type Order, type OrderLine, orderStatusLabel, orderUrl, platformOfId } from './order-parts';
import { formatPrice, productUrl } from './product-parts';

export function OrderTable({ workspaceId, rows, siteName }: { workspaceId: string; rows: Order[]; siteName: (id: number) => string }) {
  return (
    <div className="table-wrap">
      <table className="stack orders-table">
        <thead>
          <tr>
            <th scope="col">Placed</th>
            <th scope="col">Order</th>
            <th scope="col">Site</th>
            <th scope="col">Status</th>
            <th scope="col" className="num">
              Total
            </th>
            <th scope="col">Lines</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((order) => (
            <tr key={order.id} className={order.lines.some(isOversold) ? 'order-oversold' : undefined}>
              <td data-label="Placed">{formatDate(order.placed_at)}</td>
              <td data-label="Order">
                <span>
                  <Link href={orderUrl(workspaceId, order.id)} aria-label={`Order ${order.external_id}, in Storelink`}>
                    <code>{order.external_id}</code>
                  </Link>
                  {order.external_url && (
                    <>
                      {' '}
                      <a
                        href={order.external_url}
                        target="_blank"
                        rel="noopener noreferrer"
                        aria-label={`Open order ${order.external_id} on ${platformOfId(order.platform_id)}`}
                      >
                        View on {platformOfId(order.platform_id)} ↗
                      </a>
                    </>
                  )}
                  {order.history && <span className="muted small"> Read as history: it took no stock.</span>}
                </span>
              </td>
              <td data-label="Site">
                <Link href={`/site/${order.site_id}/listings`}>{siteName(order.site_id)}</Link>
              </td>
              <td data-label="Status">
                <span>
                  <span className={`badge order-${order.status}`}>{orderStatusLabel(order.status)}</span>
                  <span className="muted small">
                    {' '}
                    {platformOfId(order.platform_id)}: {order.platform_status}
                  </span>
                </span>
              </td>
              <td data-label="Total" className="num">
                {order.total === null ? '—' : formatPrice(order.total, order.currency)}
              </td>
              <td data-label="Lines">
                <ul className="order-lines">
                  {order.lines.map((line) => (
                    <LineItem key={line.external_id} workspaceId={workspaceId} line={line} currency={order.currency} />
                  ))}
                </ul>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const ISSUE_LABEL: Record<string, string> = { oversold: 'Oversold', unknown_sku: 'Not in the catalogue' };

/** "2 × MUG-W at $18.00 · took 2 from stock", its product linked, and its issues. */
function LineItem({ workspaceId, line, currency }: { workspaceId: string; line: OrderLine; currency: string }) {
  const sku = line.sku ?? 'no SKU';
  return (
    <li>
      {line.quantity} × {line.product_id ? <Link href={productUrl(workspaceId, line.product_id)}>{sku}</Link> : <code>{sku}</code>}
      {line.price !== null && ` at ${formatPrice(line.price, currency)}`}
      <span className="muted small">
        {' · '}took {line.stock_taken} from stock
        {line.stock_returned > 0 && `, gave ${line.stock_returned} back`}
      </span>
      {line.issues.length > 0 && (
        <ul className="issues">
          {line.issues.map((issue) => (
            <li key={issue.code} className={`issue issue-${issue.severity}`}>
              <span className="issue-field">{ISSUE_LABEL[issue.code] ?? issue.code}:</span> {issue.message}
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}
