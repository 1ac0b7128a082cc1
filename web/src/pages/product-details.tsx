/** The editor's plain fields: title, description, brand, currency and tags; the package's size and weight. */
import { type Draft, PACKAGE_FIELDS, TAGS_MAX } from './product-draft';
import { ChipInput, describedBy, type Errors, FieldError } from './product-options';
import { CURRENCIES } from './product-parts';

export type SetField = <K extends keyof Draft>(field: K, value: Draft[K]) => void;

function TextField({
  id,
  label,
  value,
  onChange,
  errors,
  hint,
  ...rest
}: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  errors: string[] | undefined;
  hint?: string;
  maxLength?: number;
  required?: boolean;
  placeholder?: string;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        value={value}
        aria-invalid={!!errors}
        aria-describedby={describedBy(id, errors, hint ? `${id}-hint` : undefined)}
        onChange={(e) => onChange(e.target.value)}
        {...rest}
      />
      {hint && (
        <p className="muted small hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      <FieldError id={id} messages={errors} />
    </div>
  );
}

export function DetailsSection({ draft, set, errors }: { draft: Draft; set: SetField; errors: Errors }) {
  const currencies = CURRENCIES.some((c) => c.code === draft.currency)
    ? CURRENCIES
    : [{ code: draft.currency, name: draft.currency }, ...CURRENCIES];
  const tagErrors = Object.entries(errors)
    .filter(([key]) => key === 'tags' || key.startsWith('tags.'))
    .flatMap(([key, messages]) => {
      const tag = draft.tags[Number(key.split('.')[1])];
      return messages.map((m) => (tag === undefined ? m : `“${tag}”: ${m}`));
    });
  return (
    <section className="card" aria-labelledby="details-heading">
      <h2 id="details-heading">Details</h2>
      <TextField
        id="product-title"
        label="Title"
        value={draft.title}
        onChange={(v) => set('title', v)}
        errors={errors.title}
        maxLength={140}
        required
        placeholder="e.g. Linen shirt"
      />
      <div className="field">
        <label htmlFor="product-description">Description</label>
        <textarea
          id="product-description"
          rows={5}
          value={draft.description}
          maxLength={50_000}
          aria-invalid={!!errors.description}
          aria-describedby={describedBy('product-description', errors.description, 'product-description-hint')}
          onChange={(e) => set('description', e.target.value)}
        />
        <p className="muted small hint" id="product-description-hint">
          Plain text.
        </p>
        <FieldError id="product-description" messages={errors.description} />
      </div>
      <div className="form-grid">
        <TextField
          id="product-brand"
          label="Brand"
          value={draft.brand}
          onChange={(v) => set('brand', v)}
          errors={errors.brand}
          maxLength={100}
        />
        <div className="field">
          <label htmlFor="product-currency">Currency</label>
          <select
            id="product-currency"
            value={draft.currency}
            aria-invalid={!!errors.currency}
            aria-describedby={describedBy('product-currency', errors.currency)}
            onChange={(e) => set('currency', e.target.value)}
          >
            {currencies.map((c) => (
              <option key={c.code} value={c.code}>
                {c.code} · {c.name}
              </option>
            ))}
          </select>
          <FieldError id="product-currency" messages={errors.currency} />
        </div>
      </div>
      <div className="field">
        <label htmlFor="product-tags">Tags</label>
        <ChipInput
          id="product-tags"
          name="Tags"
          values={draft.tags}
          max={TAGS_MAX}
          placeholder="e.g. summer, linen"
          invalid={tagErrors.length ? draft.tags.filter((_, i) => errors[`tags.${i}`]) : []}
          describedBy={describedBy('product-tags', tagErrors.length ? tagErrors : undefined, 'product-tags-hint')}
          removeLabel={(tag) => `Remove tag ${tag}`}
          onChange={(tags) => set('tags', tags)}
        />
        <p className="muted small hint" id="product-tags-hint">
          Up to {TAGS_MAX} tags of at most 20 characters; separate them with commas or press Enter.
        </p>
        <FieldError id="product-tags" messages={tagErrors.length ? tagErrors : undefined} />
      </div>
    </section>
  );
}

export function PackageSection({ draft, set, errors }: { draft: Draft; set: SetField; errors: Errors }) {
  return (
    <section className="card" aria-labelledby="package-heading">
      <h2 id="package-heading">Package</h2>
      <p className="muted small" id="package-hint">
        The packed size and weight, in whole grams and millimetres. Give what you know (a weight alone will do); TikTok Shop needs all four.
      </p>
      {errors.package && <p className="field-error">{errors.package.join(' ')}</p>}
      <div className="form-grid four">
        {PACKAGE_FIELDS.map((f) => {
          const id = `product-package-${f.name}`;
          const messages = errors[`package.${f.name}`];
          return (
            <div className="field" key={f.name}>
              <label htmlFor={id}>{f.label}</label>
              <input
                id={id}
                inputMode="numeric"
                value={draft.package[f.name]}
                aria-invalid={!!messages}
                aria-describedby={describedBy(id, messages, 'package-hint')}
                onChange={(e) => set('package', { ...draft.package, [f.name]: e.target.value })}
              />
              <FieldError id={id} messages={messages} />
            </div>
          );
        })}
      </div>
    </section>
  );
}
