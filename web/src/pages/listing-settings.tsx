/**
 * A site's listing settings: each choice read from the platform (GET listing-options: Etsy's shipping profiles and the
 * rest, TikTok Shop's warehouses), the price adjustment and the stock buffer; saved whole with PUT (a PUT replaces all,
 * so every field of the form is sent), each 422 at its field.
 */
import { type FormEvent, type ReactNode, useContext, useEffect, useState } from 'react';
import { ApiError, api, inWorkspace, unwrap } from '../api/client';
import { ErrorMessage, Loading, platformName, useRequest } from '../ui';
import { LISTINGS_PLATFORMS, SETTING_LABEL } from './listing-parts';
import { SettingsIdPrefix } from './settings-id-prefix';
import { type SetupName, type SetupValues, ShopSetup, setupBody, setupDefaults } from './shop-setup';

export type SiteLike = { id: number; platform: string; status: string; currency?: string | null };

type Choices = Record<string, { value: string; label: string; currency?: string }[]>;
type Values = Record<string, string | boolean>;
const NUMBERS = ['price_adjustment_percent', 'stock_buffer'] as const;

/** What a choice is for, where its name does not say it all. */
const SETTING_HINT: Record<string, (platform: string) => string> = {
  warehouse_id: (platform) => `Where ${platform} takes the listings' stock from; the listed quantity is set there.`,
  marketplace_id: (platform) => `Where on ${platform} the listings are offered: one of the marketplaces the seller sells in.`,
  condition_type: () => "The products' condition, unless a listing says another.",
};

/** `exchange_rates` as the seller writes it: one `EUR 1.08` a line. */
const RATES = 'exchange_rates';
const ratesText = (rates: unknown) =>
  Object.entries((rates ?? {}) as Record<string, string>)
    .map(([currency, rate]) => `${currency} ${rate}`)
    .join('\n');
/** The lines back as `{EUR: "1.08"}`: a code and a rate, in any case, with a space, `=` or `:` between; a line that is not one is sent as it is, for the API to name. */
function ratesOf(text: string): Record<string, string> {
  const rates: Record<string, string> = {};
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (line === '') continue;
    const pair = /^([A-Za-z]{3})\s*[=:\s]\s*(\S+)$/.exec(line);
    if (pair) rates[pair[1]!.toUpperCase()] = pair[2]!;
    else rates[line] = '';
  }
  return rates;
}

/** The form's values from the stored settings: text for selects, numbers and rates, booleans as they are. */
function valuesOf(settings: Record<string, unknown>): Values {
  return Object.fromEntries(
    Object.entries(settings).map(([name, value]) => [
      name,
      name === RATES ? ratesText(value) : typeof value === 'boolean' ? value : value === null ? '' : String(value),
    ]),
  );
}

/** The PUT body: every field, a select left empty as null, numbers as numbers (a blank one as 0, the default). */
function bodyOf(values: Values): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(values).map(([name, value]) => {
      if (typeof value === 'boolean') return [name, value];
      if (name === RATES) return [name, ratesOf(value)];
      if ((NUMBERS as readonly string[]).includes(name)) return [name, value.trim() === '' ? 0 : Number(value)];
      return [name, value === '' ? null : value];
    }),
  );
}

/**
 * Why the site cannot have listings now, known without asking (the API's words): a platform without listings yet, or a
 * site not connected. Asking would cost a 422, which the browser logs as an error on every visit to such a site.
 */
function refusalOf(site: SiteLike): string | null {
  if (!LISTINGS_PLATFORMS.includes(site.platform)) return `Listings on ${platformName(site.platform)} are not available yet.`;
  if (site.status !== 'connected') return 'The site is not connected: connect it again first.';
  return null;
}

/**
 * Loads the choices and the settings. A site that cannot have listings (a platform without them yet, a site not
 * connected, or a 422 on `site_id` from the API) shows that message instead of the form; `onAvailable` tells the page
 * whether listings can be made. Without `canEdit` (a member: the settings are the owners' and admins') nothing is shown,
 * and the settings are still read to tell the page.
 */
