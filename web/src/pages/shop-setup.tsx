/**
 * A new Etsy shop's prerequisites, made from the listing settings page (PUT listing-settings' `new_shipping_profile`,
 * `new_return_policy` and `new_processing_profile`): for each the shop has none of, a form prefilled with defaults the
 * seller confirms or changes, sent with the settings when its box is ticked. A shipping profile ships from the shop's
 * country to it, 3–7 days, free unless the seller prices it; a return policy takes returns and exchanges for 30 days,
 * offered unticked to a shop in the EU, of which Etsy asks none; a processing profile is ready to ship in 1–3 days.
 */
import { type ReactNode, useContext } from 'react';
import { SettingsIdPrefix } from './settings-id-prefix';

/** The three, by the field PUT takes, with the setting each fills and what the seller reads. */
export const SHOP_SETUP = [
  { name: 'new_shipping_profile', fills: 'shipping_profile_id', legend: 'Create a shipping profile on Etsy' },
  { name: 'new_return_policy', fills: 'return_policy_id', legend: 'Create a return policy on Etsy' },
  { name: 'new_processing_profile', fills: 'readiness_state_id', legend: 'Create a processing profile on Etsy' },
] as const;
export type SetupName = (typeof SHOP_SETUP)[number]['name'];

/**
 * The countries of the European Union, whose Etsy shops need no return policy (listings.md §1.4; the server's own list
 * is in src/platforms/etsy/listing-settings.ts, which the dashboard may not import).
 */
const EU = new Set('AT BE BG CY CZ DE DK EE ES FI FR GR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK'.split(' '));
export const isEu = (country: string | null) => country !== null && EU.has(country);

const DEADLINES = [7, 14, 21, 30, 45, 60, 90];

