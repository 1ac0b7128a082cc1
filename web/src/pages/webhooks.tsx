/**
 * /workspace/<id>/webhooks (owners and admins): the workspace's webhook endpoints. Add one with its URL and events (its
 * signing secret is shown once), delete one after a confirmation, and open each one's deliveries (webhook-deliveries.tsx).
 */
import { type FormEvent, useState } from 'react';
import { ApiError, api, inWorkspace, unwrap } from '../api/client';
import { Confirm, useFocusReturn } from '../confirm';
import { ShownOnce } from '../copy-field';
import { refusalOf } from '../roles';
import { Breadcrumb, ErrorMessage, Frame, formatDate, Loading, Notice, usePageTitle, useRequest } from '../ui';
import type { Workspace } from '../workspace-gate';
import { Deliveries } from './webhook-deliveries';

async function loadEndpoints(workspaceId: string) {
  return unwrap(await api.GET('/api/v1/webhooks', { params: { header: inWorkspace(workspaceId) } })).data;
}
type Endpoint = Awaited<ReturnType<typeof loadEndpoints>>[number];
export type WebhookEvent = Endpoint['events'][number];

/** Every event, in the order a seller thinks of them, with what it tells (the `satisfies` keeps the list whole). */
export const EVENT_LABEL = {
  'site.connected': 'A site is connected',
  'site.reauthorization_required': 'A site needs to be reconnected',
  'site.recovered': 'A site is reconnected',
  'site.disconnected': 'A site is disconnected',
  'advertising.connected': 'Amazon advertising is connected',
  'product.created': 'A product is created',
  'product.updated': 'A product is changed',
  'product.deleted': 'A product is deleted',
  'listing.published': 'A listing is live',
  'listing.rejected': 'A listing is rejected by its platform',
  'listing.error': 'A listing failed',
  'listing.deactivated': 'A listing is taken off sale',
  'listing.deleted': 'A listing is deleted',
  'listing.sync_failed': 'A listing could not be kept in step',
  'advertising.started': 'A listing’s advertising runs on Amazon',
  'advertising.paused': 'A listing’s advertising is paused',
  'advertising.failed': 'A listing’s advertising failed',
  'order.created': 'An order was placed on a site',
  'order.updated': 'An order’s state changed',
  'order.cancelled': 'An order was cancelled (its stock given back)',
  'stock.oversold': 'A sale the stock could not cover',
} satisfies Record<WebhookEvent, string>;

/** The events in the order the form lists them, whatever order they were sent in. */
const inOrder = (events: WebhookEvent[]) => {
  const order = Object.keys(EVENT_LABEL);
  return [...events].sort((a, b) => order.indexOf(a) - order.indexOf(b));
};

const EVENT_GROUPS: { legend: string; events: WebhookEvent[] }[] = [
  {
    legend: 'Sites',
    events: ['site.connected', 'site.reauthorization_required', 'site.recovered', 'site.disconnected', 'advertising.connected'],
  },
  { legend: 'Products', events: ['product.created', 'product.updated', 'product.deleted'] },
  {
    legend: 'Listings',
    events: ['listing.published', 'listing.rejected', 'listing.error', 'listing.deactivated', 'listing.deleted', 'listing.sync_failed'],
  },
  { legend: 'Orders and stock', events: ['order.created', 'order.updated', 'order.cancelled', 'stock.oversold'] },
  { legend: 'Advertising', events: ['advertising.started', 'advertising.paused', 'advertising.failed'] },
];

