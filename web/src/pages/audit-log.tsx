/**
 * /workspace/<id>/audit-log (owners and admins): the workspace's audit events, newest first, a page at a time, narrowed
 * by action on the server (GET /audit-events?action=). The action and the page are in the address (`?action=&page=`),
 * so a filtered view is a link. A change of the action replaces the address (each step of the select's arrow keys would
 * otherwise be a step of Back); a page is pushed.
 */
import { api, inWorkspace, unwrap } from '../api/client';
import type { paths } from '../api/schema';
import { navigate } from '../router';
import { Breadcrumb, ErrorMessage, Frame, formatDate, Loading, usePageTitle, useRequest } from '../ui';
import type { Workspace } from '../workspace-gate';

const PER_PAGE = 50;

type AuditAction = NonNullable<NonNullable<paths['/api/v1/audit-events']['get']['parameters']['query']>['action']>;

async function loadEvents(workspaceId: string, page: number, action: AuditAction | null) {
  const query = { page, per_page: PER_PAGE, ...(action ? { action } : {}) };
  const answer = unwrap(await api.GET('/api/v1/audit-events', { params: { query, header: inWorkspace(workspaceId) } }));
  return { rows: answer.data, total: answer.meta.total };
}
type AuditEvent = Awaited<ReturnType<typeof loadEvents>>['rows'][number];

/** Every action in words, grouped as the filter offers them (the `satisfies` keeps the list whole). */
const ACTION_LABEL = {
  'site.connected': 'Connected a site',
  'site.reconnected': 'Reconnected a site',
  'site.disconnected': 'Disconnected a site',
  'advertising.connected': 'Connected Amazon advertising',
  'product.created': 'Created a product',
  'product.updated': 'Changed a product',
  'product.deleted': 'Deleted a product',
  'listing.created': 'Published a listing',
  'listing.changed': 'Changed a listing',
  'listing.activated': 'Put a listing on sale',
  'listing.deactivated': 'Took a listing off sale',
  'listing.deleted': 'Deleted a listing',
  'listing.refreshed': 'Refreshed a listing',
  'listing.imported': 'Imported a listing',
  'advertising.created': 'Started advertising a listing',
  'advertising.changed': 'Changed or paused a listing’s advertising',
  'advertising.archived': 'Ended a listing’s advertising',
  'webhook.created': 'Added a webhook endpoint',
  'webhook.deleted': 'Deleted a webhook endpoint',
  'token.created': 'Created a personal access token',
  'token.revoked': 'Revoked a personal access token',
  'workspace.created': 'Created the workspace',
  'workspace.renamed': 'Renamed the workspace',
  'member.invited': 'Invited someone',
  'invitation.revoked': 'Revoked an invitation',
  'member.joined': 'Joined the workspace',
  'member.role_changed': 'Changed a member’s role',
  'member.removed': 'Removed a member, or left',
  'user.name_changed': 'Changed their name',
  'user.password_changed': 'Changed their password',
  'auth.login_failed': 'A sign-in with a wrong password',
  'authz.denied': 'A request refused',
  'order.recorded': 'An order was read from a site',
  'order.changed': 'An order changed on its site',
  'orders.sync_requested': 'Asked for a site’s orders to be read now',
} satisfies Record<AuditAction, string>;

const GROUPS: { label: string; prefixes: string[] }[] = [
  { label: 'Sites', prefixes: ['site.', 'advertising.connected'] },
  {
    label: 'Products and listings',
    prefixes: ['product.', 'listing.', 'advertising.created', 'advertising.changed', 'advertising.archived'],
  },
  { label: 'Orders', prefixes: ['order.', 'orders.'] },
  { label: 'Workspace and members', prefixes: ['workspace.', 'member.', 'invitation.'] },
  { label: 'Webhooks and tokens', prefixes: ['webhook.', 'token.'] },
  { label: 'Accounts and security', prefixes: ['user.', 'auth.', 'authz.'] },
];
const ACTIONS = Object.keys(ACTION_LABEL) as AuditAction[];
const isAction = (value: string | null): value is AuditAction => value !== null && (ACTIONS as string[]).includes(value);

const SUBJECT_LABEL: Record<string, string> = {
  site: 'Site',
  token: 'Token',
  webhook: 'Webhook',
  user: 'User',
  product: 'Product',
  listing: 'Listing',
  advertising: 'Advertising',
  workspace: 'Workspace',
  invitation: 'Invitation',
  order: 'Order',
};

function logUrl(workspaceId: string, action: AuditAction | null, page: number) {
  const query = new URLSearchParams();
  if (action) query.set('action', action);
  if (page > 1) query.set('page', String(page));
  const search = query.toString();
  return `/workspace/${workspaceId}/audit-log${search ? `?${search}` : ''}`;
}

/** Details that name the subject (shown under "On") or say how the change came (shown with the action). */
const NAMING = new Set(['title', 'name', 'via', 'site']);

const named = (value: unknown): value is string => typeof value === 'string' && value !== '';

/** The ids a name already says: a listing named by its product and site, an order by its number on its site. */
const namedIds = (event: AuditEvent) => {
  const { details } = event;
  return new Set([
    ...(named(details.site) ? ['site_id'] : []),
    ...(named(details.title) ? ['product_id'] : []),
    ...(event.subject.type === 'order' ? ['external_id'] : []),
  ]);
};

/** "from: member, to: admin", "MUG-W price: 18.00 → 23.00": an event's details, as the API keeps them. */
const detailsOf = (event: AuditEvent) => {
  const ids = namedIds(event);
  return Object.entries(event.details)
    .filter(([key]) => !NAMING.has(key) && !ids.has(key))
    .map(([key, value]) => `${key.replace(/_/g, ' ')}: ${value ?? '—'}`)
    .join('; ');
};