/** "a, b or c". */
const wordsOf = (items: string[]) => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`);

/** Each create's fields as the form holds them (text, or a flag), and whether it is to be sent. */
export type SetupValues = Record<SetupName, { send: boolean; fields: Record<string, string | boolean> }>;

/** The prefilled forms: sent where the shop has none of it (a return policy not in the EU). */
export function setupDefaults(country: string | null, missing: (fills: string) => boolean): SetupValues {
  const from = country ?? '';
  return {
    new_shipping_profile: {
      send: missing('shipping_profile_id'),
      fields: {
        title: 'Standard shipping',
        origin_country_iso: from,
        origin_postal_code: '',
        destination_country_iso: from,
        primary_cost: '0.00',
        secondary_cost: '0.00',
        min_delivery_days: '3',
        max_delivery_days: '7',
      },
    },
    new_return_policy: {
      send: missing('return_policy_id') && !isEu(country),
      fields: { accepts_returns: true, accepts_exchanges: true, return_deadline: '30' },
    },
    new_processing_profile: {
      send: missing('readiness_state_id'),
      fields: { readiness_state: 'ready_to_ship', min_processing_time: '1', max_processing_time: '3', processing_time_unit: 'days' },
    },
  };
}

const NUMBER_FIELDS = ['min_delivery_days', 'max_delivery_days', 'return_deadline', 'min_processing_time', 'max_processing_time'];

/** A create as PUT takes it: numbers as numbers, an empty text left out. */
export function setupBody(values: SetupValues): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const { name } of SHOP_SETUP) {
    const { send, fields } = values[name];
    if (!send) continue;
    const input: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(fields)) {
      if (typeof value === 'boolean') input[key] = value;
      else if (value.trim() === '') continue;
      else input[key] = NUMBER_FIELDS.includes(key) ? Number(value) : value.trim();
    }
    if (name === 'new_return_policy' && input.accepts_returns === false && input.accepts_exchanges === false) delete input.return_deadline;
    body[name] = input;
  }
  return body;
}

const LABELS: Record<string, string> = {
  title: 'Profile name',
  origin_country_iso: 'Ships from (country code)',
  origin_postal_code: 'Ships from (postal code)',
  destination_country_iso: 'Ships to (country code)',
  primary_cost: 'Shipping cost, one item',
  secondary_cost: 'Each additional item',
  min_delivery_days: 'Delivery takes at least (days)',
  max_delivery_days: 'Delivery takes at most (days)',
  accepts_returns: 'Accepts returns',
  accepts_exchanges: 'Accepts exchanges',
  return_deadline: 'Within (days)',
  readiness_state: 'The items are',
  min_processing_time: 'Ready at least after',
  max_processing_time: 'Ready at most after',
  processing_time_unit: 'In',
};

/**
 * The forms of the creates the shop needs. `errorsOf` gives a field's errors (`new_shipping_profile.title`, or the
 * create's own); `onChange` sets one value.
 */
export function ShopSetup({
  values,
  country,
  needs,
  errorsOf,
  onChange,
}: {
  values: SetupValues;
  country: string | null;
  /** Which creates to offer: those whose setting the shop has no choice for. */
  needs: (fills: string) => boolean;
  errorsOf: (key: string) => string[] | undefined;
  onChange: (name: SetupName, field: string | null, value: string | boolean) => void;
}) {
  const prefix = useContext(SettingsIdPrefix);
  const offered = SHOP_SETUP.filter((setup) => needs(setup.fills));
  if (offered.length === 0) return null;
  return (
    <div className="shop-setup">
      <p className="muted small" id={`${prefix}shop-setup-help`}>
        This Etsy shop has no {wordsOf(offered.map((o) => o.legend.replace(/^Create an? | on Etsy$/g, '')))} yet. Storelink can create{' '}
        {offered.length === 1 ? 'it' : 'them'} on the shop with these values when you save; check them first.
      </p>
      {offered.map(({ name, legend }) => {
        const { send, fields } = values[name];
        const id = (field: string) => `${prefix}${name}-${field}`;
        const input = (field: string, control: ReactNode) => {
          const errors = errorsOf(`${name}.${field}`);
          return (
            <div className="field" key={field}>
              <label htmlFor={id(field)}>{LABELS[field]}</label>
              {control}
              {errors && (
                <p id={`${id(field)}-error`} className="field-error">
                  {errors.join(' ')}
                </p>
              )}
            </div>
          );
        };
        const text = (field: string, extra: { inputMode?: 'decimal' | 'numeric'; maxLength?: number } = {}) =>
          input(
            field,
            <input
              id={id(field)}
              value={String(fields[field] ?? '')}
              onChange={(e) => onChange(name, field, e.target.value)}
              aria-invalid={errorsOf(`${name}.${field}`) ? true : undefined}
              aria-describedby={errorsOf(`${name}.${field}`) ? `${id(field)}-error` : undefined}
              {...extra}
            />,
          );
        const select = (field: string, choices: [string, string][]) =>
          input(
            field,
            <select id={id(field)} value={String(fields[field])} onChange={(e) => onChange(name, field, e.target.value)}>
              {choices.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>,
          );
        const flag = (field: string) => (
          <label className="checkbox" key={field}>
            <input type="checkbox" checked={fields[field] === true} onChange={(e) => onChange(name, field, e.target.checked)} />{' '}
            {LABELS[field]}
          </label>
        );
        const own = errorsOf(name);
        return (
          <fieldset className="option" key={name}>
            <legend>{legend}</legend>
            <label className="checkbox">
              <input type="checkbox" checked={send} onChange={(e) => onChange(name, null, e.target.checked)} /> Create it when I save
            </label>
            {name === 'new_return_policy' && isEu(country) && (
              <p className="muted small">
                Etsy does not require a return policy of a shop in the EU: leave this unticked if you have none.
              </p>
            )}
            {own && <p className="field-error">{own.join(' ')}</p>}
            {send && (
              <div className="form-grid">
                {name === 'new_shipping_profile' && (
                  <>
                    {text('title', { maxLength: 100 })}
                    {text('origin_country_iso', { maxLength: 2 })}
                    {text('origin_postal_code', { maxLength: 20 })}
                    {text('destination_country_iso', { maxLength: 2 })}
                    {text('primary_cost', { inputMode: 'decimal' })}
                    {text('secondary_cost', { inputMode: 'decimal' })}
                    {text('min_delivery_days', { inputMode: 'numeric' })}
                    {text('max_delivery_days', { inputMode: 'numeric' })}
                  </>
                )}
                {name === 'new_return_policy' && (
                  <>
                    {flag('accepts_returns')}
                    {flag('accepts_exchanges')}
                    {select(
                      'return_deadline',
                      DEADLINES.map((days) => [String(days), `${days} days`]),
                    )}
                  </>
                )}
                {name === 'new_processing_profile' && (
                  <>
                    {select('readiness_state', [
                      ['ready_to_ship', 'Ready to ship'],
                      ['made_to_order', 'Made to order'],
                    ])}
                    {text('min_processing_time', { inputMode: 'numeric' })}
                    {text('max_processing_time', { inputMode: 'numeric' })}
                    {select('processing_time_unit', [
                      ['days', 'Days'],
                      ['weeks', 'Weeks'],
                    ])}
                  </>
                )}
              </div>
            )}
          </fieldset>
        );
      })}
    </div>
  );
}
