/**
 * The products page's bulk edit: the selected variants' prices and stock set or shifted at once. It asks the API for
 * a dry run first (POST /products/bulk-edit?dry_run=true), shows what changes in the catalogue and on each channel as
 * listed there, and writes only when the seller confirms.
 */
import { type FormEvent, type ReactNode, useRef, useState } from 'react';
import { ApiError, api, inWorkspace, unwrap } from '../api/client';
import type { paths } from '../api/schema';
import { ErrorMessage, platformName } from '../ui';
import { type Picked, selectionSummary } from './product-selection';

type Answer = paths['/api/v1/products/bulk-edit']['post']['responses'][200]['content']['application/json']['data'];
type PriceHow = 'keep' | 'set' | 'percent';
type StockHow = 'keep' | 'set' | 'add';

/** Cents of a decimal price string; the API's prices have at most two decimals. */
const cents = (price: string) => Math.round(Number(price) * 100);
const priceText = (c: number) => (Math.max(1, c) / 100).toFixed(2);

/** Each picked variant with its new values; a variant the edit leaves as it is, left out. */
export function editsOf(picked: readonly Picked[], price: { how: PriceHow; value: string }, stock: { how: StockHow; value: string }) {
  return picked.flatMap(({ variant }) => {
    const edit: { sku: string; price?: string; quantity?: number } = { sku: variant.sku };
    if (price.how === 'set') edit.price = price.value.trim();
    if (price.how === 'percent') edit.price = priceText(Math.round((cents(variant.price) * (100 + Number(price.value))) / 100));
    if (stock.how === 'set') edit.quantity = Number(stock.value);
    if (stock.how === 'add') edit.quantity = Math.max(0, variant.quantity + Number(stock.value));
    const changed =
      (edit.price !== undefined && edit.price !== variant.price) || (edit.quantity !== undefined && edit.quantity !== variant.quantity);
    return changed ? [edit] : [];
  });
}

