/** The editor's options (up to three, each with its values) and the variant grid that follows them. */
import { type KeyboardEvent, useRef, useState } from 'react';
import { type Draft, newKey, OPTIONS_MAX, splitValues, type VariantDraft, variantLabel, withOptions, withoutOption } from './product-draft';

export type Errors = Record<string, string[]>;
export type Update = (change: (draft: Draft) => Draft) => void;

/** The messages of a 422 key, under its input; `id` is the input's, so `aria-describedby` can point here. */
export function FieldError({ id, messages }: { id: string; messages: string[] | undefined }) {
  if (!messages?.length) return null;
  return (
    <p className="field-error" id={`${id}-error`}>
      {messages.join(' ')}
    </p>
  );
}

/** The ids an input is described by: its error when it has one, and a hint. */
export const describedBy = (id: string, messages: string[] | undefined, hint?: string) =>
  [messages?.length ? `${id}-error` : null, hint].filter(Boolean).join(' ') || undefined;

/** Messages of every key at or under `prefix` that `exact` keys do not already show, for a line below a group. */
export function messagesUnder(errors: Errors, prefix: string, shown: string[] = []): string[] {
  return Object.entries(errors)
    .filter(([key]) => (key === prefix || key.startsWith(`${prefix}.`)) && !shown.some((s) => key === s || key.startsWith(`${s}.`)))
    .flatMap(([, messages]) => messages);
}

/**
 * A list of short values typed into one box: a comma or Enter adds what was typed (a pasted "Red, Blue" adds both),
 * leaving the box adds it too; each value has its own remove button.
 */
