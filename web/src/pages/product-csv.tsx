/** CSV export and import of the catalogue (DESIGN §9): the buttons, and what an import answered. */
import { useRef, useState } from 'react';
import { ApiError, api, inWorkspace, unwrap } from '../api/client';
import { ErrorMessage } from '../ui';
import { TEMPLATE, TEMPLATE_COLUMNS } from './product-csv-template';

/** One value an import would change (POST /products/import?dry_run=true). */
export interface ImportChange {
  line: number | null;
  product_id: number | null;
  sku: string | null;
  field: string;
  from?: unknown;
  to?: unknown;
}

/**
 * What the last import did, or would do: the preview of a file checked and not yet written (with the seller's answer),
 * the counts, the per-line problems of a refused file, or another failure.
 */
export type ImportOutcome =
  | {
      kind: 'preview';
      file: string;
      created: number;
      updated: number;
      removed: number;
      ignored: string[];
      changes: ImportChange[];
      confirm: () => void;
    }
  | { kind: 'imported'; file: string; created: number; updated: number }
  | { kind: 'refused'; file: string; problems: LineProblem[] }
  | { kind: 'failed'; file: string; error: Error };

export interface LineProblem {
  line: number | null;
  column: string;
  messages: string[];
}

/** `{"line 3.price": [...]}` as problems sorted by line; a key without a line (the file as a whole) comes first. */
export function lineProblems(errors: Record<string, string[]>): LineProblem[] {
  return Object.entries(errors)
    .map(([key, messages]) => {
      const match = /^line (\d+)(?:\.(.*))?$/.exec(key);
      return match ? { line: Number(match[1]), column: match[2] ?? '', messages } : { line: null, column: key, messages };
    })
    .sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || a.column.localeCompare(b.column));
}

/** Downloads GET /products/export with the session's bearer, as a file the browser saves. */
export function ExportButton({ workspaceId }: { workspaceId: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  async function download() {
    setBusy(true);
    setError(null);
    try {
      const blob = unwrap(await api.GET('/api/v1/products/export', { params: { header: inWorkspace(workspaceId) }, parseAs: 'blob' }));
      const link = document.createElement('a');
      link.href = URL.createObjectURL(blob);
      link.download = `storelink-products-${new Date().toISOString().slice(0, 10)}.csv`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
    } catch (caught) {
      setError(caught as Error);
    } finally {
      setBusy(false);
    }
  }
  return (
    <span className="connect">
      <button type="button" onClick={() => void download()} disabled={busy}>
        {busy ? 'Exporting…' : 'Export CSV'}
      </button>
      {error && <ErrorMessage error={error} title="The export failed" />}
    </span>
  );
}

const TEMPLATE_HREF = `data:text/csv;charset=utf-8,${encodeURIComponent(`${TEMPLATE}\r\n`)}`;

/**
 * A button that first says what the file needs (its columns, a template to download), then picks a .csv file and posts
 * it to POST /products/import as text/csv: first as a dry run, whose preview `onOutcome` hears with a `confirm` that
 * imports it for real. Nothing is written before the seller confirms.
 */
export function ImportButton({ workspaceId, onOutcome }: { workspaceId: string; onOutcome: (outcome: ImportOutcome) => void }) {
  const input = useRef<HTMLInputElement>(null);
  const dialog = useRef<HTMLDialogElement>(null);
  const [busyWith, setBusyWith] = useState<string | null>(null);
  async function upload(file: File, dryRun: boolean) {
    setBusyWith(file.name);
    try {
      const result = await api.POST('/api/v1/products/import', {
        params: { header: inWorkspace(workspaceId), query: { dry_run: dryRun } },
        // The file goes as it is, streamed by the browser: text/csv, not JSON.
        body: file as never,
        bodySerializer: (body: unknown) => body as BodyInit,
        headers: { 'content-type': 'text/csv' },
      });
      const { created, updated, removed, ignored, changes } = unwrap(result).data;
      if (dryRun)
        onOutcome({
          kind: 'preview',
          file: file.name,
          created,
          updated,
          removed,
          ignored,
          changes: changes ?? [],
          confirm: () => void upload(file, false),
        });
      else onOutcome({ kind: 'imported', file: file.name, created, updated });
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 422 && Object.keys(caught.fields).length > 0) {
        onOutcome({ kind: 'refused', file: file.name, problems: lineProblems(caught.fields) });
      } else {
        onOutcome({ kind: 'failed', file: file.name, error: caught as Error });
      }
    } finally {
      setBusyWith(null);
      if (input.current) input.current.value = '';
    }
  }
  return (
    <>
      <input
        ref={input}
        type="file"
        accept=".csv,text/csv"
        hidden
        tabIndex={-1}
        aria-hidden="true"
        onChange={(event) => {
          const file = event.currentTarget.files?.[0];
          if (file) void upload(file, true);
        }}
      />
      <button type="button" onClick={() => dialog.current?.showModal()} disabled={busyWith !== null}>
        {busyWith ? `Reading ${busyWith}…` : 'Import CSV…'}
      </button>
      <dialog ref={dialog} className="dialog" aria-labelledby="import-csv-title" aria-describedby="import-csv-text">
        <h2 id="import-csv-title">Import a CSV file</h2>
        <div id="import-csv-text">
          <p>
            One row per variant, with a header row naming the columns. Only <code>sku</code> is required: a file of just <code>sku</code>{' '}
            and <code>quantity</code> updates stock alone. Rows with the same <code>handle</code> are one product.
          </p>
          <p>The columns it reads:</p>
          <p className="small">
            {TEMPLATE_COLUMNS.map((column, i) => (
              <span key={column}>
                {i > 0 && ', '}
                <code>{column}</code>
              </span>
            ))}
            , and <code>attribute.&lt;name&gt;</code> for each attribute.
          </p>
          <p>
            Start from the template, or from <strong>Export CSV</strong> once you have products. A product export from Shopify imports as it
            is. You see what will change before anything is written.
          </p>
        </div>
        <div className="button-row">
          <a className="button" href={TEMPLATE_HREF} download="storelink-products-template.csv">
            Download a template
          </a>
          <button
            type="button"
            className="primary"
            onClick={() => {
              dialog.current?.close();
              input.current?.click();
            }}
          >
            Choose a file…
          </button>
          <button type="button" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
        </div>
      </dialog>
    </>
  );
}

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/** Changes a preview lists at most; the rest are counted. */
const PREVIEW_ROWS = 50;

