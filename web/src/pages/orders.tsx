/**
 * /workspace/<id>/orders (DESIGN §14): the oversold alert, the workspace's orders from every site, newest first, a page
 * at a time, narrowed by site, status, sku and day (`?site_id=&status=&sku=&since=&page=`, so a filtered view is a
 * link), each with its lines, their issues and the stock they took or gave back; then each site's "Read orders now"
 * and, on a sandbox site, "Simulate a sale". The list is read again every 30 s, and every 3 s for a minute after a
 * sale is simulated or a site is read, so a new order shows up on its own.
 */
import { type FormEvent, useCallback, useEffect, useRef, useState } from 'react';
import { api, inWorkspace, PAGE, unwrap } from '../api/client';
import { useLiveChanges } from '../live';
import { Link, navigate } from '../router';
import { Breadcrumb, ErrorMessage, Frame, Loading, usePageTitle, useRequest } from '../ui';
import type { Workspace } from '../workspace-gate';
import { filtersOf, loadOversold, ORDER_STATUSES, type OrderFilters, OversoldAlert, ordersUrl } from './order-parts';
import { OrderSites } from './order-sites';
import { OrderTable } from './order-table';

const PER_PAGE = 25;
const SLOW_POLL_MS = 30_000;
const FAST_POLL_MS = 3_000;
const FAST_FOR_MS = 60_000;

async function loadOrders(workspaceId: string, filters: OrderFilters) {
  const query = {
    page: filters.page,
    per_page: PER_PAGE,
    ...(filters.siteId ? { site_id: filters.siteId } : {}),
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.sku ? { sku: filters.sku } : {}),
    ...(filters.since ? { since: new Date(`${filters.since}T00:00`).toISOString() } : {}),
  };
  const answer = unwrap(await api.GET('/api/v1/orders', { params: { query, header: inWorkspace(workspaceId) } }));
  const oversold = await loadOversold(workspaceId);
  return { rows: answer.data, total: answer.meta.total, oversold };
}
type Loaded = Awaited<ReturnType<typeof loadOrders>>;

/**
 * The orders of `filters`, read again quietly every `every` ms: the list stays on screen while a new read is under way,
 * and an answer to an older question (the filters changed meanwhile) is dropped.
 */