/**
 * What the event is about, by its name where the log kept one: Product “Stoneware mug”, Listing “Stoneware mug” on
 * “Ada's Etsy shop”, Order 1234 on “Ada's Etsy shop”; by its id otherwise.
 */
const subjectOf = (event: AuditEvent) => {
  const { details, subject } = event;
  const label = SUBJECT_LABEL[subject.type] ?? subject.type;
  const name = details.title ?? details.name;
  const own = named(name)
    ? `${label} “${name}”`
    : subject.type === 'order' && named(details.external_id)
      ? `${label} ${details.external_id}`
      : `${label} ${subject.id}`;
  return named(details.site) ? `${own} on “${details.site}”` : own;
};

/** The action in words; an import's start is on its site, each listing it takes on the listing. */
const actionOf = (event: AuditEvent) =>
  event.action === 'listing.imported' && event.subject.type === 'site'
    ? 'Started importing a site’s listings'
    : (ACTION_LABEL[event.action] ?? event.action);

/** Actions only Storelink takes, with no user: reading a site's orders. */
const BY_STORELINK = new Set<string>(['order.recorded', 'order.changed']);

/** Who, when the entry names no user: Storelink itself, nobody signed in, or a user since deleted. */
const nobodyOf = (event: AuditEvent) =>
  BY_STORELINK.has(event.action) ? 'Storelink' : event.action === 'auth.login_failed' ? 'Not signed in' : 'A deleted user';

export function AuditLog({ workspace, search }: { workspace: Workspace; search: URLSearchParams }) {
  const workspaceId = String(workspace.id);
  usePageTitle('Audit log', workspace.name);
  const action = isAction(search.get('action')) ? (search.get('action') as AuditAction) : null;
  const page = Math.max(1, Math.floor(Number(search.get('page'))) || 1);
  const events = useRequest(() => loadEvents(workspaceId, page, action), `audit-${workspaceId}-${action}-${page}`);
  const pages = events.state === 'ready' ? Math.max(1, Math.ceil(events.data.total / PER_PAGE)) : 1;

  return (
    <Frame workspaceId={workspaceId} role={workspace.role}>
      <Breadcrumb
        items={[{ label: 'Dashboard', href: `/workspace/${workspaceId}/dashboard` }, { label: 'Settings' }, { label: 'Audit log' }]}
      />
      <h1>Audit log</h1>
      <p>Who did what in {workspace.name}, newest first.</p>
      <div className="card">
        <div className="field inline audit-filter">
          <label htmlFor="audit-action">Action</label>
          <select
            id="audit-action"
            value={action ?? ''}
            onChange={(e) => navigate(logUrl(workspaceId, isAction(e.target.value) ? e.target.value : null, 1), { replace: true })}
          >
            <option value="">All actions</option>
            {GROUPS.map((group) => (
              <optgroup key={group.label} label={group.label}>
                {ACTIONS.filter((a) => group.prefixes.some((prefix) => a.startsWith(prefix))).map((a) => (
                  <option key={a} value={a}>
                    {ACTION_LABEL[a]}
                  </option>
                ))}
              </optgroup>
            ))}
          </select>
        </div>
        {events.state === 'loading' && <Loading what="the audit log" />}
        {events.state === 'error' && <ErrorMessage error={events.error} title="Could not load the audit log" />}
        {events.state === 'ready' && (
          <p role="status" className="muted" id="audit-summary">
            {events.data.total === 0
              ? action
                ? `No “${ACTION_LABEL[action]}” events.`
                : 'Nothing recorded yet.'
              : `${events.data.total} ${events.data.total === 1 ? 'event' : 'events'}${action ? ` of “${ACTION_LABEL[action]}”` : ''}${
                  pages > 1 ? `, page ${page} of ${pages}` : ''
                }.`}
          </p>
        )}
        {events.state === 'ready' && events.data.rows.length > 0 && (
          <div className="table-wrap">
            <table className="stack audit-table">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Who</th>
                  <th scope="col">What</th>
                  <th scope="col">On</th>
                  <th scope="col">From</th>
                </tr>
              </thead>
              <tbody>
                {events.data.rows.map((event) => (
                  <tr key={event.id}>
                    <td data-label="When">{formatDate(event.created_at)}</td>
                    <td data-label="Who">
                      {event.actor ? (
                        <>
                          {event.actor.name}
                          <div className="small muted">{event.actor.email}</div>
                        </>
                      ) : (
                        <span className="muted">{nobodyOf(event)}</span>
                      )}
                    </td>
                    <td data-label="What">
                      {actionOf(event)}
                      {typeof event.details.via === 'string' && <span className="muted"> (by a {event.details.via})</span>}
                      {detailsOf(event) !== '' && <div className="small muted">{detailsOf(event)}</div>}
                    </td>
                    <td data-label="On">{subjectOf(event)}</td>
                    <td data-label="From">{event.ip_address ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {pages > 1 && (
          <nav className="pagination" aria-label="Pages of the audit log">
            <button type="button" onClick={() => navigate(logUrl(workspaceId, action, page - 1))} disabled={page <= 1}>
              Newer
            </button>
            <span>
              Page {page} of {pages}
            </span>
            <button type="button" onClick={() => navigate(logUrl(workspaceId, action, page + 1))} disabled={page >= pages}>
              Older
            </button>
          </nav>
        )}
      </div>
    </Frame>
  );
}
