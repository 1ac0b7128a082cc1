/**
 * "Publish products": pick products from the catalogue, a leaf category of the platform (by search or by browsing),
 * fill the category's attributes (a form built from what the API says of each: select, multiselect, text, with the
 * platform's suggestions when it lists some, number, yes/no, a file to upload such as TikTok Shop's certificates; the
 * required ones marked), then validate or publish each
 * picked product (one POST per product). Validating shows the platform's warnings (TikTok Shop's listing check) without
 * holding the publish back. What the platform does next is said before publishing: on Etsy the fee, USD 0.20 for each
 * published listing; on TikTok Shop the review every listing goes through. On Amazon the barcode and the ASIN of an
 * existing product to offer on are one choice (a radio), only the chosen one's field shown and sent.
 */
import { type FormEvent, type ReactNode, useEffect, useRef, useState } from 'react';
import { ApiError, api, inWorkspace, unwrap } from '../api/client';
import { ErrorMessage, Loading, platformName, useRequest } from '../ui';
import { FileAttributeField } from './attribute-file';
import { type Attribute, type Category, type Issue, IssueList, type NamedVariant } from './listing-parts';
import { ListingSettings, type SiteLike } from './listing-settings';
import { productUrl } from './product-parts';
import { SettingsIdPrefix } from './settings-id-prefix';

const SEARCH_DELAY_MS = 300;
const ETSY_FEE_CENTS = 20;
/**
 * Amazon knows a product by a barcode (a new product) or by an existing ASIN the offer is on (which asks for no
 * barcode): one choice of the two, never both (docs/listings.md "How Storelink lists on Amazon").
 */
const BARCODE = 'externally_assigned_product_identifier';
const ASIN = 'merchant_suggested_asin';
type Identity = 'barcode' | 'asin';

type AttributeValue = string | string[] | boolean;
type Outcome =
  | { kind: 'valid' }
  | { kind: 'warnings'; issues: Issue[]; variants?: readonly NamedVariant[] }
  | { kind: 'issues'; issues: Issue[]; variants?: readonly NamedVariant[] }
  | { kind: 'published' }
  | { kind: 'conflict'; message: string }
  | { kind: 'failed'; message: string };

/** A text that follows its input once the typing pauses. */
function useDebounced(value: string): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [value]);
  return settled;
}

/** The dialog's copy of the settings does not decide whether the site can be listed: the page's does. */
const ignore = () => undefined;

export function PublishProducts({
  site,
  workspaceId,
  onPublished,
  onSettingsSaved,
  canSetSettings,
}: {
  site: SiteLike;
  workspaceId: string;
  onPublished: () => void;
  /** The site's listing settings were saved from inside the dialog: the page's copy reads them again. */
  onSettingsSaved: () => void;
  /** Owners and admins set the site's settings; a member is told to ask one of them. */
  canSetSettings: boolean;
}) {
  const { id: siteId, platform } = site;
  const dialog = useRef<HTMLDialogElement>(null);
  // The form is kept while the dialog is closed, so a seller who leaves it to set the site's settings finds their picks
  // again; a publish done starts the next one afresh.
  const [form, setForm] = useState(0);
  const [published, setPublished] = useState(false);
  // Whether the dialog is open: the settings' copy in it is taken off the page while it is closed.
  const [open, setOpen] = useState(false);
  const close = () => {
    setOpen(false);
    dialog.current?.close();
  };
  return (
    <>
      <button
        type="button"
        className="primary"
        onClick={() => {
          if (form === 0 || published) {
            setForm((n) => n + 1);
            setPublished(false);
          }
          dialog.current?.showModal();
          setOpen(true);
        }}
      >
        Publish products…
      </button>
      <dialog ref={dialog} className="dialog publish-dialog" aria-labelledby="publish-title" onClose={() => setOpen(false)}>
        {form > 0 && (
          <PublishForm
            key={form}
            siteId={siteId}
            workspaceId={workspaceId}
            platform={platform}
            onPublished={() => {
              setPublished(true);
              onPublished();
            }}
            onClose={close}
            settings={
              !open ? null : !canSetSettings ? (
                <p className="muted">An owner or an admin of the workspace sets the site’s listing settings: ask one of them.</p>
              ) : (
                // The site's listing settings, set inside the dialog: the picks stay as they are, and Validate again
                // reads the saved settings. Its ids start with `publish-` (the page under the dialog has the same form).
                <SettingsIdPrefix.Provider value="publish-">
                  <ListingSettings site={site} workspaceId={workspaceId} onAvailable={ignore} onSaved={onSettingsSaved} />
                </SettingsIdPrefix.Provider>
              )
            }
          />
        )}
      </dialog>
    </>
  );
}