function useOrders(workspaceId: string, filters: OrderFilters, every: number) {
  const [data, setData] = useState<Loaded | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [loading, setLoading] = useState(true);
  const round = useRef(0);
  const key = JSON.stringify(filters);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` stands for the filters, read whole
  const load = useCallback(async () => {
    const mine = ++round.current;
    try {
      const loaded = await loadOrders(workspaceId, filters);
      if (mine !== round.current) return;
      setData(loaded);
      setError(null);
    } catch (caught) {
      if (mine === round.current) setError(caught as Error);
    } finally {
      if (mine === round.current) setLoading(false);
    }
  }, [workspaceId, key]);
  useEffect(() => {
    setLoading(true);
    void load();
  }, [load]);
  useEffect(() => {
    const timer = setInterval(() => void load(), every);
    return () => clearInterval(timer);
  }, [load, every]);
  useLiveChanges(workspaceId, ['orders'], () => void load());
  return { data, error, loading, reload: load };
}

export function OrdersPage({ workspace, search }: { workspace: Workspace; search: URLSearchParams }) {
  const workspaceId = String(workspace.id);
  usePageTitle('Orders', workspace.name);
  const filters = filtersOf(search);
  const [fastUntil, setFastUntil] = useState(0);
  const [now, setNow] = useState(Date.now);
  const fast = now < fastUntil;
  useEffect(() => {
    if (!fast) return;
    const timer = setTimeout(() => setNow(Date.now()), fastUntil - now);
    return () => clearTimeout(timer);
  }, [fast, fastUntil, now]);
  const orders = useOrders(workspaceId, filters, fast ? FAST_POLL_MS : SLOW_POLL_MS);
  const sites = useRequest(
    async () => unwrap(await api.GET('/api/v1/sites', { params: { query: PAGE, header: inWorkspace(workspaceId) } })).data,
    `sites-${workspaceId}`,
  );
  const siteName = (id: number) => (sites.state === 'ready' ? sites.data.find((s) => s.id === id)?.name : undefined) ?? `site ${id}`;
  const expectOrders = () => {
    const at = Date.now();
    setNow(at);
    setFastUntil(at + FAST_FOR_MS);
    void orders.reload();
  };
  const data = orders.data;
  const pages = data ? Math.max(1, Math.ceil(data.total / PER_PAGE)) : 1;
  const filtered = filters.siteId !== null || filters.status !== null || filters.sku !== '' || filters.since !== '';

  return (
    <Frame workspaceId={workspaceId} role={workspace.role}>
      <Breadcrumb items={[{ label: 'Dashboard', href: `/workspace/${workspaceId}/dashboard` }, { label: 'Orders' }]} />
      <h1>Orders</h1>
      <p>Every site’s orders, newest first. Each sale takes its units off the product’s stock once, for every site.</p>
      {data && <OversoldAlert orders={data.oversold} workspaceId={workspaceId} siteName={siteName} />}

      <section className="card" aria-labelledby="orders-heading" aria-busy={orders.loading}>
        <h2 id="orders-heading">Orders</h2>
        <Filters key={search.toString()} workspaceId={workspaceId} filters={filters} sites={sites.state === 'ready' ? sites.data : []} />
        {orders.error && <ErrorMessage error={orders.error} title="Could not load the orders" />}
        {!data && !orders.error && <Loading what="the orders" />}
        {data && (
          <p className="muted small" role="status" id="orders-summary">
            {summaryOf(data.total, filtered, filters.page, pages)}
          </p>
        )}
        {data && data.total === 0 && !filtered && (
          <p className="empty">
            No orders yet. Storelink reads each connected site’s orders every minute (Amazon’s every three), and at once when the platform
            says there is a new one.
          </p>
        )}
        {data && data.rows.length > 0 && <OrderTable workspaceId={workspaceId} rows={data.rows} siteName={siteName} />}
        {pages > 1 && (
          <nav className="pagination" aria-label="Pages of orders">
            <button
              type="button"
              onClick={() => navigate(ordersUrl(workspaceId, { ...filters, page: filters.page - 1 }))}
              disabled={filters.page <= 1}
            >
              Newer
            </button>
            <span>
              Page {filters.page} of {pages}
            </span>
            <button
              type="button"
              onClick={() => navigate(ordersUrl(workspaceId, { ...filters, page: filters.page + 1 }))}
              disabled={filters.page >= pages}
            >
              Older
            </button>
          </nav>
        )}
      </section>

      {sites.state === 'error' && <ErrorMessage error={sites.error} title="Could not load the sites" />}
      {sites.state === 'ready' && <OrderSites workspaceId={workspaceId} sites={sites.data} onOrdersExpected={expectOrders} />}
    </Frame>
  );
}

/** "3 orders, page 1 of 2." */
function summaryOf(total: number, filtered: boolean, page: number, pages: number): string {
  if (total === 0) return filtered ? 'No orders match these filters.' : 'No orders.';
  const count = filtered
    ? `${total} ${total === 1 ? 'order matches' : 'orders match'} these filters`
    : `${total} ${total === 1 ? 'order' : 'orders'}`;
  if (page > pages) return `${count}; this page is past the last one.`;
  return pages > 1 ? `${count}, page ${page} of ${pages}.` : `${count}.`;
}

type SiteOption = { id: number; name: string; platform: string };

/** The filters as a form: applied together (a pushed address), cleared by one link. */
function Filters({ workspaceId, filters, sites }: { workspaceId: string; filters: OrderFilters; sites: SiteOption[] }) {
  const [siteId, setSiteId] = useState(filters.siteId ? String(filters.siteId) : '');
  const [status, setStatus] = useState<string>(filters.status ?? '');
  const [sku, setSku] = useState(filters.sku);
  const [since, setSince] = useState(filters.since);
  const apply = (event: FormEvent) => {
    event.preventDefault();
    const next = filtersOf(new URLSearchParams({ site_id: siteId, status, sku, since }));
    navigate(ordersUrl(workspaceId, { ...next, page: 1 }));
  };
  const any = filters.siteId !== null || filters.status !== null || filters.sku !== '' || filters.since !== '';
  return (
    <form className="order-filters" onSubmit={apply} aria-label="Filter the orders">
      <div className="field">
        <label htmlFor="order-site">Site</label>
        <select id="order-site" value={siteId} onChange={(e) => setSiteId(e.target.value)}>
          <option value="">Every site</option>
          {sites.map((site) => (
            <option key={site.id} value={site.id}>
              {site.name}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="order-status">Status</label>
        <select id="order-status" value={status} onChange={(e) => setStatus(e.target.value)}>
          <option value="">Any status</option>
          {ORDER_STATUSES.map((s) => (
            <option key={s.value} value={s.value}>
              {s.label}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="order-sku">SKU</label>
        <input id="order-sku" value={sku} autoComplete="off" maxLength={64} onChange={(e) => setSku(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="order-since">Placed on or after</label>
        <input id="order-since" type="date" value={since} onChange={(e) => setSince(e.target.value)} />
      </div>
      <div className="button-row">
        <button type="submit">Apply filters</button>
        {any && <Link href={ordersUrl(workspaceId)}>Clear filters</Link>}
      </div>
    </form>
  );
}
