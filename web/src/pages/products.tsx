/** /workspace/<id>/products: the catalogue, searchable (`?q=`) and paginated (`?page=`), with CSV import and export. */
import { useEffect, useRef, useState } from 'react';
import { api, inWorkspace, unwrap } from '../api/client';
import { Link, navigate } from '../router';
import { Editable, ErrorMessage, Frame, Loading, lastWorkspace, Notice, useRequest } from '../ui';
import { BulkEditButton } from './bulk-edit';
import { ExportButton, ImportButton, type ImportOutcome, ImportResult } from './product-csv';
import type { Product } from './product-draft';
import { productsUrl, productUrl, useFlash, usePage } from './product-parts';
import { type Selection, selectionSummary } from './product-selection';
import { ProductTable } from './product-table';

const PER_PAGE = 25;
const SEARCH_DELAY_MS = 300;

function listUrl(workspaceId: string, q: string, page: number) {
  const query = new URLSearchParams();
  if (q) query.set('q', q);
  if (page > 1) query.set('page', String(page));
  const search = query.toString();
  return `${productsUrl(workspaceId)}${search ? `?${search}` : ''}`;
}

/** "3 products match “red”, showing 26–50." */
function resultLine(total: number, q: string, page: number, pages: number): string {
  if (total === 0) return `No products match “${q}”.`;
  const count = q
    ? `${total} ${total === 1 ? 'product matches' : 'products match'} “${q}”`
    : `${total} ${total === 1 ? 'product' : 'products'}`;
  if (page > pages) return `${count}; this page is past the last one.`;
  return pages > 1 ? `${count}, showing ${(page - 1) * PER_PAGE + 1}–${Math.min(page * PER_PAGE, total)}.` : `${count}.`;
}

export function ProductList({ workspaceId, search }: { workspaceId: string; search: URLSearchParams }) {
  usePage('Products');
  const q = (search.get('q') ?? '').trim();
  const page = Math.max(1, Math.floor(Number(search.get('page'))) || 1);
  const [text, setText] = useState(q);
  const [message, setMessage] = useFlash();
  const [outcome, setOutcome] = useState<ImportOutcome | null>(null);
  // The variants picked for a bulk edit, with their products as last shown (the page may move on meanwhile).
  const [selected, setSelected] = useState<Selection>(() => new Map());
  const picked = [...selected.values()];

  // The address follows the search box once the typing pauses, so a search is a link and Back undoes it.
  useEffect(() => {
    if (text.trim() === q) return;
    const timer = setTimeout(() => navigate(listUrl(workspaceId, text.trim(), 1), { replace: true }), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text, q, workspaceId]);

  const list = useRequest(async () => {
    const query = { page, per_page: PER_PAGE, ...(q ? { q } : {}) };
    const result = unwrap(await api.GET('/api/v1/products', { params: { query, header: inWorkspace(workspaceId) } }));
    return { rows: result.data, total: result.meta.total };
  }, `products-${workspaceId}-${page}-${q}`);
  // While a new page or search loads, the last one stays on screen (marked busy) instead of flashing away.
  const shown = useRef<{ rows: Product[]; total: number } | null>(null);
  if (list.state === 'ready') shown.current = list.data;
  const data = list.state === 'ready' ? list.data : shown.current;
  useEffect(() => {
    if (list.state === 'ready') lastWorkspace.set(workspaceId);
  }, [list.state, workspaceId]);

  const onOutcome = (next: ImportOutcome) => {
    setOutcome(next);
    setMessage(null);
    if (next.kind === 'imported') list.reload();
  };
  const catalogueEmpty = data !== null && data.total === 0 && q === '';
  const pages = data ? Math.max(1, Math.ceil(data.total / PER_PAGE)) : 1;

  return (
    <Frame workspaceId={workspaceId}>
      <div className="page-head">
        <h1>Products</h1>
        {data && !catalogueEmpty && (
          <div className="button-row">
            <Editable>
              <Link className="button primary" href={productUrl(workspaceId, 'new')}>
                Add product
              </Link>
              <ImportButton workspaceId={workspaceId} onOutcome={onOutcome} />
            </Editable>
            <ExportButton workspaceId={workspaceId} />
          </div>
        )}
      </div>
      {message && <Notice>{message}</Notice>}
      {outcome && <ImportResult outcome={outcome} onDismiss={() => setOutcome(null)} />}

      {list.state === 'error' && <ErrorMessage error={list.error} title="Could not load the products" />}
      {!data && list.state === 'loading' && <Loading what="products" />}

      {catalogueEmpty && (
        <section className="card empty-state" aria-labelledby="empty-heading">
          <h2 id="empty-heading">No products yet</h2>
          <p>
            Add your first product here, or import a spreadsheet saved as a CSV file, one row per variant. <strong>Import CSV…</strong>{' '}
            shows the columns it needs and offers a template to fill in; a product export from Shopify imports as it is. You see what will
            change before anything is written.
          </p>
          <Editable>
            <div className="button-row">
              <Link className="button primary" href={productUrl(workspaceId, 'new')}>
                Add a product
              </Link>
              <ImportButton workspaceId={workspaceId} onOutcome={onOutcome} />
            </div>
          </Editable>
        </section>
      )}

      {data && !catalogueEmpty && (
        <section className="card" aria-labelledby="catalogue-heading" aria-busy={list.state === 'loading'}>
          <h2 id="catalogue-heading" className="visually-hidden">
            Catalogue
          </h2>
          <div className="field search">
            <label htmlFor="product-search">Search products</label>
            <input
              id="product-search"
              type="search"
              value={text}
              placeholder="Title or SKU"
              autoComplete="off"
              onChange={(e) => setText(e.target.value)}
            />
          </div>
          <p className="muted small" role="status">
            {list.state === 'loading' ? 'Searching…' : resultLine(data.total, q, page, pages)}
          </p>
          {data.rows.length > 0 && (
            <>
              <div className="button-row">
                <Editable>
                  <BulkEditButton
                    picked={picked}
                    workspaceId={workspaceId}
                    onDone={(done) => {
                      setSelected(new Map());
                      setMessage(done);
                      list.reload();
                    }}
                  />
                </Editable>
                {selected.size > 0 && (
                  <span className="selection-line">
                    <span className="muted small">{selectionSummary(picked)} selected.</span>
                    <button type="button" className="link-button" onClick={() => setSelected(new Map())}>
                      Clear the selection
                    </button>
                  </span>
                )}
              </div>
              <ProductTable workspaceId={workspaceId} rows={data.rows} selected={selected} onSelect={setSelected} />
            </>
          )}
          {(pages > 1 || page > 1) && <Pagination workspaceId={workspaceId} q={q} page={page} pages={pages} />}
        </section>
      )}
    </Frame>
  );
}

function Pagination({ workspaceId, q, page, pages }: { workspaceId: string; q: string; page: number; pages: number }) {
  return (
    <nav className="pagination" aria-label="Pages">
      {page > 1 ? (
        <Link href={listUrl(workspaceId, q, Math.min(page - 1, pages))} rel="prev">
          ← Previous
        </Link>
      ) : (
        <span className="muted">← Previous</span>
      )}
      <span>
        Page {page} of {pages}
      </span>
      {page < pages ? (
        <Link href={listUrl(workspaceId, q, page + 1)} rel="next">
          Next →
        </Link>
      ) : (
        <span className="muted">Next →</span>
      )}
    </nav>
  );
}