function PublishForm({
  siteId,
  workspaceId,
  platform,
  onPublished,
  onClose,
  settings,
}: {
  siteId: number;
  workspaceId: string;
  platform: string;
  onPublished: () => void;
  onClose: () => void;
  /** The site's listing settings form, shown in the dialog when a result asks for a setting. */
  settings: ReactNode;
}) {
  const [settingsShown, setSettingsShown] = useState(false);
  useEffect(() => {
    if (settingsShown) document.getElementById('publish-settings-heading')?.focus();
  }, [settingsShown]);
  const [picked, setPicked] = useState<Map<number, string>>(() => new Map());
  const [category, setCategory] = useState<Category | null>(null);
  const [values, setValues] = useState<Record<string, AttributeValue>>({});
  const [identity, setIdentity] = useState<Identity>('barcode');
  const [outcomes, setOutcomes] = useState<Map<number, Outcome>>(() => new Map());
  const [busy, setBusy] = useState<'validate' | 'publish' | null>(null);
  // Each finished validate or publish moves the focus to its results once they are on the page: after React's commit,
  // not at the next frame, which a slow machine reached before the results were rendered (the focus then stayed on
  // the page, the disabled button having dropped it).
  const [finished, setFinished] = useState(0);
  useEffect(() => {
    if (finished > 0) document.getElementById('outcomes-heading')?.focus();
  }, [finished]);
  const header = inWorkspace(workspaceId);

  const attributes = useRequest(
    async () => {
      if (!category) return [] as Attribute[];
      return unwrap(
        await api.GET('/api/v1/sites/{site_id}/categories/{category_id}/attributes', {
          params: { path: { site_id: siteId, category_id: category.id }, header },
        }),
      ).data;
    },
    `attributes-${siteId}-${category?.id ?? 'none'}`,
  );
  const known = attributes.state === 'ready' ? attributes.data : [];
  // The category offers an offer on an existing ASIN (Amazon): the barcode and the ASIN are one choice.
  const offersAsin = known.some((attribute) => attribute.name === ASIN);
  const unchosen = offersAsin ? (identity === 'asin' ? BARCODE : ASIN) : null;
  const shown = known.filter((attribute) => attribute.name !== unchosen);

  /**
   * The attributes as the API takes them: a blank value is left out, a number as a number, and a text that is one of
   * the platform's suggestions by its name as that suggestion's value (the seller reads names; the platform takes ids).
   */
  function attributesBody(): Record<string, unknown> {
    const body: Record<string, unknown> = {};
    for (const attribute of shown) {
      const raw = values[attribute.name];
      const value = typeof raw === 'string' ? raw.trim() : raw;
      if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0)) continue;
      if (attribute.type === 'number' && typeof value === 'string') body[attribute.name] = Number(value);
      else if (attribute.type === 'text' && typeof value === 'string') body[attribute.name] = suggestionValue(attribute, value);
      else body[attribute.name] = value;
    }
    return body;
  }

  async function send(mode: 'validate' | 'publish') {
    if (!category) return;
    setBusy(mode);
    setOutcomes(new Map());
    const results = new Map<number, Outcome>();
    for (const productId of picked.keys()) {
      const body = {
        product_id: productId,
        category_id: category.id,
        attributes: attributesBody(),
        ...(mode === 'validate' ? { mode } : {}),
      };
      try {
        const result = unwrap(await api.POST('/api/v1/sites/{site_id}/listings', { params: { path: { site_id: siteId }, header }, body }));
        if (mode === 'publish') results.set(productId, { kind: 'published' });
        else {
          const answer = result.data as { valid: boolean; issues: Issue[] };
          const errors = answer.issues.filter((issue) => issue.severity === 'error');
          results.set(
            productId,
            !answer.valid || errors.length > 0
              ? { kind: 'issues', issues: answer.issues }
              : answer.issues.length > 0
                ? { kind: 'warnings', issues: answer.issues }
                : { kind: 'valid' },
          );
        }
      } catch (caught) {
        results.set(productId, outcomeOf(caught));
      }
      results.set(productId, await withVariants(workspaceId, productId, results.get(productId)!));
      setOutcomes(new Map(results));
    }
    setBusy(null);
    // The results may be below the fold: focus moves to them, so the seller (and a screen reader) lands on what was found.
    setFinished((count) => count + 1);
    if (mode === 'publish' && [...results.values()].some((o) => o.kind === 'published')) onPublished();
  }

  const count = picked.size;
  const ready = count > 0 && category !== null && attributes.state === 'ready';
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void send('publish');
  };

  return (
    <>
      <form onSubmit={submit} noValidate>
        <div className="page-head">
          <h2 id="publish-title">Publish products</h2>
          <button type="button" onClick={onClose} aria-label="Close">
            Close
          </button>
        </div>
        <ProductPicker workspaceId={workspaceId} picked={picked} setPicked={setPicked} />
        <CategoryPicker
          siteId={siteId}
          workspaceId={workspaceId}
          category={category}
          onPick={(c) => (setCategory(c), setValues({}), setIdentity('barcode'))}
        />
        {category && (
          <fieldset className="publish-step">
            <legend>3. What a listing in {category.name} says</legend>
            {attributes.state === 'loading' && <Loading what="the category's attributes" />}
            {attributes.state === 'error' && <ErrorMessage error={attributes.error} title="Could not load the attributes" />}
            {attributes.state === 'ready' && known.length === 0 && <p className="empty">This category asks for nothing more.</p>}
            {offersAsin && <IdentityChoice identity={identity} onChange={setIdentity} />}
            <div className="form-grid">
              {shown.map((attribute) => (
                <AttributeField
                  key={attribute.name}
                  workspaceId={workspaceId}
                  attribute={attribute}
                  value={values[attribute.name]}
                  onChange={(value) => setValues((v) => ({ ...v, [attribute.name]: value }))}
                />
              ))}
            </div>
          </fieldset>
        )}
        {platform === 'etsy' && count > 0 && (
          <p className="alert alert-info fee-note" role="note">
            Etsy charges the seller USD 0.20 for each published listing. Publishing{' '}
            {count === 1 ? 'this product' : `these ${count} products`} makes {count === 1 ? 'one listing' : `${count} listings`}: USD{' '}
            {((count * ETSY_FEE_CENTS) / 100).toFixed(2)}, billed by Etsy to the shop. Validating costs nothing.
          </p>
        )}
        {platform === 'tiktok-shop' && count > 0 && (
          <p className="alert alert-info review-note" role="note">
            TikTok Shop reviews every new listing before buyers see it: a published listing shows “In review on TikTok Shop” until TikTok
            Shop passes it (then Active) or refuses it (then Rejected, with TikTok Shop’s reasons). Validating runs TikTok Shop’s listing
            check; its warnings do not stop a publish.
          </p>
        )}
        {platform === 'amazon-seller' && count > 0 && (
          <p className="alert alert-info review-note" role="note">
            Each variant is its own SKU on Amazon; a product with options is a variation family, its variants under a parent SKU with the
            product type’s theme that fits the options (Size, Color…). Amazon processes a new listing before it is buyable: it shows “In
            review on Amazon” until then. Validating checks the product type’s rules and runs Amazon’s validation preview; nothing is
            listed.
          </p>
        )}
        <Outcomes
          picked={picked}
          outcomes={outcomes}
          attributes={known}
          platform={platformName(platform)}
          workspaceId={workspaceId}
          onFixSettings={() => setSettingsShown(true)}
          settingsShown={settingsShown}
        />
        <div className="button-row">
          <button type="button" onClick={() => void send('validate')} disabled={!ready || busy !== null}>
            {busy === 'validate' ? 'Validating…' : 'Validate'}
          </button>
          <button type="submit" className="primary" disabled={!ready || busy !== null}>
            {busy === 'publish' ? 'Publishing…' : count > 1 ? `Publish ${count} products` : 'Publish'}
          </button>
          {!ready && <span className="muted small">Pick at least one product and a category first.</span>}
        </div>
      </form>
      {/* A form of its own, after the publish form's (a form inside a form would submit both: a save would publish). */}
      {settingsShown && <div className="publish-settings">{settings}</div>}
    </>
  );
}

