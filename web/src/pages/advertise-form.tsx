/**
 * "Advertise": the form that starts Sponsored Products for an active Amazon listing (POST /listings/{id}/advertising).
 * The daily budget and the default bid are in the marketplace's currency, which each label names; targeting is
 * automatic (Amazon picks the searches) or the seller's keywords, each with its match type and bid. What the API would
 * refuse is said under its field before sending (Amazon's bounds per currency, as the API checks them); what it still
 * refuses, its 422, is said under the same field.
 */
import { type FormEvent, type Ref, useEffect, useRef, useState } from 'react';
import { ApiError, api, inWorkspace, unwrap } from '../api/client';
import { refusalOf } from '../roles';
import { ErrorMessage } from '../ui';
import { type Advertising, MATCH_TYPES, type MatchType, minimumOf, moneyProblem } from './advertising-parts';
import { describedBy, type Errors, FieldError } from './product-options';

interface KeywordRow {
  key: number;
  text: string;
  match_type: MatchType;
  bid: string;
}

const KEYWORDS_MAX = 100;
const KEYWORD_LENGTH_MAX = 80;

/** The input each error key of the API belongs to, in the order the form shows them (the first gets the focus). */
const inputOf = (field: string) =>
  field === 'daily_budget'
    ? 'ad-budget'
    : field === 'default_bid'
      ? 'ad-bid'
      : /^targeting\.keywords\.(\d+)\.(text|match_type|bid)$/.test(field)
        ? field.replace(/^targeting\.keywords\.(\d+)\.(text|match_type|bid)$/, 'ad-keyword-$1-$2')
        : null;

/** The checks the API makes, made first here: each field's problem, keyed as the API keys its 422. */
function problemsOf(currency: string, budget: string, bid: string, targeting: 'auto' | 'keywords', keywords: KeywordRow[]): Errors {
  const errors: Errors = {};
  const put = (field: string, message: string | null) => {
    if (message) errors[field] = [message];
  };
  put('daily_budget', moneyProblem(budget, 'daily budget', currency, 'budget'));
  put('default_bid', moneyProblem(bid, 'default bid', currency, 'bid'));
  if (targeting === 'keywords') {
    if (keywords.length === 0) put('targeting', 'Add at least one keyword, or choose automatic targeting.');
    keywords.forEach((k, i) => {
      const text = k.text.trim();
      put(
        `targeting.keywords.${i}.text`,
        text === '' ? 'Enter the keyword.' : text.length > KEYWORD_LENGTH_MAX ? `Use at most ${KEYWORD_LENGTH_MAX} characters.` : null,
      );
      put(`targeting.keywords.${i}.bid`, moneyProblem(k.bid, 'keyword bid', currency, 'bid'));
    });
  }
  return errors;
}

/** The API's 422 messages as the form shows them: a format refusal of money is said as the form's own check says it. */
function answeredErrors(fields: Record<string, string[]>): Errors {
  return Object.fromEntries(
    Object.entries(fields).map(([field, messages]) => [
      field,
      messages.map((m) =>
        /format is invalid|must match pattern/.test(m) && inputOf(field)
          ? 'Enter an amount like 10.00 (digits, a point, at most two decimals).'
          : m,
      ),
    ]),
  );
}

