/**
 * One endpoint's deliveries, newest first and a page at a time: each one's event, status, attempts, the endpoint's last
 * answer (status code or error) and when it is tried next; Redeliver sends its message again, as a new delivery with
 * the same webhook-id (the message id shown under the event), so a receiver that keeps the ids handles it once.
 */
import { useRef, useState } from 'react';
import { api, inWorkspace, unwrap } from '../api/client';
import { refusalOf } from '../roles';
import { ErrorMessage, formatDate, Loading, Notice, useRequest } from '../ui';

const PER_PAGE = 20;

const STATUS_LABEL = { pending: 'Pending', delivered: 'Delivered', failed: 'Failed' } as const;

async function loadDeliveries(workspaceId: string, endpointId: number, page: number) {
  const answer = unwrap(
    await api.GET('/api/v1/webhooks/{webhook_id}/deliveries', {
      params: { path: { webhook_id: endpointId }, query: { page, per_page: PER_PAGE }, header: inWorkspace(workspaceId) },
    }),
  );
  return { rows: answer.data, total: answer.meta.total };
}
type Delivery = Awaited<ReturnType<typeof loadDeliveries>>['rows'][number];

/** The endpoint's last answer in words: "HTTP 500", the error, or nothing yet. */
function lastAnswer(delivery: Delivery): string {
  const parts = [delivery.last_status_code === null ? null : `HTTP ${delivery.last_status_code}`, delivery.last_error].filter(Boolean);
  return parts.length > 0 ? parts.join(': ') : '—';
}

function when(delivery: Delivery): string {
  if (delivery.status === 'delivered') return `Delivered ${formatDate(delivery.delivered_at)}`;
  if (delivery.status === 'pending') return delivery.next_attempt_at ? `Next try ${formatDate(delivery.next_attempt_at)}` : 'Sending';
  return 'Given up';
}

export function Deliveries({ id, endpointId, workspaceId }: { id: string; endpointId: number; workspaceId: string }) {
  const [page, setPage] = useState(1);
  const deliveries = useRequest(() => loadDeliveries(workspaceId, endpointId, page), `deliveries-${endpointId}-${page}`);
  const shown = useRef<Awaited<ReturnType<typeof loadDeliveries>> | null>(null);
  if (deliveries.state === 'ready') shown.current = deliveries.data;
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState<number | null>(null);

  async function redeliver(delivery: Delivery) {
    setBusy(delivery.id);
    setError(null);
    setNotice(null);
    try {
      unwrap(
        await api.POST('/api/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver', {
          params: { path: { webhook_id: endpointId, delivery_id: delivery.id }, header: inWorkspace(workspaceId) },
        }),
      );
      setNotice(`The ${delivery.event_type} message is queued to be sent again as a new delivery, with the same webhook-id.`);
      deliveries.reload();
    } catch (caught) {
      setError(refusalOf(caught));
    } finally {
      setBusy(null);
    }
  }

  const data = shown.current;
  const pages = data ? Math.max(1, Math.ceil(data.total / PER_PAGE)) : 1;
  return (
    <section id={id} className="deliveries" aria-label="Deliveries">
      <div className="page-head">
        <h4>Deliveries{data ? ` (${data.total})` : ''}</h4>
        <button type="button" onClick={deliveries.reload} disabled={deliveries.state === 'loading'}>
          Refresh
        </button>
      </div>
      {notice && <Notice>{notice}</Notice>}
      {error && <ErrorMessage error={error} title="The delivery was not sent again" />}
      {deliveries.state === 'error' && <ErrorMessage error={deliveries.error} title="Could not load the deliveries" />}
      {!data && deliveries.state === 'loading' && <Loading what="the deliveries" />}
      {data && data.rows.length === 0 && <p className="empty">Nothing was sent to this endpoint yet.</p>}
      {data && data.rows.length > 0 && (
        <div className="table-wrap" aria-busy={deliveries.state === 'loading'}>
          <table className="stack">
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  Attempts
                </th>
                <th scope="col">Last answer</th>
                <th scope="col">When</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.rows.map((delivery) => (
                <tr key={delivery.id}>
                  <td data-label="Event">
                    <code>{delivery.event_type}</code>
                    <div className="small muted">
                      {formatDate(delivery.created_at)} · <code>{delivery.message_id}</code>
                    </div>
                  </td>
                  <td data-label="Status">
                    <span className={`badge delivery-${delivery.status}`}>{STATUS_LABEL[delivery.status]}</span>
                  </td>
                  <td data-label="Attempts" className="num">
                    {delivery.attempts}
                  </td>
                  <td data-label="Last answer">{lastAnswer(delivery)}</td>
                  <td data-label="When">{when(delivery)}</td>
                  <td>
                    <button
                      type="button"
                      onClick={() => void redeliver(delivery)}
                      disabled={busy !== null}
                      aria-label={`Redeliver ${delivery.event_type} ${delivery.message_id}`}
                    >
                      {busy === delivery.id ? 'Sending…' : 'Redeliver'}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {pages > 1 && (
        <nav className="pagination" aria-label="Pages of deliveries">
          <button type="button" onClick={() => setPage(page - 1)} disabled={page <= 1}>
            Newer
          </button>
          <span>
            Page {page} of {pages}
          </span>
          <button type="button" onClick={() => setPage(page + 1)} disabled={page >= pages}>
            Older
          </button>
        </nav>
      )}
    </section>
  );
}