/** An outcome with an issue on a variant, given the product's variants: the issue names it by its SKU, not its place. */
async function withVariants(workspaceId: string, productId: number, outcome: Outcome): Promise<Outcome> {
  if (!('issues' in outcome) || !outcome.issues.some((issue) => issue.field?.startsWith('product.variants.'))) return outcome;
  const variants = await api
    .GET('/api/v1/products/{product_id}', { params: { path: { product_id: productId }, header: inWorkspace(workspaceId) } })
    .then((result) => unwrap(result).data.variants)
    .catch(() => undefined);
  return { ...outcome, variants };
}

function outcomeOf(caught: unknown): Outcome {
  if (!(caught instanceof ApiError)) return { kind: 'failed', message: (caught as Error).message };
  if (caught.status === 409) return { kind: 'conflict', message: 'This product is already listed on this site.' };
  if (caught.status === 422 && Object.keys(caught.fields).length > 0) {
    const issues = Object.entries(caught.fields).flatMap(([field, messages]) =>
      messages.map((message): Issue => ({ severity: 'error', code: 'refused', message, field, source: 'storelink' })),
    );
    return { kind: 'issues', issues };
  }
  return { kind: 'failed', message: caught.message };
}

function Outcomes({
  picked,
  outcomes,
  attributes,
  platform,
  workspaceId,
  onFixSettings,
  settingsShown,
}: {
  picked: Map<number, string>;
  outcomes: Map<number, Outcome>;
  attributes: Attribute[];
  platform: string;
  workspaceId: string;
  onFixSettings: () => void;
  settingsShown: boolean;
}) {
  if (outcomes.size === 0) return null;
  const needsSettings = [...outcomes.values()].some(
    (outcome) => 'issues' in outcome && outcome.issues.some((issue) => issue.field?.startsWith('settings.')),
  );
  return (
    <section className="outcomes" aria-labelledby="outcomes-heading" aria-live="polite">
      <h3 id="outcomes-heading" tabIndex={-1}>
        Results
      </h3>
      {needsSettings && !settingsShown && (
        <p>
          <button type="button" onClick={onFixSettings}>
            Set the site’s listing settings here
          </button>{' '}
          <span className="muted small">Your picks stay as they are: save the settings below the buttons, then Validate again.</span>
        </p>
      )}
      <ul>
        {[...outcomes].map(([id, outcome]) => (
          <li key={id} className={`outcome outcome-${outcome.kind}`}>
            <strong>{picked.get(id) ?? `Product ${id}`}</strong>: {sayOutcome(outcome, platform)}
            {(outcome.kind === 'issues' || outcome.kind === 'warnings') && (
              <IssueList
                issues={outcome.issues}
                attributes={attributes}
                platform={platform}
                variants={outcome.variants}
                fixAt={{ product: productUrl(workspaceId, id) }}
              />
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

function sayOutcome(outcome: Outcome, platform: string): string {
  switch (outcome.kind) {
    case 'valid':
      return 'ready to publish, no problems.';
    case 'warnings': {
      const n = outcome.issues.length;
      return `ready to publish, with ${n === 1 ? 'one warning' : `${n} warnings`} from ${platform} (publishing is still possible).`;
    }
    case 'published':
      return 'published: the listing is on its way (pending).';
    case 'issues': {
      const errors = outcome.issues.filter((issue) => issue.severity === 'error').length || outcome.issues.length;
      return `${errors === 1 ? 'one problem' : `${errors} problems`}; nothing was published.`;
    }
    case 'conflict':
    case 'failed':
      return outcome.message;
  }
}

/** Step 1: a searchable list of the catalogue with checkboxes; the picks are kept across searches. */
function ProductPicker({
  workspaceId,
  picked,
  setPicked,
}: {
  workspaceId: string;
  picked: Map<number, string>;
  setPicked: (next: Map<number, string>) => void;
}) {
  const [text, setText] = useState('');
  const q = useDebounced(text.trim());
  const found = useRequest(async () => {
    const query = { page: 1, per_page: 25, ...(q ? { q } : {}) };
    return unwrap(await api.GET('/api/v1/products', { params: { query, header: inWorkspace(workspaceId) } }));
  }, `publish-products-${q}`);
  const toggle = (id: number, title: string, on: boolean) => {
    const next = new Map(picked);
    if (on) next.set(id, title);
    else next.delete(id);
    setPicked(next);
  };
  return (
    <fieldset className="publish-step">
      <legend>1. Products</legend>
      <div className="field search">
        <label htmlFor="publish-product-search">Search the catalogue</label>
        <input
          id="publish-product-search"
          type="search"
          value={text}
          placeholder="Title or SKU"
          autoComplete="off"
          onChange={(e) => setText(e.target.value)}
        />
      </div>
      <p className="muted small" role="status">
        {picked.size === 0 ? 'No product picked yet.' : `${picked.size} picked: ${[...picked.values()].join(', ')}.`}
      </p>
      {found.state === 'loading' && <Loading what="products" />}
      {found.state === 'error' && <ErrorMessage error={found.error} title="Could not load the products" />}
      {found.state === 'ready' && found.data.data.length === 0 && (
        <p className="empty">{q ? `No products match “${q}”.` : 'The catalogue is empty: add products first.'}</p>
      )}
      {found.state === 'ready' && found.data.data.length > 0 && (
        <ul className="pick-list">
          {found.data.data.map((product) => (
            <li key={product.id}>
              <label className="checkbox">
                <input
                  type="checkbox"
                  checked={picked.has(product.id)}
                  onChange={(e) => toggle(product.id, product.title, e.target.checked)}
                />{' '}
                {product.title} <code className="muted small">{product.sku}</code>
              </label>
            </li>
          ))}
          {found.data.meta.total > found.data.data.length && (
            <li className="muted small">{found.data.meta.total - found.data.data.length} more: search to find them.</li>
          )}
        </ul>
      )}
    </fieldset>
  );
}

/** Step 2: a category found by name or by browsing from the top; only a leaf (no subcategories) can be picked. */
function CategoryPicker({
  siteId,
  workspaceId,
  category,
  onPick,
}: {
  siteId: number;
  workspaceId: string;
  category: Category | null;
  onPick: (category: Category) => void;
}) {
  const [text, setText] = useState('');
  const [trail, setTrail] = useState<Category[]>([]);
  const q = useDebounced(text.trim());
  const parent = trail[trail.length - 1];
  const found = useRequest(
    async () => {
      const query = q ? { q } : parent ? { parent_id: parent.id } : {};
      return unwrap(
        await api.GET('/api/v1/sites/{site_id}/categories', {
          params: { path: { site_id: siteId }, query, header: inWorkspace(workspaceId) },
        }),
      ).data;
    },
    `categories-${siteId}-${q}-${parent?.id ?? 'top'}`,
  );
  const browse = (next: Category[]) => {
    setText('');
    setTrail(next);
  };
  return (
    <fieldset className="publish-step">
      <legend>2. Category</legend>
      <p className="muted small" role="status">
        {category
          ? `Picked: ${category.path.join(' › ')}`
          : 'No category picked yet. Only a category without subcategories can hold a listing.'}
      </p>
      <div className="field search">
        <label htmlFor="publish-category-search">Search categories</label>
        <input
          id="publish-category-search"
          type="search"
          value={text}
          placeholder="For example: mug, tote"
          autoComplete="off"
          onChange={(e) => setText(e.target.value)}
        />
      </div>
      {!q && (
        <nav aria-label="Category path" className="category-trail">
          <button type="button" className="link-button" onClick={() => browse([])} disabled={trail.length === 0}>
            All categories
          </button>
          {trail.map((c, i) => (
            <span key={c.id}>
              {' › '}
              <button type="button" className="link-button" onClick={() => browse(trail.slice(0, i + 1))} disabled={i === trail.length - 1}>
                {c.name}
              </button>
            </span>
          ))}
        </nav>
      )}
      {found.state === 'loading' && <Loading what="categories" />}
      {found.state === 'error' && <ErrorMessage error={found.error} title="Could not load the categories" />}
      {found.state === 'ready' && found.data.length === 0 && <p className="empty">No categories match “{q}”.</p>}
      {found.state === 'ready' && found.data.length > 0 && (
        <ul className="pick-list category-list">
          {found.data.map((c) => (
            <li key={c.id}>
              {c.leaf ? (
                <label className="checkbox">
                  <input type="radio" name="publish-category" checked={category?.id === c.id} onChange={() => onPick(c)} />{' '}
                  {q ? c.path.join(' › ') : c.name}
                </label>
              ) : (
                <button
                  type="button"
                  className="link-button" // A search result's path is names only (no ids), so browsing from one starts at the category itself.
                  onClick={() => browse(q ? [c] : [...trail, c])}
                >
                  {q ? c.path.join(' › ') : c.name} <span className="muted small">(has subcategories: open)</span>
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </fieldset>
  );
}

/** How Amazon knows the product: a new product by its barcodes, or an offer on an existing ASIN; the form shows that field alone. */
function IdentityChoice({ identity, onChange }: { identity: Identity; onChange: (identity: Identity) => void }) {
  return (
    <fieldset className="field attribute-choices">
      <legend className="label">How Amazon knows the product</legend>
      <label className="checkbox">
        <input type="radio" name="publish-identity" value="barcode" checked={identity === 'barcode'} onChange={() => onChange('barcode')} />{' '}
        A product of its own, by each variant’s barcode
      </label>
      <label className="checkbox">
        <input type="radio" name="publish-identity" value="asin" checked={identity === 'asin'} onChange={() => onChange('asin')} /> An offer
        on an existing Amazon product, by its ASIN (no barcode)
      </label>
    </fieldset>
  );
}

/** The value of the text attribute's suggestion named `text` (case aside), else the text as the seller typed it. */
function suggestionValue(attribute: Attribute, text: string): string {
  const named = attribute.values.find((choice) => choice.label.toLowerCase() === text.toLowerCase());
  return named ? named.value : text;
}

/**
 * One attribute's control: a select, checkboxes for a multiselect, a checkbox for yes/no, a number input, an upload for
 * a file (a certificate), else a text input, offering the platform's suggestions when it lists some (a datalist: pick
 * one or type another).
 */
function AttributeField({
  workspaceId,
  attribute,
  value,
  onChange,
}: {
  workspaceId: string;
  attribute: Attribute;
  value: AttributeValue | undefined;
  onChange: (value: AttributeValue) => void;
}) {
  const id = `attribute-${attribute.name}`;
  const label = (
    <>
      {attribute.label}
      {attribute.required ? (
        <span className="required">
          {' '}
          <span aria-hidden="true">*</span>
          <span className="visually-hidden">(required)</span>
        </span>
      ) : (
        <span className="muted small"> (optional)</span>
      )}
    </>
  );
  if (attribute.type === 'file')
    return (
      <FileAttributeField
        id={id}
        label={label}
        workspaceId={workspaceId}
        value={typeof value === 'string' ? value : ''}
        onChange={onChange}
      />
    );
  // A text with values lists the platform's suggestions (TikTok Shop: a value the seller may also make up).
  const suggested = attribute.type === 'text' && attribute.values.length > 0;
  if (attribute.type === 'multiselect') {
    const chosen = Array.isArray(value) ? value : [];
    return (
      <fieldset className="field attribute-choices">
        <legend className="label">{label}</legend>
        {attribute.values.length === 0 && <p className="muted small">The platform offers no choices for this.</p>}
        {attribute.values.map((choice) => (
          <label key={choice.value} className="checkbox">
            <input
              type="checkbox"
              checked={chosen.includes(choice.value)}
              onChange={(e) => onChange(e.target.checked ? [...chosen, choice.value] : chosen.filter((v) => v !== choice.value))}
            />{' '}
            {choice.label}
          </label>
        ))}
      </fieldset>
    );
  }
  if (attribute.type === 'boolean') {
    return (
      <div className="field">
        <label className="checkbox">
          <input type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} /> {label}
        </label>
      </div>
    );
  }
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {attribute.type === 'select' && attribute.values.length > 0 ? (
        <select
          id={id}
          value={typeof value === 'string' ? value : ''}
          required={attribute.required}
          onChange={(e) => onChange(e.target.value)}
        >
          <option value="">Choose…</option>
          {attribute.values.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.label}
            </option>
          ))}
        </select>
      ) : attribute.type === 'number' ? (
        <input
          id={id}
          type="number"
          inputMode="decimal"
          step="any"
          value={typeof value === 'string' ? value : ''}
          required={attribute.required}
          onChange={(e) => onChange(e.target.value)}
        />
      ) : (
        <>
          <input
            id={id}
            type="text"
            list={suggested ? `${id}-suggestions` : undefined}
            autoComplete="off"
            value={typeof value === 'string' ? value : ''}
            required={attribute.required}
            aria-describedby={suggested ? `${id}-hint` : undefined}
            onChange={(e) => onChange(e.target.value)}
          />
          {suggested && (
            <>
              <datalist id={`${id}-suggestions`}>
                {attribute.values.map((choice) => (
                  <option key={choice.value} value={choice.label} />
                ))}
              </datalist>
              <p id={`${id}-hint`} className="muted small hint">
                Pick a suggestion ({attribute.values.map((choice) => choice.label).join(', ')}) or type your own.
              </p>
            </>
          )}
        </>
      )}
    </div>
  );
}