export function ChipInput({
  id,
  name,
  values,
  onChange,
  max,
  invalid = [],
  describedBy: described,
  placeholder,
  removeLabel,
}: {
  id: string;
  name: string;
  removeLabel: (value: string) => string;
  values: string[];
  onChange: (values: string[]) => void;
  max: number;
  invalid?: string[];
  describedBy?: string;
  placeholder?: string;
}) {
  const [text, setText] = useState('');
  const input = useRef<HTMLInputElement>(null);
  const add = (raw: string) => {
    const next = [...values];
    for (const value of splitValues(raw)) if (!next.includes(value) && next.length < max) next.push(value);
    if (next.length !== values.length) onChange(next);
  };
  const change = (value: string) => {
    const parts = value.split(/[,\n]/);
    if (parts.length === 1) return setText(value);
    const rest = parts.pop()!;
    add(parts.join(','));
    setText(rest.trimStart());
  };
  const keyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    add(text);
    setText('');
  };
  return (
    <div className="chips">
      {values.length > 0 && (
        <ul className="chip-list" aria-label={`${name}: chosen`}>
          {values.map((value) => (
            <li key={value} className={invalid.includes(value) ? 'chip chip-invalid' : 'chip'}>
              <span>{value}</span>
              <button
                type="button"
                aria-label={removeLabel(value)}
                onClick={() => {
                  onChange(values.filter((v) => v !== value));
                  input.current?.focus();
                }}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <input
        ref={input}
        id={id}
        value={text}
        placeholder={values.length >= max ? `At most ${max}` : placeholder}
        disabled={values.length >= max}
        aria-describedby={described}
        aria-invalid={invalid.length > 0 || undefined}
        onChange={(e) => change(e.target.value)}
        onKeyDown={keyDown}
        onBlur={() => {
          if (text.trim()) add(text);
          setText('');
        }}
      />
    </div>
  );
}

const focusLater = (id: string) => setTimeout(() => document.getElementById(id)?.focus(), 0);

/** Up to three options; adding or removing an option or a value makes the variant grid follow. */
export function OptionsEditor({ draft, update, errors }: { draft: Draft; update: Update; errors: Errors }) {
  const setOption = (i: number, change: Partial<Draft['options'][number]>) =>
    update((d) => {
      const options = d.options.map((o, k) => (k === i ? { ...o, ...change } : o));
      return change.values ? withOptions(d, options) : { ...d, options };
    });
  return (
    <section className="card" aria-labelledby="product-options-heading">
      <h2 id="product-options-heading" tabIndex={-1}>
        Options
      </h2>
      <p className="muted small" id="options-hint">
        Options such as Color or Size, at most {OPTIONS_MAX}. Every combination of their values is a variant below; separate values with
        commas or press Enter.
      </p>
      {messagesUnder(
        errors,
        'options',
        draft.options.map((_, i) => `options.${i}`),
      ).map((m) => (
        <p className="field-error" key={m}>
          {m}
        </p>
      ))}
      {draft.options.map((option, i) => {
        const nameId = `product-options-${i}-name`;
        const valuesId = `product-options-${i}-values`;
        const title = option.name.trim() || `Option ${i + 1}`;
        const valueErrors = Object.keys(errors)
          .map((key) => /^options\.(\d+)\.values\.(\d+)$/.exec(key))
          .filter((m) => m && Number(m[1]) === i)
          .map((m) => option.values[Number(m![2])] ?? '');
        const valueMessages = Object.entries(errors)
          .filter(([key]) => key.startsWith(`options.${i}.values`))
          .flatMap(([key, messages]) => {
            const index = /\.values\.(\d+)$/.exec(key)?.[1];
            const value = index === undefined ? undefined : option.values[Number(index)];
            return messages.map((m) => (value === undefined ? m : `“${value}”: ${m}`));
          });
        const otherMessages = messagesUnder(errors, `options.${i}`, [`options.${i}.name`, `options.${i}.values`]);
        return (
          <fieldset className="option" key={option.key}>
            <legend>{title}</legend>
            <div className="option-fields">
              <div className="field">
                <label htmlFor={nameId}>Option name</label>
                <input
                  id={nameId}
                  value={option.name}
                  placeholder="e.g. Color"
                  maxLength={60}
                  aria-invalid={!!errors[`options.${i}.name`]}
                  aria-describedby={describedBy(nameId, errors[`options.${i}.name`])}
                  onChange={(e) => setOption(i, { name: e.target.value })}
                />
                <FieldError id={nameId} messages={errors[`options.${i}.name`]} />
              </div>
              <div className="field grow">
                <label htmlFor={valuesId}>Values of {title}</label>
                <ChipInput
                  id={valuesId}
                  name={`Values of ${title}`}
                  values={option.values}
                  max={100}
                  invalid={valueErrors}
                  placeholder={option.values.length ? 'Add another value' : 'e.g. Red, Blue'}
                  describedBy={describedBy(valuesId, valueMessages, 'options-hint')}
                  removeLabel={(value) => `Remove ${value} from ${title}`}
                  onChange={(values) => setOption(i, { values })}
                />
                <FieldError id={valuesId} messages={valueMessages} />
              </div>
              <button
                type="button"
                className="remove-option"
                onClick={() => {
                  update((d) => withoutOption(d, i));
                  focusLater('add-option');
                }}
              >
                Remove {title}
              </button>
            </div>
            {otherMessages.length > 0 && <p className="field-error">{otherMessages.join(' ')}</p>}
          </fieldset>
        );
      })}
      <button
        type="button"
        id="add-option"
        disabled={draft.options.length >= OPTIONS_MAX}
        onClick={() => {
          update((d) => withOptions(d, [...d.options, { key: newKey(), name: '', values: [] }]));
          focusLater(`product-options-${draft.options.length}-name`);
        }}
      >
        {draft.options.length >= OPTIONS_MAX
          ? `At most ${OPTIONS_MAX} options`
          : draft.options.length
            ? 'Add another option'
            : 'Add option'}
      </button>
    </section>
  );
}

const VARIANT_FIELDS = [
  { field: 'sku', label: 'SKU', inputMode: 'text', placeholder: 'e.g. SHIRT-RED-S' },
  { field: 'price', label: 'Price', inputMode: 'decimal', placeholder: '0.00' },
  { field: 'quantity', label: 'Quantity', inputMode: 'numeric', placeholder: '0' },
  { field: 'barcode', label: 'Barcode', inputMode: 'text', placeholder: 'Optional' },
] as const;
type VariantField = (typeof VARIANT_FIELDS)[number]['field'];

/** One row per combination of the options' values: sku, price, quantity and barcode of each. */
export function VariantsTable({ draft, update, errors }: { draft: Draft; update: Update; errors: Errors }) {
  const setField = (i: number, field: VariantField, value: string) =>
    update((d) => ({ ...d, variants: d.variants.map((row, k) => (k === i ? { ...row, [field]: value } : row)) }));
  const single = draft.options.length === 0;
  return (
    <section className="card" aria-labelledby="product-variants-heading">
      <h2 id="product-variants-heading" tabIndex={-1}>
        {single ? 'Price and stock' : `Variants (${draft.variants.length})`}
      </h2>
      {messagesUnder(
        errors,
        'variants',
        draft.variants.map((_, i) => `variants.${i}`),
      ).map((m) => (
        <p className="field-error" key={m}>
          {m}
        </p>
      ))}
      <div className="table-wrap">
        <table className="stack variants-table">
          <thead>
            <tr>
              {draft.options.map((o, k) => (
                <th scope="col" key={o.key}>
                  {o.name.trim() || `Option ${k + 1}`}
                </th>
              ))}
              {VARIANT_FIELDS.map((f) => (
                <th scope="col" key={f.field}>
                  {f.label}
                  {f.field === 'price' && <span className="muted"> ({draft.currency})</span>}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {draft.variants.map((row, i) => (
              <VariantRow key={row.key} row={row} i={i} draft={draft} errors={errors} setField={setField} single={single} />
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function VariantRow({
  row,
  i,
  draft,
  errors,
  setField,
  single,
}: {
  row: VariantDraft;
  i: number;
  draft: Draft;
  errors: Errors;
  setField: (i: number, field: VariantField, value: string) => void;
  single: boolean;
}) {
  const rowMessages = messagesUnder(
    errors,
    `variants.${i}`,
    VARIANT_FIELDS.map((f) => `variants.${i}.${f.field}`),
  );
  return (
    <tr className={rowMessages.length ? 'row-invalid' : undefined}>
      {draft.options.map((o, k) => (
        <td key={o.key} data-label={o.name.trim() || `Option ${k + 1}`} className="variant-value">
          {row.values[k] ?? <span className="muted">—</span>}
          {k === 0 && rowMessages.length > 0 && <p className="field-error">{rowMessages.join(' ')}</p>}
        </td>
      ))}
      {VARIANT_FIELDS.map((f) => {
        const id = `product-variants-${i}-${f.field}`;
        const messages = errors[`variants.${i}.${f.field}`];
        return (
          <td key={f.field} data-label={f.label}>
            <label className="visually-hidden" htmlFor={id}>
              {single ? f.label : `${f.label} of ${variantLabel(row)}`}
            </label>
            <input
              id={id}
              className={`variant-${f.field}`}
              value={row[f.field]}
              inputMode={f.inputMode}
              placeholder={f.placeholder}
              autoComplete="off"
              spellCheck={false}
              aria-invalid={!!messages}
              aria-describedby={describedBy(id, messages)}
              onChange={(e) => setField(i, f.field, e.target.value)}
            />
            <FieldError id={id} messages={messages} />
            {single && f.field === 'sku' && rowMessages.length > 0 && <p className="field-error">{rowMessages.join(' ')}</p>}
          </td>
        );
      })}
    </tr>
  );
}