/** A value of a preview as a seller reads it. */
function shown(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (Array.isArray(value)) return value.length === 0 ? '—' : value.map(shown).join(', ');
  if (typeof value === 'object')
    return Object.entries(value as Record<string, unknown>)
      .map(([key, v]) => `${key.replaceAll('_', ' ')}: ${shown(v)}`)
      .join(', ');
  return String(value);
}

/** What a change is of, in words. */
function changeOf(change: ImportChange): string {
  if (change.field === 'product') return 'new product';
  if (change.field === 'variant') return change.from === null ? 'new variant' : 'variant removed';
  return change.field.replaceAll('_', ' ');
}

/** The preview of a checked file: what it would change, and the seller's choice to import it or not. */
function ImportPreview({ outcome, onDismiss }: { outcome: Extract<ImportOutcome, { kind: 'preview' }>; onDismiss: () => void }) {
  const { changes } = outcome;
  const nothing = changes.length === 0;
  return (
    <section className="alert alert-info import-preview" aria-label={`Preview of ${outcome.file}`}>
      <p role="status">
        <strong>
          {nothing
            ? `${outcome.file} changes nothing.`
            : `${outcome.file} would create ${plural(outcome.created, 'product', 'products')}, update ${plural(outcome.updated, 'product', 'products')}${outcome.removed > 0 ? ` and remove ${plural(outcome.removed, 'variant', 'variants')}` : ''}.`}
        </strong>{' '}
        Nothing is written until you import it.
      </p>
      {outcome.ignored.length > 0 && <p>Columns left out (not catalogue columns): {outcome.ignored.join(', ')}.</p>}
      {!nothing && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Line</th>
                <th scope="col">SKU</th>
                <th scope="col">Change</th>
                <th scope="col">From</th>
                <th scope="col">To</th>
              </tr>
            </thead>
            <tbody>
              {changes.slice(0, PREVIEW_ROWS).map((change) => (
                <tr key={`${change.line}.${change.product_id}.${change.sku}.${change.field}`}>
                  <td>{change.line ?? '—'}</td>
                  <td>{change.sku ?? '—'}</td>
                  <td>{changeOf(change)}</td>
                  <td>{change.field === 'variant' || change.field === 'product' ? '—' : shown(change.from)}</td>
                  <td>{change.field === 'variant' || change.field === 'product' ? '—' : shown(change.to)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {changes.length > PREVIEW_ROWS && <p>…and {plural(changes.length - PREVIEW_ROWS, 'more change', 'more changes')}.</p>}
      <div className="button-row">
        {!nothing && (
          <button type="button" className="primary" onClick={outcome.confirm}>
            Import {outcome.file}
          </button>
        )}
        <button type="button" onClick={onDismiss}>
          {nothing ? 'Dismiss' : 'Cancel'}
        </button>
      </div>
    </section>
  );
}

/** The answer of the last import: its preview, the counts, or every problem line by line, with a way to dismiss it. */
export function ImportResult({ outcome, onDismiss }: { outcome: ImportOutcome; onDismiss: () => void }) {
  if (outcome.kind === 'preview') return <ImportPreview outcome={outcome} onDismiss={onDismiss} />;
  const dismiss = (
    <button type="button" className="link-button dismiss" onClick={onDismiss}>
      Dismiss
    </button>
  );
  if (outcome.kind === 'imported') {
    return (
      <div className="alert alert-info with-dismiss" role="status">
        <span>
          <strong>{outcome.file} was imported:</strong> {plural(outcome.created, 'product', 'products')} created,{' '}
          {plural(outcome.updated, 'product', 'products')} updated.
        </span>
        {dismiss}
      </div>
    );
  }
  if (outcome.kind === 'failed') {
    return (
      <div className="with-dismiss">
        <ErrorMessage error={outcome.error} title={`${outcome.file} was not imported`} />
        {dismiss}
      </div>
    );
  }
  const count = outcome.problems.reduce((sum, p) => sum + p.messages.length, 0);
  return (
    <div className="alert alert-error import-problems" role="alert">
      <div className="with-dismiss">
        <strong>
          {outcome.file} was not imported: {plural(count, 'problem', 'problems')}. Nothing was changed.
        </strong>
        {dismiss}
      </div>
      <p>Fix these lines in the file and import it again (line 1 is the header row):</p>
      <ul>
        {outcome.problems.map((problem) =>
          problem.messages.map((message) => (
            <li key={`${problem.line}.${problem.column}.${message}`}>
              {problem.line !== null && <strong>Line {problem.line}</strong>}
              {problem.column && (
                <>
                  {problem.line !== null ? ', ' : ''}
                  <code>{problem.column}</code>
                </>
              )}
              : {message}
            </li>
          )),
        )}
      </ul>
    </div>
  );
}
