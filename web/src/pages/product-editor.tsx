/**
 * /workspace/<id>/products/new and /workspace/<id>/products/<product_id>: one product with its options, variants,
 * images and package. Saving sends every list whole (ids kept); a 422 shows each problem next to its field and in a
 * summary at the top.
 */
import { type FormEvent, type RefObject, useEffect, useMemo, useRef, useState } from 'react';
import { ApiError, api, inWorkspace, unwrap } from '../api/client';
import type { Role } from '../roles';
import { Link, navigate } from '../router';
import { Editable, ErrorMessage, Frame, formatDate, Loading, ReadOnly, useRequest } from '../ui';
import { DetailsSection, PackageSection } from './product-details';
import { bodyOf, type Draft, describeKey, draftOf, fieldIdOf, newKey, type Product, plainErrors } from './product-draft';
import { ImagesEditor } from './product-images';
import { ProductListings } from './product-listings';
import { type Errors, OptionsEditor, VariantsTable } from './product-options';
import { flash, productsUrl, productUrl, useFlash, usePage } from './product-parts';
import { StockMovements } from './product-stock';

async function loadProduct(workspaceId: string, productId: string): Promise<Product> {
  const id = Number(productId);
  if (!Number.isSafeInteger(id) || id < 1) throw new Error(`There is no product ${productId}.`);
  return unwrap(await api.GET('/api/v1/products/{product_id}', { params: { path: { product_id: id }, header: inWorkspace(workspaceId) } }))
    .data;
}

export function ProductEditor({ workspaceId, productId, role }: { workspaceId: string; productId: string | null; role?: Role }) {
  const loaded = useRequest(
    async () => (productId === null ? null : loadProduct(workspaceId, productId)),
    `product-${workspaceId}-${productId ?? 'new'}`,
  );
  // Each save may change the stock: the movements are read again after it.
  const [saves, setSaves] = useState(0);
  usePage(productId === null ? 'New product' : loaded.state === 'ready' && loaded.data ? loaded.data.title : 'Product');
  return (
    <Frame workspaceId={workspaceId} role={role}>
      <p className="breadcrumb">
        <Link href={productsUrl(workspaceId)}>← Products</Link>
      </p>
      {loaded.state === 'ready' ? (
        <>
          {role === 'viewer' && loaded.data === null ? (
            <>
              <h1>New product</h1>
              <p className="card">As a viewer of this workspace you can see its products but not add them.</p>
            </>
          ) : (
            <ProductForm workspaceId={workspaceId} stored={loaded.data} onSaved={() => setSaves((n) => n + 1)} />
          )}
          {loaded.data && (
            <ProductListings workspaceId={workspaceId} productId={loaded.data.id} variants={loaded.data.variants} role={role} />
          )}
          {loaded.data && <StockMovements workspaceId={workspaceId} productId={loaded.data.id} version={saves} />}
        </>
      ) : (
        <>
          <h1>Product</h1>
          {loaded.state === 'loading' ? (
            <Loading what="the product" />
          ) : (
            <ErrorMessage error={loaded.error} title="Could not load the product" />
          )}
        </>
      )}
    </Frame>
  );
}