export function BulkEditButton({
  picked,
  workspaceId,
  onDone,
}: {
  picked: readonly Picked[];
  workspaceId: string;
  onDone: (message: string) => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [open, setOpen] = useState(0);
  return (
    <>
      <button
        type="button"
        disabled={picked.length === 0}
        onClick={() => {
          setOpen((n) => n + 1);
          dialog.current?.showModal();
        }}
      >
        Edit prices and stock{picked.length > 0 ? ` (${picked.length})` : ''}…
      </button>
      <dialog ref={dialog} className="dialog" aria-labelledby="bulk-title" onClose={() => setOpen(0)}>
        {open > 0 && (
          <BulkEditForm
            key={open}
            picked={picked}
            workspaceId={workspaceId}
            onDone={(message) => {
              dialog.current?.close();
              onDone(message);
            }}
            onClose={() => dialog.current?.close()}
          />
        )}
      </dialog>
    </>
  );
}

function BulkEditForm({
  picked,
  workspaceId,
  onDone,
  onClose,
}: {
  picked: readonly Picked[];
  workspaceId: string;
  onDone: (message: string) => void;
  onClose: () => void;
}) {
  const [price, setPrice] = useState<{ how: PriceHow; value: string }>({ how: 'keep', value: '' });
  const [stock, setStock] = useState<{ how: StockHow; value: string }>({ how: 'keep', value: '' });
  const [preview, setPreview] = useState<Answer | null>(null);
  const [errors, setErrors] = useState<string[]>([]);
  const [failure, setFailure] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const edits = editsOf(picked, price, stock);
  const titleOf = (id: number) => picked.find((p) => p.product.id === id)?.product.title ?? `Product ${id}`;

  async function send(dryRun: boolean) {
    setBusy(true);
    setErrors([]);
    setFailure(null);
    try {
      const answer = unwrap(
        await api.POST('/api/v1/products/bulk-edit', {
          params: { header: inWorkspace(workspaceId), query: { dry_run: dryRun } },
          body: { variants: edits },
        }),
      ).data;
      if (dryRun) setPreview(answer);
      else onDone(`${answer.updated} ${answer.updated === 1 ? 'product' : 'products'} updated; the listings follow.`);
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 422) {
        const skuOf = (key: string) => edits[Number(/^variants\.(\d+)/.exec(key)?.[1])]?.sku ?? key;
        setErrors(Object.entries(caught.fields).map(([key, messages]) => `${skuOf(key)}: ${messages.join(' ')}`));
      } else setFailure(caught as Error);
      setPreview(null);
    } finally {
      setBusy(false);
    }
  }

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void send(preview === null);
  };
  const change = (next: () => void) => {
    next();
    setPreview(null);
  };

  return (
    <form onSubmit={submit} noValidate>
      <h2 id="bulk-title">Edit prices and stock</h2>
      <p className="muted small">
        {selectionSummary(picked)} selected. You see what changes, here and on each channel, before anything is saved.
      </p>
      <fieldset className="field">
        <legend>Price</legend>
        <select
          aria-label="How the price changes"
          value={price.how}
          onChange={(e) => change(() => setPrice({ ...price, how: e.target.value as PriceHow }))}
        >
          <option value="keep">Leave as it is</option>
          <option value="set">Set each selected variant to</option>
          <option value="percent">Raise or lower by %</option>
        </select>
        {price.how !== 'keep' && (
          <input
            aria-label={price.how === 'set' ? 'New price' : 'Percent (negative lowers)'}
            inputMode="decimal"
            value={price.value}
            onChange={(e) => change(() => setPrice({ ...price, value: e.target.value }))}
          />
        )}
      </fieldset>
      <fieldset className="field">
        <legend>Stock</legend>
        <select
          aria-label="How the stock changes"
          value={stock.how}
          onChange={(e) => change(() => setStock({ ...stock, how: e.target.value as StockHow }))}
        >
          <option value="keep">Leave as it is</option>
          <option value="set">Set each selected variant to</option>
          <option value="add">Add or remove</option>
        </select>
        {stock.how !== 'keep' && (
          <input
            aria-label={stock.how === 'set' ? 'New stock' : 'Units to add (negative removes)'}
            inputMode="numeric"
            value={stock.value}
            onChange={(e) => change(() => setStock({ ...stock, value: e.target.value }))}
          />
        )}
      </fieldset>
      {failure && <ErrorMessage error={failure} title="Nothing was changed" />}
      {errors.length > 0 && (
        <div className="alert alert-error" role="alert">
          <p>Nothing was changed:</p>
          <ul>
            {errors.map((e) => (
              <li key={e}>{e}</li>
            ))}
          </ul>
        </div>
      )}
      {preview && (
        <section aria-labelledby="bulk-preview-heading">
          <h3 id="bulk-preview-heading">What changes</h3>
          <ChangeTable
            caption={<span className="visually-hidden">In the catalogue</span>}
            where="Product"
            rows={preview.changes.map((c) => ({ ...c, key: `${c.sku}-${c.field}`, where: titleOf(c.product_id), blocked: null }))}
          />
          {preview.channels.length > 0 ? (
            <ChangeTable
              caption="On the channels, as listed there"
              where="Channel"
              rows={preview.channels.map((c) => ({
                ...c,
                key: `${c.listing_id}-${c.sku}-${c.field}`,
                where: (
                  <>
                    {c.site_name} <span className="muted small">({platformName(c.platform)})</span>
                  </>
                ),
              }))}
            />
          ) : (
            <p className="muted small">None of these products is listed yet.</p>
          )}
        </section>
      )}
      <div className="button-row">
        <button type="submit" className="primary" disabled={busy || edits.length === 0}>
          {busy
            ? 'Working…'
            : preview
              ? `Save ${preview.changes.length} ${preview.changes.length === 1 ? 'change' : 'changes'}`
              : 'Preview'}
        </button>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
        {edits.length === 0 && <span className="muted small">Choose a change of price or stock.</span>}
      </div>
    </form>
  );
}

/** A preview's changes: where (the product or the channel), the sku, price or stock, from and to. */
function ChangeTable({
  caption,
  where,
  rows,
}: {
  caption: ReactNode;
  where: string;
  rows: { key: string; where: ReactNode; sku: string; field: string; from: string | number; to: string | number; blocked: string | null }[];
}) {
  return (
    <div className="table-wrap">
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{where}</th>
            <th scope="col">SKU</th>
            <th scope="col">What</th>
            <th scope="col">From</th>
            <th scope="col">To</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.key}>
              <td>{row.where}</td>
              <th scope="row">
                <code>{row.sku}</code>
              </th>
              <td>{row.field === 'price' ? 'Price' : 'Stock'}</td>
              <td>{row.from}</td>
              <td>
                {row.to}
                {row.blocked && <p className="field-error">Not sent: {row.blocked}</p>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