export function ListingSettings({
  site,
  workspaceId,
  onAvailable,
  canEdit = true,
  version = 0,
  onSaved,
}: {
  site: SiteLike;
  workspaceId: string;
  onAvailable: (available: boolean) => void;
  canEdit?: boolean;
  /** Changed when the settings were saved elsewhere (the publish dialog's copy): read again. */
  version?: number;
  onSaved?: () => void;
}) {
  const siteId = site.id;
  const known = refusalOf(site);
  const prefix = useContext(SettingsIdPrefix);
  // On its page the settings are a section of their own; inside another form's dialog, a part of it.
  const Heading = prefix ? 'h3' : 'h2';
  const loaded = useRequest(async () => {
    const params = { path: { site_id: siteId }, header: inWorkspace(workspaceId) };
    const settings = unwrap(await api.GET('/api/v1/sites/{site_id}/listing-settings', { params })).data;
    if (known) return { settings, choices: {} as Choices, refusal: known };
    try {
      const choices = unwrap(await api.GET('/api/v1/sites/{site_id}/listing-options', { params })).data as Choices;
      return { settings, choices, refusal: null };
    } catch (caught) {
      const refusal = caught instanceof ApiError && caught.status === 422 ? caught.fields.site_id?.[0] : undefined;
      if (refusal) return { settings, choices: {} as Choices, refusal };
      throw caught;
    }
  }, `listing-settings-${siteId}-${site.status}-${version}`);
  const available = loaded.state === 'ready' && loaded.data.refusal === null;
  // Read again (settings saved elsewhere), the site stays as listable as it was until the answer says otherwise: the
  // page would otherwise take its publish dialog away, and the seller's picks with it, while the settings load.
  const settled = loaded.state !== 'loading';
  useEffect(() => {
    if (settled) onAvailable(available);
  }, [settled, available, onAvailable]);
  if (!canEdit) return null;
  return (
    <section aria-labelledby={`${prefix}settings-heading`} className={prefix ? undefined : 'card'}>
      <Heading id={`${prefix}settings-heading`} tabIndex={-1}>
        Listing settings
      </Heading>
      {loaded.state === 'loading' && <Loading what="the listing settings" />}
      {loaded.state === 'error' && <ErrorMessage error={loaded.error} title="Could not load the listing settings" />}
      {loaded.state === 'ready' &&
        (loaded.data.refusal ? (
          <p className="empty" role="status">
            {loaded.data.refusal}
          </p>
        ) : (
          <SettingsForm
            siteId={siteId}
            workspaceId={workspaceId}
            platform={platformName(site.platform)}
            currency={site.currency ?? null}
            settings={loaded.data.settings}
            choices={loaded.data.choices}
            onSaved={onSaved}
          />
        ))}
    </section>
  );
}