export function Webhooks({ workspace }: { workspace: Workspace }) {
  const workspaceId = String(workspace.id);
  usePageTitle('Webhooks', workspace.name);
  const endpoints = useRequest(() => loadEndpoints(workspaceId), `webhooks-${workspaceId}`);
  const [deleting, setDeleting] = useState<number | null>(null);
  const [deleteError, setDeleteError] = useState<Error | null>(null);
  const [deleted, setDeleted] = useState<string | null>(null);
  const [open, setOpen] = useState<number | null>(null);
  const { focusNext } = useFocusReturn();

  async function remove(endpoint: Endpoint) {
    setDeleteError(null);
    try {
      unwrap(
        await api.DELETE('/api/v1/webhooks/{webhook_id}', {
          params: { path: { webhook_id: endpoint.id }, header: inWorkspace(workspaceId) },
        }),
      );
      setDeleting(null);
      setDeleted(`The endpoint ${endpoint.url} is deleted, with its deliveries. Nothing more is sent to it.`);
      focusNext(() => document.getElementById('deleted-endpoint'));
      endpoints.reload();
    } catch (caught) {
      setDeleteError(refusalOf(caught));
    }
  }

  return (
    <Frame workspaceId={workspaceId} role={workspace.role}>
      <Breadcrumb
        items={[{ label: 'Dashboard', href: `/workspace/${workspaceId}/dashboard` }, { label: 'Settings' }, { label: 'Webhooks' }]}
      />
      <h1>Webhooks</h1>
      <p>
        Storelink sends each event you choose to your endpoints as a signed POST (Standard Webhooks: the <code>webhook-id</code>,{' '}
        <code>webhook-timestamp</code> and <code>webhook-signature</code> headers), and tries again when an endpoint does not answer 2xx.
      </p>
      <AddEndpoint workspaceId={workspaceId} onAdded={endpoints.reload} />

      <section aria-labelledby="endpoints-heading" className="card">
        <h2 id="endpoints-heading">Endpoints</h2>
        {deleted && <Notice id="deleted-endpoint">{deleted}</Notice>}
        {deleteError && <ErrorMessage error={deleteError} title="The endpoint was not deleted" />}
        {endpoints.state === 'loading' && <Loading what="the endpoints" />}
        {endpoints.state === 'error' && <ErrorMessage error={endpoints.error} title="Could not load the endpoints" />}
        {endpoints.state === 'ready' && endpoints.data.length === 0 && <p className="empty">No endpoints yet. Add one above.</p>}
        {endpoints.state === 'ready' && endpoints.data.length > 0 && (
          <ul className="endpoint-list">
            {endpoints.data.map((endpoint) => (
              <li key={endpoint.id} className="endpoint">
                <div className="page-head">
                  <h3 className="endpoint-url">
                    <code>{endpoint.url}</code>
                  </h3>
                  <div className="button-row">
                    <button
                      type="button"
                      aria-expanded={open === endpoint.id}
                      aria-controls={`deliveries-${endpoint.id}`}
                      onClick={() => setOpen(open === endpoint.id ? null : endpoint.id)}
                    >
                      {open === endpoint.id ? 'Hide deliveries' : 'Deliveries'}
                    </button>
                    {deleting !== endpoint.id && (
                      <button
                        type="button"
                        id={`delete-endpoint-${endpoint.id}`}
                        onClick={() => setDeleting(endpoint.id)}
                        aria-label={`Delete the endpoint ${endpoint.url}`}
                      >
                        Delete…
                      </button>
                    )}
                  </div>
                </div>
                <p className="small muted">
                  Added {formatDate(endpoint.created_at)} · {endpoint.events.length} {endpoint.events.length === 1 ? 'event' : 'events'}:{' '}
                  {inOrder(endpoint.events)
                    .map((e) => EVENT_LABEL[e])
                    .join('; ')}
                </p>
                {deleting === endpoint.id && (
                  <Confirm
                    id={`confirm-delete-endpoint-${endpoint.id}`}
                    confirmLabel="Yes, delete"
                    onConfirm={() => void remove(endpoint)}
                    onCancel={() => {
                      setDeleting(null);
                      focusNext(() => document.getElementById(`delete-endpoint-${endpoint.id}`));
                    }}
                  >
                    Delete the endpoint {endpoint.url}? Its deliveries go with it, and nothing more is sent to it.
                  </Confirm>
                )}
                {open === endpoint.id && <Deliveries id={`deliveries-${endpoint.id}`} endpointId={endpoint.id} workspaceId={workspaceId} />}
              </li>
            ))}
          </ul>
        )}
      </section>
    </Frame>
  );
}

