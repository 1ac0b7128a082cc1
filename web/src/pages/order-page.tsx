/** /workspace/<id>/orders/<order_id>: one order (GET /orders/{id}), as the Orders page shows it, with its lines' issues. */
import { api, inWorkspace, PAGE, unwrap } from '../api/client';
import { useLiveChanges } from '../live';
import { Breadcrumb, ErrorMessage, Frame, Loading, usePageTitle, useRequest } from '../ui';
import type { Workspace } from '../workspace-gate';
import { OversoldAlert, ordersUrl } from './order-parts';
import { OrderTable } from './order-table';

async function loadOrder(workspaceId: string, orderId: string) {
  const id = Number(orderId);
  if (!Number.isSafeInteger(id) || id < 1) throw new Error(`There is no order ${orderId}.`);
  const header = inWorkspace(workspaceId);
  const order = unwrap(await api.GET('/api/v1/orders/{order_id}', { params: { path: { order_id: id }, header } })).data;
  const sites = unwrap(await api.GET('/api/v1/sites', { params: { query: PAGE, header } })).data;
  return { order, siteName: sites.find((s) => s.id === order.site_id)?.name ?? `site ${order.site_id}` };
}

export function OrderPage({ workspace, orderId }: { workspace: Workspace; orderId: string }) {
  const workspaceId = String(workspace.id);
  const loaded = useRequest(() => loadOrder(workspaceId, orderId), `order-${workspaceId}-${orderId}`);
  useLiveChanges(workspaceId, ['orders'], loaded.refresh);
  const title = loaded.state === 'ready' ? `Order ${loaded.data.order.external_id}` : `Order ${orderId}`;
  usePageTitle(title, workspace.name);
  return (
    <Frame workspaceId={workspaceId} role={workspace.role}>
      <Breadcrumb
        items={[
          { label: 'Dashboard', href: `/workspace/${workspaceId}/dashboard` },
          { label: 'Orders', href: ordersUrl(workspaceId) },
          { label: title },
        ]}
      />
      <h1>{title}</h1>
      {loaded.state === 'loading' && <Loading what="the order" />}
      {loaded.state === 'error' && <ErrorMessage error={loaded.error} title="Could not load the order" />}
      {loaded.state === 'ready' && (
        <>
          <OversoldAlert
            orders={loaded.data.order.status === 'cancelled' ? [] : [loaded.data.order]}
            workspaceId={workspaceId}
            siteName={() => loaded.data.siteName}
          />
          <section className="card" aria-labelledby="order-heading">
            <h2 id="order-heading">On {loaded.data.siteName}</h2>
            <OrderTable workspaceId={workspaceId} rows={[loaded.data.order]} siteName={() => loaded.data.siteName} />
          </section>
        </>
      )}
    </Frame>
  );
}
