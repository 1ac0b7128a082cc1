/**
 * The Orders page's sites: "Read orders now" for each connected site (POST /sites/{id}/orders/sync, every member), and
 * "Simulate a sale" on the sites this server runs against a simulator (GET /platforms says which platforms are): a sku
 * and a quantity placed as a buyer would, through the simulator's own buyer endpoint (DESIGN §14, "Sandbox").
 */
import { type FormEvent, useState } from 'react';
import { api, inWorkspace, PAGE, unwrap } from '../api/client';
import type { components } from '../api/schema';
import { refusalOf } from '../roles';
import { Link } from '../router';
import { Editable, ErrorMessage, formatDate, Notice, platformName, useRequest } from '../ui';
import { placeSandboxSale, type SaleOutcome, sandboxAccountOf } from './order-parts';

type Site = components['schemas']['Site'];

const loadPlatforms = async () => unwrap(await api.GET('/api/v1/platforms', {})).data;

export function OrderSites({ workspaceId, sites, onOrdersExpected }: { workspaceId: string; sites: Site[]; onOrdersExpected: () => void }) {
  const platforms = useRequest(loadPlatforms, 'platforms');
  const connected = sites.filter((site) => site.status === 'connected');
  const sandboxTracks = platforms.state === 'ready' ? platforms.data.filter((p) => p.sandbox).map((p) => p.track as string) : [];
  const sandboxSites = connected.filter((site) => sandboxTracks.includes(site.platform) && sandboxAccountOf(site) !== null);
  return (
    <>
      <section className="card" aria-labelledby="order-sites-heading">
        <h2 id="order-sites-heading">Sites</h2>
        {connected.length === 0 ? (
          <p className="empty">
            No connected site. <Link href={`/workspace/${workspaceId}/dashboard`}>Connect a shop from the dashboard</Link> to read its
            orders.
          </p>
        ) : (
          <>
            <p className="muted small">
              Storelink reads each site’s orders every minute on its own (Amazon’s every three), and at once when the platform notifies;
              “Read orders now” reads them at once.
            </p>
            <ul className="order-sites">
              {connected.map((site) => (
                <ReadNow key={site.id} site={site} workspaceId={workspaceId} onRead={onOrdersExpected} />
              ))}
            </ul>
          </>
        )}
      </section>
      {platforms.state === 'error' && <ErrorMessage error={platforms.error} title="Could not load the platforms" />}
      {sandboxSites.length > 0 && (
        <Editable>
          <SimulateSale workspaceId={workspaceId} sites={sandboxSites} onPlaced={onOrdersExpected} />
        </Editable>
      )}
    </>
  );
}

function ReadNow({ site, workspaceId, onRead }: { site: Site; workspaceId: string; onRead: () => void }) {
  const [busy, setBusy] = useState(false);
  const [said, setSaid] = useState<string | null>(null);
  const [error, setError] = useState<Error | null>(null);
  async function read() {
    setBusy(true);
    setSaid(null);
    setError(null);
    try {
      const answer = unwrap(
        await api.POST('/api/v1/sites/{site_id}/orders/sync', { params: { path: { site_id: site.id }, header: inWorkspace(workspaceId) } }),
      ).data;
      const upTo = answer.orders_read_to ? ` Read up to ${formatDate(answer.orders_read_to)} so far.` : '';
      setSaid(`Reading ${site.name}’s orders now: new ones appear in the list within seconds.${upTo}`);
      onRead();
    } catch (caught) {
      setError(refusalOf(caught));
    } finally {
      setBusy(false);
    }
  }
  return (
    <li>
      <span>
        <Link href={`/site/${site.id}/listings`}>{site.name}</Link> <span className="muted small">({platformName(site.platform)})</span>
      </span>{' '}
      <Editable>
        <button type="button" onClick={() => void read()} disabled={busy} aria-label={`Read orders now from ${site.name}`}>
          {busy ? 'Reading…' : 'Read orders now'}
        </button>
      </Editable>
      {said && (
        <p className="muted small" role="status">
          {said}
        </p>
      )}
      {error && <ErrorMessage error={error} title={`Could not read ${site.name}’s orders`} />}
    </li>
  );
}