/** The form adding an endpoint: its URL and at least one event; its secret is shown once, with Copy. */
function AddEndpoint({ workspaceId, onAdded }: { workspaceId: string; onAdded: () => void }) {
  const [events, setEvents] = useState<Set<WebhookEvent>>(new Set());
  const [problems, setProblems] = useState<{ url?: string; events?: string }>({});
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<{ url: string; secret: string } | null>(null);

  const toggle = (event: WebhookEvent, on: boolean) =>
    setEvents((chosen) => {
      const next = new Set(chosen);
      if (on) next.add(event);
      else next.delete(event);
      return next;
    });

  async function add(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const url = String(new FormData(form).get('url') ?? '').trim();
    setError(null);
    setCreated(null);
    const found = {
      ...(url
        ? /^https?:\/\/\S+$/i.test(url)
          ? {}
          : { url: 'Enter an address starting with https:// (or http://).' }
        : { url: 'Enter the endpoint’s address.' }),
      ...(events.size === 0 ? { events: 'Choose at least one event to send.' } : {}),
    };
    setProblems(found);
    if (found.url) return document.getElementById('webhook-url')?.focus();
    if (found.events) return document.querySelector<HTMLInputElement>('#webhook-events input')?.focus();
    setBusy(true);
    try {
      const answer = unwrap(
        await api.POST('/api/v1/webhooks', { params: { header: inWorkspace(workspaceId) }, body: { url, events: [...events] } }),
      ).data;
      setCreated({ url: answer.url, secret: answer.secret });
      form.reset();
      setEvents(new Set());
      onAdded();
    } catch (caught) {
      const fields = caught instanceof ApiError ? caught.fields : {};
      const urlMessage = (fields.url ?? fields['body.url'])?.join(' ');
      const eventsMessage = (fields.events ?? fields['body.events'])?.join(' ');
      if (urlMessage || eventsMessage)
        setProblems({ ...(urlMessage ? { url: urlMessage } : {}), ...(eventsMessage ? { events: eventsMessage } : {}) });
      else setError(refusalOf(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="add-endpoint-heading" className="card">
      <h2 id="add-endpoint-heading">Add an endpoint</h2>
      {error && <ErrorMessage error={error} title="The endpoint was not added" />}
      <form onSubmit={(e) => void add(e)} noValidate>
        <div className="field">
          <label htmlFor="webhook-url">Endpoint URL</label>
          <input
            id="webhook-url"
            name="url"
            type="url"
            inputMode="url"
            maxLength={2048}
            placeholder="https://example.com/storelink-events"
            aria-invalid={problems.url !== undefined}
            aria-describedby={problems.url ? 'webhook-url-error' : undefined}
          />
          {problems.url && (
            <p className="field-error" id="webhook-url-error">
              {problems.url}
            </p>
          )}
        </div>
        <fieldset id="webhook-events" className="event-choices" aria-describedby={problems.events ? 'webhook-events-error' : undefined}>
          <legend>Events to send</legend>
          {problems.events && (
            <p className="field-error" id="webhook-events-error">
              {problems.events}
            </p>
          )}
          <div className="event-groups">
            {EVENT_GROUPS.map((group) => (
              <fieldset key={group.legend} className="event-group">
                <legend>{group.legend}</legend>
                {group.events.map((name) => (
                  <label key={name} className="checkbox">
                    <input type="checkbox" checked={events.has(name)} onChange={(e) => toggle(name, e.target.checked)} />
                    <span>
                      {EVENT_LABEL[name]} <code className="muted small">{name}</code>
                    </span>
                  </label>
                ))}
              </fieldset>
            ))}
          </div>
        </fieldset>
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Adding…' : 'Add endpoint'}
        </button>
      </form>
      {created && (
        <ShownOnce id="webhook-secret" label="Signing secret" value={created.secret} onDone={() => setCreated(null)}>
          <p>
            <strong>The signing secret of {created.url}</strong>
          </p>
          <p className="warning">
            Copy it now: it is shown once. Your endpoint checks each delivery’s signature with it. If you lose it, delete the endpoint and
            add it again.
          </p>
        </ShownOnce>
      )}
    </section>
  );
}