export function AdvertiseForm({
  listingId,
  title,
  workspaceId,
  currency,
  onStarted,
  onConflict,
  onCancel,
}: {
  listingId: number;
  title: string;
  workspaceId: string;
  currency: string;
  onStarted: (advertising: Advertising) => void;
  /** 409: the listing is advertised already (in another tab, by someone else): the page reads it again. */
  onConflict: () => void;
  onCancel: () => void;
}) {
  const [budget, setBudget] = useState('');
  const [bid, setBid] = useState('');
  const [targeting, setTargeting] = useState<'auto' | 'keywords'>('auto');
  const [keywords, setKeywords] = useState<KeywordRow[]>([]);
  const [errors, setErrors] = useState<Errors>({});
  const [failure, setFailure] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const nextKey = useRef(1);
  // An object, new at each refused submit, so that the focus goes to the first problem each time.
  const [refused, setRefused] = useState<{ errors: Errors } | null>(null);
  useEffect(() => {
    if (!refused) return;
    const order = [
      'daily_budget',
      'default_bid',
      ...Object.keys(refused.errors)
        .filter((f) => f.startsWith('targeting.'))
        .sort(),
    ];
    const first = order.map((f) => (refused.errors[f] ? inputOf(f) : null)).find(Boolean);
    if (first) document.getElementById(first)?.focus();
  }, [refused]);
  const budgetInput = useRef<HTMLInputElement>(null);
  useEffect(() => budgetInput.current?.focus(), []);

  /** A new row, its bid the default bid; `focus`: the new row's keyword takes the focus once rendered ("Add a keyword"). */
  const addKeyword = (focus: boolean) => {
    const key = nextKey.current++;
    const index = keywords.length;
    setKeywords((rows) => [...rows, { key, text: '', match_type: 'broad', bid: bid.trim() }]);
    if (focus) requestAnimationFrame(() => document.getElementById(`ad-keyword-${index}-text`)?.focus());
  };
  const changeKeyword = (key: number, change: Partial<KeywordRow>) =>
    setKeywords((rows) => rows.map((row) => (row.key === key ? { ...row, ...change } : row)));
  const removeKeyword = (index: number) => {
    setKeywords((rows) => rows.filter((_, i) => i !== index));
    // The rows after it move up: their messages, keyed by position, would land on the wrong row.
    setErrors((shown) => Object.fromEntries(Object.entries(shown).filter(([field]) => !field.startsWith('targeting.keywords.'))));
    requestAnimationFrame(() => document.getElementById('ad-add-keyword')?.focus());
  };

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setFailure(null);
    const problems = problemsOf(currency, budget, bid, targeting, keywords);
    setErrors(problems);
    if (Object.keys(problems).length > 0) {
      setRefused({ errors: problems });
      return;
    }
    setBusy(true);
    try {
      const body = {
        daily_budget: budget.trim(),
        default_bid: bid.trim(),
        targeting:
          targeting === 'auto'
            ? ('auto' as const)
            : { keywords: keywords.map((k) => ({ text: k.text.trim(), match_type: k.match_type, bid: k.bid.trim() })) },
      };
      const params = { path: { listing_id: listingId }, header: inWorkspace(workspaceId) };
      onStarted(unwrap(await api.POST('/api/v1/listings/{listing_id}/advertising', { params, body })).data);
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 409) return onConflict();
      if (caught instanceof ApiError && caught.status === 422) {
        const answered = answeredErrors(caught.fields);
        setErrors(answered);
        setRefused({ errors: answered });
        // What no field shows (the listing, advertising not connected) is said above the buttons.
        const elsewhere = Object.entries(answered).filter(([field]) => !inputOf(field));
        setFailure(elsewhere.length > 0 ? new Error(elsewhere.flatMap(([, m]) => m).join(' ')) : null);
      } else setFailure(refusalOf(caught));
    } finally {
      setBusy(false);
    }
  }

  const budgetHint = ['What the campaign may spend a day', minimumOf(currency, 'budget')].filter(Boolean).join(', ');
  const bidHint = ['What a click may cost at most, unless a keyword says otherwise', minimumOf(currency, 'bid')].filter(Boolean).join(', ');
  return (
    <form className="advertise-form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="advertise-heading">
      <h3 id="advertise-heading">Advertise “{title}” on Amazon</h3>
      <p className="muted small">
        Sponsored Products: Amazon shows the listing to shoppers where they search, and charges for each click, up to the daily budget.
        Amounts are in {currency}, the currency of the listing’s marketplace.
      </p>
      <div className="form-grid">
        <MoneyField
          id="ad-budget"
          label={`Daily budget (${currency})`}
          value={budget}
          onChange={setBudget}
          hint={`${budgetHint}.`}
          placeholder="0.00"
          errors={errors.daily_budget}
          inputRef={budgetInput}
        />
        <MoneyField
          id="ad-bid"
          label={`Default bid (${currency})`}
          value={bid}
          onChange={setBid}
          hint={`${bidHint}.`}
          placeholder="0.00"
          errors={errors.default_bid}
        />
      </div>
      <fieldset className="publish-step">
        <legend>Targeting</legend>
        <label className="checkbox">
          <input type="radio" name="ad-targeting" value="auto" checked={targeting === 'auto'} onChange={() => setTargeting('auto')} />
          Automatic: Amazon chooses the searches and products to show the listing on
        </label>
        <label className="checkbox">
          <input
            type="radio"
            name="ad-targeting"
            value="keywords"
            checked={targeting === 'keywords'}
            onChange={() => {
              setTargeting('keywords');
              if (keywords.length === 0) addKeyword(false);
            }}
          />
          Keywords: you choose the searches, each with its match type and bid
        </label>
        {targeting === 'keywords' && (
          <KeywordRows
            rows={keywords}
            currency={currency}
            errors={errors}
            onChange={changeKeyword}
            onRemove={removeKeyword}
            onAdd={() => addKeyword(true)}
          />
        )}
      </fieldset>
      {failure && <ErrorMessage error={failure} title="Advertising was not started" />}
      <div className="button-row">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Starting…' : 'Start advertising'}
        </button>
        <button type="button" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** An amount of money with its hint and its errors: the Advertise form's and the Change form's budget and bid. */
export function MoneyField({
  id,
  label,
  value,
  onChange,
  hint,
  placeholder,
  errors,
  inputRef,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  hint: string;
  placeholder?: string;
  errors: string[] | undefined;
  inputRef?: Ref<HTMLInputElement>;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        ref={inputRef}
        inputMode="decimal"
        autoComplete="off"
        placeholder={placeholder}
        value={value}
        aria-invalid={!!errors}
        aria-describedby={describedBy(id, errors, `${id}-hint`)}
        onChange={(e) => onChange(e.target.value)}
      />
      <p className="muted small hint" id={`${id}-hint`}>
        {hint}
      </p>
      <FieldError id={id} messages={errors} />
    </div>
  );
}

function KeywordRows({
  rows,
  currency,
  errors,
  onChange,
  onRemove,
  onAdd,
}: {
  rows: KeywordRow[];
  currency: string;
  errors: Errors;
  onChange: (key: number, change: Partial<KeywordRow>) => void;
  onRemove: (index: number) => void;
  onAdd: () => void;
}) {
  return (
    <div className="keywords">
      {errors.targeting && <FieldError id="ad-keywords" messages={errors.targeting} />}
      {rows.length > 0 && (
        <table className="keywords-table">
          <thead>
            <tr>
              <th scope="col">Keyword</th>
              <th scope="col">Match type</th>
              <th scope="col">Bid ({currency})</th>
              <th scope="col">
                <span className="visually-hidden">Remove</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, i) => {
              const id = (part: string) => `ad-keyword-${i}-${part}`;
              const messages = (part: string) => errors[`targeting.keywords.${i}.${part}`];
              return (
                <tr key={row.key}>
                  <td>
                    <label className="visually-hidden" htmlFor={id('text')}>
                      Keyword {i + 1}
                    </label>
                    <input
                      id={id('text')}
                      value={row.text}
                      maxLength={KEYWORD_LENGTH_MAX}
                      aria-invalid={!!messages('text')}
                      aria-describedby={describedBy(id('text'), messages('text'))}
                      onChange={(e) => onChange(row.key, { text: e.target.value })}
                    />
                    <FieldError id={id('text')} messages={messages('text')} />
                  </td>
                  <td>
                    <label className="visually-hidden" htmlFor={id('match_type')}>
                      Match type of keyword {i + 1}
                    </label>
                    <select
                      id={id('match_type')}
                      value={row.match_type}
                      aria-invalid={!!messages('match_type')}
                      aria-describedby={describedBy(id('match_type'), messages('match_type'))}
                      onChange={(e) => onChange(row.key, { match_type: e.target.value as MatchType })}
                    >
                      {MATCH_TYPES.map((m) => (
                        <option key={m.value} value={m.value}>
                          {m.label}
                        </option>
                      ))}
                    </select>
                    <FieldError id={id('match_type')} messages={messages('match_type')} />
                  </td>
                  <td>
                    <label className="visually-hidden" htmlFor={id('bid')}>
                      Bid of keyword {i + 1} ({currency})
                    </label>
                    <input
                      id={id('bid')}
                      inputMode="decimal"
                      autoComplete="off"
                      placeholder="0.00"
                      value={row.bid}
                      aria-invalid={!!messages('bid')}
                      aria-describedby={describedBy(id('bid'), messages('bid'))}
                      onChange={(e) => onChange(row.key, { bid: e.target.value })}
                    />
                    <FieldError id={id('bid')} messages={messages('bid')} />
                  </td>
                  <td>
                    <button type="button" onClick={() => onRemove(i)}>
                      Remove<span className="visually-hidden"> keyword {i + 1}</span>
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <p className="muted small hint">
        Broad matches searches that contain the words in any order, phrase the words in this order, exact only the keyword itself.
      </p>
      <button type="button" id="ad-add-keyword" onClick={onAdd} disabled={rows.length >= KEYWORDS_MAX}>
        Add a keyword
      </button>
    </div>
  );
}