function ProductForm({ workspaceId, stored, onSaved }: { workspaceId: string; stored: Product | null; onSaved: () => void }) {
  const [saved, setSaved] = useState(stored);
  const [draft, setDraft] = useState<Draft>(() => draftOf(stored));
  const [saving, setSaving] = useState(false);
  const [errors, setErrors] = useState<Errors>({});
  const [failure, setFailure] = useState<Error | null>(null);
  const [message, setMessage] = useFlash();
  const summary = useRef<HTMLDivElement>(null);
  const [refusals, setRefusals] = useState(0);
  // After each refused save the summary is read first: it says how many problems there are and links to each field.
  useEffect(() => {
    if (refusals > 0) summary.current?.focus();
  }, [refusals]);
  const errorCount = Object.values(errors).reduce((sum, m) => sum + m.length, 0);
  // Whether the form differs from what is stored, said next to the Save button so a reorder or an edit is not left unsaved.
  const baseline = useMemo(() => JSON.stringify(bodyOf(draftOf(saved))), [saved]);
  const dirty = JSON.stringify(bodyOf(draft)) !== baseline;

  async function save(event: FormEvent) {
    event.preventDefault();
    setSaving(true);
    setErrors({});
    setFailure(null);
    setMessage(null);
    const header = inWorkspace(workspaceId);
    try {
      const body = bodyOf(draft);
      if (!saved) {
        const created = unwrap(await api.POST('/api/v1/products', { params: { header }, body })).data;
        flash.set(`Product created. You can now upload images to it.`);
        navigate(productUrl(workspaceId, created.id), { replace: true });
        return;
      }
      const product = unwrap(
        await api.PATCH('/api/v1/products/{product_id}', { params: { path: { product_id: saved.id }, header }, body }),
      ).data;
      setSaved(product);
      setDraft(draftOf(product));
      onSaved();
      setMessage(product.version === saved.version ? 'Nothing had changed.' : `Saved. This is version ${product.version}.`);
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 422 && Object.keys(caught.fields).length > 0) {
        setErrors(plainErrors(caught.fields, draft));
        setRefusals((n) => n + 1);
      } else {
        setFailure(caught as Error);
      }
    } finally {
      setSaving(false);
    }
  }

  /** An upload changed the product: take its new images and version, keeping the unsaved edits. */
  async function afterUpload() {
    if (!saved) return;
    const product = await loadProduct(workspaceId, String(saved.id)).catch(() => null);
    if (!product) return;
    // New are the images neither saved before nor in the draft: one removed in the draft but not saved stays removed.
    const before = new Set(saved.images.map((i) => i.id));
    setSaved(product);
    setDraft((d) => {
      const known = new Set(d.images.map((i) => i.id));
      const added = product.images
        .filter((i) => !before.has(i.id) && !known.has(i.id))
        .map((i) => ({ key: newKey(), id: i.id, url: i.url, alt: i.alt ?? '', uploaded: i.uploaded }));
      return { ...d, images: [...d.images, ...added] };
    });
    setMessage(`Image uploaded. This is version ${product.version}.`);
  }

  const update = (change: (d: Draft) => Draft) => setDraft(change);
  const set = <K extends keyof Draft>(field: K, value: Draft[K]) => setDraft((d) => ({ ...d, [field]: value }));

  return (
    <form onSubmit={(e) => void save(e)} noValidate className="product-form">
      <div className="page-head">
        <h1>{saved ? saved.title : 'New product'}</h1>
        {saved && (
          <p className="muted small">
            Version {saved.version} · updated {formatDate(saved.updated_at)}
          </p>
        )}
      </div>
      {failure && <ErrorMessage error={failure} title="The product was not saved" />}
      {errorCount > 0 && <ErrorSummary errors={errors} draft={draft} summary={summary} />}

      <ReadOnly>
        <DetailsSection draft={draft} set={set} errors={errors} />
        <OptionsEditor draft={draft} update={update} errors={errors} />
        <VariantsTable draft={draft} update={update} errors={errors} />
        <ImagesEditor
          workspaceId={workspaceId}
          productId={saved?.id ?? null}
          draft={draft}
          update={update}
          errors={errors}
          onUploaded={() => void afterUpload()}
        />
        <PackageSection draft={draft} set={set} errors={errors} />
      </ReadOnly>

      <Editable>
        <div className="form-actions">
          <button type="submit" className="primary" disabled={saving}>
            {saving ? 'Saving…' : saved ? 'Save changes' : 'Create product'}
          </button>
          <Link href={productsUrl(workspaceId)}>{saved ? 'Back to products' : 'Cancel'}</Link>
          <span className={dirty ? 'unsaved-note' : 'saved-note'} role="status">
            {dirty ? (saved ? 'You have unsaved changes.' : '') : message}
          </span>
          {saved && <DeleteProduct workspaceId={workspaceId} product={saved} />}
        </div>
      </Editable>
    </form>
  );
}

/** Every problem of a refused save, each a link to its field; focused when it appears, so it is read first. */
function ErrorSummary({ errors, draft, summary }: { errors: Errors; draft: Draft; summary: RefObject<HTMLDivElement | null> }) {
  const count = Object.values(errors).reduce((sum, m) => sum + m.length, 0);
  return (
    <div className="alert alert-error error-summary" role="alert" tabIndex={-1} ref={summary} aria-labelledby="error-summary-title">
      <h2 id="error-summary-title">The product was not saved: {count === 1 ? 'one problem' : `${count} problems`}</h2>
      <p>Nothing was changed. Each problem is also shown next to its field.</p>
      <ul>
        {Object.entries(errors).flatMap(([key, messages]) =>
          messages.map((message) => (
            <li key={`${key}-${message}`}>
              <a
                href={`#${fieldIdOf(key)}`}
                onClick={(event) => {
                  const target = document.getElementById(fieldIdOf(key));
                  if (!target) return;
                  event.preventDefault();
                  target.focus();
                  target.scrollIntoView({ block: 'center' });
                }}
              >
                {describeKey(key, draft)}
              </a>
              : {message}
            </li>
          )),
        )}
      </ul>
    </div>
  );
}

/** Delete with a modal confirmation (Escape or Cancel closes it and focus goes back to the button). */
function DeleteProduct({ workspaceId, product }: { workspaceId: string; product: Product }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  async function remove() {
    setBusy(true);
    setError(null);
    try {
      unwrap(
        await api.DELETE('/api/v1/products/{product_id}', {
          params: { path: { product_id: product.id }, header: inWorkspace(workspaceId) },
        }),
      );
      dialog.current?.close();
      flash.set(`“${product.title}” was deleted.`);
      navigate(productsUrl(workspaceId));
    } catch (caught) {
      setError(caught as Error);
      setBusy(false);
    }
  }
  const variants = product.variants.length;
  return (
    <>
      <button
        type="button"
        className="danger push-right"
        onClick={() => {
          setError(null);
          dialog.current?.showModal();
          // The safe choice has the focus (React's autoFocus acts at mount, when the dialog is still closed).
          cancel.current?.focus();
        }}
      >
        Delete product…
      </button>
      <dialog ref={dialog} className="dialog" aria-labelledby="delete-title" aria-describedby="delete-text">
        <h2 id="delete-title">Delete “{product.title}”?</h2>
        <p id="delete-text">
          Its {variants === 1 ? 'variant' : `${variants} variants`} and{' '}
          {product.images.length === 1 ? 'image' : `${product.images.length} images`} go with it. This cannot be undone.
        </p>
        {error && <ErrorMessage error={error} title="Could not delete the product" />}
        <div className="button-row">
          <button type="button" className="danger" onClick={() => void remove()} disabled={busy}>
            {busy ? 'Deleting…' : 'Yes, delete it'}
          </button>
          <button type="button" ref={cancel} onClick={() => dialog.current?.close()} disabled={busy}>
            Cancel
          </button>
        </div>
      </dialog>
    </>
  );
}