function SettingsForm({
  siteId,
  workspaceId,
  platform,
  currency,
  settings,
  choices: initialChoices,
  onSaved,
}: {
  siteId: number;
  workspaceId: string;
  platform: string;
  /** What the site sells in; null on Amazon, where the marketplace says it. */
  currency: string | null;
  settings: Record<string, unknown>;
  choices: Choices;
  onSaved?: () => void;
}) {
  const prefix = useContext(SettingsIdPrefix);
  const [values, setValues] = useState<Values>(() => valuesOf(settings));
  // The platform's choices: read again once a save made a profile or policy on the shop (Etsy's shop setup).
  const [choices, setChoices] = useState<Choices>(initialChoices);
  // Etsy's shop setup: the profiles and policy a new shop lacks, made when the settings are saved (shop-setup.tsx).
  const setupOffered = choices.shipping_profile_id !== undefined && choices.readiness_state_id !== undefined;
  const country = choices.origin_country_iso?.[0]?.value ?? null;
  const lacks = (all: Choices) => (fills: string) => all[fills] !== undefined && all[fills]!.length === 0;
  const [setup, setSetup] = useState<SetupValues>(() => setupDefaults(country, lacks(choices)));
  const changeSetup = (name: SetupName, field: string | null, value: string | boolean) => {
    setSetup((v) => ({
      ...v,
      [name]: field === null ? { ...v[name], send: value === true } : { ...v[name], fields: { ...v[name].fields, [field]: value } },
    }));
    setMessage('');
  };
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [failure, setFailure] = useState<Error | null>(null);
  const [saving, setSaving] = useState(false);
  const [message, setMessage] = useState('');
  const set = (name: string, value: string | boolean) => {
    setValues((v) => ({ ...v, [name]: value }));
    setMessage('');
  };

  async function save(event: FormEvent) {
    event.preventDefault();
    setSaving(true);
    setErrors({});
    setFailure(null);
    setMessage('');
    try {
      const params = { path: { site_id: siteId }, header: inWorkspace(workspaceId) };
      const creates = setupOffered ? setupBody(setup) : {};
      const saved = unwrap(
        await api.PUT('/api/v1/sites/{site_id}/listing-settings', { params, body: { ...bodyOf(values), ...creates } }),
      ).data;
      if (Object.keys(creates).length > 0) {
        // What was made is on the shop now: its choices are read again, and each made one is selected.
        const fresh = unwrap(await api.GET('/api/v1/sites/{site_id}/listing-options', { params })).data as Choices;
        setChoices(fresh);
        setSetup(setupDefaults(country, lacks(fresh)));
      }
      setValues(valuesOf(saved));
      onSaved?.();
      setMessage(Object.keys(creates).length > 0 ? 'Listing settings saved; the new profiles are on Etsy.' : 'Listing settings saved.');
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 422 && Object.keys(caught.fields).length > 0) setErrors(caught.fields);
      else setFailure(caught as Error);
    } finally {
      setSaving(false);
    }
  }

  const selects = Object.keys(values).filter((name) => choices[name] !== undefined);
  const flags = Object.keys(values).filter((name) => typeof values[name] === 'boolean');
  // A field of the settings with no choices and not a number (none on Etsy or TikTok Shop today) is still sent, as text.
  const others = Object.keys(values).filter(
    (name) => !selects.includes(name) && !flags.includes(name) && !(NUMBERS as readonly string[]).includes(name) && name !== RATES,
  );
  // A rate's error is keyed by its currency (`exchange_rates.EUR`): shown at the rates, naming the currency.
  const rateOf = (key: string) => /^(?:body\.)?exchange_rates\.(.+)$/.exec(key)?.[1];
  const rateErrors = Object.entries(errors).flatMap(([key, messages]) => {
    const rate = rateOf(key);
    return rate === undefined ? [] : [`${rate}: ${messages.join(' ')}`];
  });
  const errorOf = (name: string) =>
    errors[name] ?? errors[`body.${name}`] ?? (name === RATES && rateErrors.length > 0 ? rateErrors : undefined);
  /** The ids of a control's hint and error, as its description. */
  const describedBy = (name: string, hint: boolean) =>
    [hint && `${prefix}setting-${name}-hint`, errorOf(name) && `${prefix}setting-${name}-error`].filter(Boolean).join(' ') || undefined;
  const unknownErrors = Object.entries(errors).filter(
    ([key]) => rateOf(key) === undefined && !(key.replace(/^body\./, '') in values) && !/^(body\.)?new_/.test(key),
  );
  const setupErrorsOf = (key: string) => errors[key] ?? errors[`body.${key}`];
  const marketplaceCurrency = choices.marketplace_id?.find((m) => m.value === values.marketplace_id)?.currency;
  const listsIn = currency ?? marketplaceCurrency ?? null;

  return (
    <form onSubmit={(e) => void save(e)} noValidate aria-describedby={`${prefix}settings-help`}>
      <p id={`${prefix}settings-help`} className="muted small">
        What every listing on this site uses. The choices are read from {platform}; saving replaces all the settings.
      </p>
      {failure && <ErrorMessage error={failure} title="The settings were not saved" />}
      {unknownErrors.length > 0 && <ErrorMessage error={unknownErrors.map(([k, m]) => `${k}: ${m.join(' ')}`).join('; ')} />}
      {setupOffered && (
        <ShopSetup values={setup} country={country} needs={lacks(choices)} errorsOf={setupErrorsOf} onChange={changeSetup} />
      )}
      <div className="form-grid">
        {selects.map((name) => (
          <Field key={name} name={name} errors={errorOf(name)} hint={SETTING_HINT[name]?.(platform)}>
            <select
              id={`${prefix}setting-${name}`}
              value={String(values[name])}
              onChange={(e) => set(name, e.target.value)}
              aria-invalid={errorOf(name) ? true : undefined}
              aria-describedby={describedBy(name, SETTING_HINT[name] !== undefined)}
            >
              <option value="">Not set</option>
              {choices[name]!.map((choice) => (
                <option key={choice.value} value={choice.value}>
                  {choice.label}
                </option>
              ))}
            </select>
          </Field>
        ))}
        {others.map((name) => (
          <Field key={name} name={name} errors={errorOf(name)}>
            <input id={`${prefix}setting-${name}`} value={String(values[name])} onChange={(e) => set(name, e.target.value)} />
          </Field>
        ))}
        <Field
          name="price_adjustment_percent"
          errors={errorOf('price_adjustment_percent')}
          hint="−90 to 500; 10 lists a 20.00 price at 22.00."
        >
          <input
            id={`${prefix}setting-price_adjustment_percent`}
            type="number"
            inputMode="decimal"
            step="0.01"
            min={-90}
            max={500}
            value={String(values.price_adjustment_percent ?? '')}
            onChange={(e) => set('price_adjustment_percent', e.target.value)}
            aria-invalid={errorOf('price_adjustment_percent') ? true : undefined}
            aria-describedby={describedBy('price_adjustment_percent', true)}
          />
        </Field>
        <Field
          name={RATES}
          errors={errorOf(RATES)}
          hint={`From a product's currency into ${listsIn ? `this site's (${listsIn})` : "the marketplace's"}, one a line: EUR 1.08. A product priced in another currency without a rate is not listed.`}
        >
          <textarea
            id={`${prefix}setting-${RATES}`}
            rows={3}
            value={String(values[RATES] ?? '')}
            onChange={(e) => set(RATES, e.target.value)}
            aria-invalid={errorOf(RATES) ? true : undefined}
            aria-describedby={describedBy(RATES, true)}
          />
        </Field>
        <Field name="stock_buffer" errors={errorOf('stock_buffer')} hint="Listed quantity is the stock less this, never below 0.">
          <input
            id={`${prefix}setting-stock_buffer`}
            type="number"
            inputMode="numeric"
            step="1"
            min={0}
            value={String(values.stock_buffer ?? '')}
            onChange={(e) => set('stock_buffer', e.target.value)}
            aria-invalid={errorOf('stock_buffer') ? true : undefined}
            aria-describedby={describedBy('stock_buffer', true)}
          />
        </Field>
      </div>
      {flags.map((name) => (
        <div key={name} className="field">
          <label className="checkbox">
            <input type="checkbox" checked={values[name] === true} onChange={(e) => set(name, e.target.checked)} />{' '}
            {SETTING_LABEL[name] ?? name}
          </label>
          {errorOf(name)?.map((m) => (
            <p key={m} className="field-error">
              {m}
            </p>
          ))}
        </div>
      ))}
      <div className="button-row">
        <button type="submit" className="primary" disabled={saving}>
          {saving ? 'Saving…' : 'Save settings'}
        </button>
        <span className="saved-note" role="status">
          {message}
        </span>
      </div>
    </form>
  );
}

function Field({ name, errors, hint, children }: { name: string; errors?: string[]; hint?: string; children: ReactNode }) {
  const prefix = useContext(SettingsIdPrefix);
  return (
    <div className="field">
      <label htmlFor={`${prefix}setting-${name}`}>{SETTING_LABEL[name] ?? name}</label>
      {children}
      {hint && (
        <p id={`${prefix}setting-${name}-hint`} className="muted small hint">
          {hint}
        </p>
      )}
      {errors && (
        <p id={`${prefix}setting-${name}-error`} className="field-error">
          {errors.join(' ')}
        </p>
      )}
    </div>
  );
}