/** The catalogue's skus, offered as suggestions (any other sku sells an item listed outside Storelink: `unknown_sku`). */
async function loadSkus(workspaceId: string): Promise<string[]> {
  const products = unwrap(await api.GET('/api/v1/products', { params: { query: PAGE, header: inWorkspace(workspaceId) } })).data;
  return products.flatMap((product) => product.variants.map((variant) => variant.sku));
}

function SimulateSale({ workspaceId, sites, onPlaced }: { workspaceId: string; sites: Site[]; onPlaced: () => void }) {
  const skus = useRequest(() => loadSkus(workspaceId), `skus-${workspaceId}`);
  const [siteId, setSiteId] = useState(String(sites[0]!.id));
  const [sku, setSku] = useState('');
  const [quantity, setQuantity] = useState('1');
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ site: Site; sku: string; quantity: number; result: SaleOutcome } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const site = sites.find((s) => String(s.id) === siteId) ?? sites[0]!;

  async function place(event: FormEvent) {
    event.preventDefault();
    const units = Number(quantity);
    const wanted = sku.trim();
    setOutcome(null);
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(wanted)) return setProblem('Give a SKU of letters, digits, dots, dashes or underscores.');
    if (!Number.isInteger(units) || units < 1 || units > 999) return setProblem('Give a whole number of units from 1 to 999.');
    setProblem(null);
    setBusy(true);
    try {
      const result = await placeSandboxSale(site.platform, sandboxAccountOf(site)!, { sku: wanted, quantity: units });
      setOutcome({ site, sku: wanted, quantity: units, result });
      if (result.kind === 'placed') onPlaced();
    } catch (caught) {
      setOutcome({ site, sku: wanted, quantity: units, result: { kind: 'refused', message: (caught as Error).message } });
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="card" aria-labelledby="simulate-heading">
      <h2 id="simulate-heading">
        Simulate a sale <span className="badge badge-sandbox">Sandbox</span>
      </h2>
      <p className="muted small" id="simulate-hint">
        A pretend buyer orders on a sandbox site, as one would on the platform: the site’s listing loses the units, and Storelink reads the
        order and takes them off the product’s stock. A SKU the site does not list is sold as an item listed outside Storelink.
      </p>
      <form className="simulate-sale" onSubmit={(e) => void place(e)} noValidate aria-describedby="simulate-hint">
        <div className="field">
          <label htmlFor="simulate-site">Site</label>
          <select id="simulate-site" value={siteId} onChange={(e) => setSiteId(e.target.value)}>
            {sites.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name} ({platformName(s.platform)})
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="simulate-sku">SKU</label>
          <input
            id="simulate-sku"
            list="simulate-skus"
            value={sku}
            autoComplete="off"
            maxLength={64}
            required
            aria-invalid={problem?.startsWith('Give a SKU') ? true : undefined}
            onChange={(e) => setSku(e.target.value)}
          />
          <datalist id="simulate-skus">{skus.state === 'ready' && skus.data.map((s) => <option key={s} value={s} />)}</datalist>
        </div>
        <div className="field">
          <label htmlFor="simulate-quantity">Quantity</label>
          <input
            id="simulate-quantity"
            type="number"
            inputMode="numeric"
            min={1}
            max={999}
            step={1}
            value={quantity}
            required
            aria-invalid={problem?.startsWith('Give a whole') ? true : undefined}
            onChange={(e) => setQuantity(e.target.value)}
          />
        </div>
        <div className="button-row">
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Placing the sale…' : 'Place the sale'}
          </button>
        </div>
      </form>
      {problem && <ErrorMessage error={problem} title="Nothing was sold" />}
      {outcome && <SaleResult {...outcome} />}
    </section>
  );
}

function SaleResult({ site, sku, quantity, result }: { site: Site; sku: string; quantity: number; result: SaleOutcome }) {
  const platform = platformName(site.platform);
  if (result.kind === 'placed')
    return (
      <Notice>
        A buyer ordered {quantity} × {sku} on {site.name}: {platform} order {result.id}. It appears in the orders above within a few
        seconds.
      </Notice>
    );
  if (result.kind === 'too-few')
    return (
      <ErrorMessage
        title="Nothing was sold"
        error={`${site.name} has too few units of ${sku} on ${platform} for ${quantity} (${result.message}).`}
      />
    );
  return <ErrorMessage title="Nothing was sold" error={result.message} />;
}
