/**
 * The advertising's figures (GET /listings/{id}/advertising/metrics): a period of 7, 30 or 90 days, the totals with the
 * advertising cost of sales (ACoS, spend / sales), and the chart of each day with, beside it, the same figures in words
 * (a summary the chart is described by) and as a table. The chart's library is loaded only when there are figures to
 * draw, as its own file.
 */
import { lazy, Suspense, useId, useRef, useState } from 'react';
import { api, inWorkspace, unwrap } from '../api/client';
import { ErrorMessage, Loading, useRequest } from '../ui';
import { type AdvertisingDay, formatAcos, formatCount, formatDay, lastDays, money, type Totals, totalsOf } from './advertising-parts';

const AdvertisingChart = lazy(() => import('./advertising-chart'));

const PERIODS = [7, 30, 90] as const;
type Period = (typeof PERIODS)[number];
type Measure = 'clicks' | 'impressions';

/** The figures in one sentence, for those who do not see the chart. */
function summaryOf(days: readonly AdvertisingDay[], totals: Totals, currency: string, period: Period): string {
  const top = days.reduce<AdvertisingDay | null>((best, d) => (best === null || Number(d.spend) > Number(best.spend) ? d : best), null);
  const spanned = `In the last ${period} days (${days.length} ${days.length === 1 ? 'day' : 'days'} reported)`;
  const most = top ? ` The most was spent on ${formatDay(top.date, 'long')}: ${money(top.spend, currency)}.` : '';
  return (
    `${spanned}: spend ${money(totals.spend, currency)}, sales ${money(totals.sales, currency)}, ` +
    `${formatCount(totals.clicks)} clicks, ${formatCount(totals.impressions)} impressions, ${formatCount(totals.orders)} orders; ` +
    `ACoS ${formatAcos(totals.acos)}.${most}`
  );
}

export function AdvertisingMetrics({
  listingId,
  workspaceId,
  currency,
  readAt,
}: {
  listingId: number;
  workspaceId: string;
  currency: string;
  /** When Amazon's figures were last read: a new read loads them again. */
  readAt: string | null;
}) {
  const [period, setPeriod] = useState<Period>(30);
  const [measure, setMeasure] = useState<Measure>('clicks');
  const ids = useId();
  const loaded = useRequest(
    async () => {
      const query = lastDays(period);
      const params = { path: { listing_id: listingId }, query, header: inWorkspace(workspaceId) };
      return unwrap(await api.GET('/api/v1/listings/{listing_id}/advertising/metrics', { params })).data;
    },
    `ad-metrics-${listingId}-${period}-${readAt ?? ''}`,
  );
  // Read again (a new report, another period), the figures shown stay until the new ones are in.
  const shown = useRef<AdvertisingDay[] | null>(null);
  if (loaded.state === 'ready') shown.current = loaded.data;
  const days = shown.current;

  return (
    <section aria-labelledby={`${ids}-heading`} className="ad-figures" aria-busy={loaded.state === 'loading'}>
      <div className="page-head">
        <h3 id={`${ids}-heading`}>Figures</h3>
        <fieldset className="segmented">
          <legend className="visually-hidden">Period</legend>
          {PERIODS.map((p) => (
            <label key={p}>
              <input type="radio" name={`${ids}-period`} value={p} checked={period === p} onChange={() => setPeriod(p)} />
              <span>Last {p} days</span>
            </label>
          ))}
        </fieldset>
      </div>
      {loaded.state === 'error' && <ErrorMessage error={loaded.error} title="Could not load the figures" />}
      {days === null && loaded.state === 'loading' && <Loading what="the figures" />}
      {days !== null && days.length === 0 && (
        <p className="empty">
          No figures for this period yet. Amazon reports figures daily; the first ones arrive within a few minutes of the campaign starting.
        </p>
      )}
      {days !== null && days.length > 0 && (
        <Figures days={days} currency={currency} period={period} measure={measure} setMeasure={setMeasure} ids={ids} />
      )}
    </section>
  );
}

function Figures({
  days,
  currency,
  period,
  measure,
  setMeasure,
  ids,
}: {
  days: AdvertisingDay[];
  currency: string;
  period: Period;
  measure: Measure;
  setMeasure: (measure: Measure) => void;
  ids: string;
}) {
  const totals = totalsOf(days);
  const summary = summaryOf(days, totals, currency, period);
  return (
    <>
      <dl className="stats" aria-label={`Totals of the last ${period} days`}>
        <Stat term="Spend" value={money(totals.spend, currency)} />
        <Stat term="Sales" value={money(totals.sales, currency)} />
        <Stat term="ACoS" value={formatAcos(totals.acos)} hint="Spend divided by sales" />
        <Stat term="Orders" value={formatCount(totals.orders)} />
        <Stat term="Clicks" value={formatCount(totals.clicks)} />
        <Stat term="Impressions" value={formatCount(totals.impressions)} />
      </dl>
      <div className="page-head">
        <span className="label" id={`${ids}-caption`}>
          Spend and sales per day, with {measure}
        </span>
        <fieldset className="segmented">
          <legend className="visually-hidden">Line on the right axis</legend>
          {(['clicks', 'impressions'] as const).map((m) => (
            <label key={m}>
              <input type="radio" name={`${ids}-measure`} value={m} checked={measure === m} onChange={() => setMeasure(m)} />
              <span>{m === 'clicks' ? 'Clicks' : 'Impressions'}</span>
            </label>
          ))}
        </fieldset>
      </div>
      <figure className="ad-chart" aria-labelledby={`${ids}-caption`} aria-describedby={`${ids}-summary`}>
        <Suspense fallback={<Loading what="the chart" />}>
          <div className="ad-chart-area">
            <AdvertisingChart days={days} currency={currency} measure={measure} summary={summary} />
          </div>
        </Suspense>
        <p id={`${ids}-summary`} className="muted small">
          {summary}
        </p>
      </figure>
      <details className="ad-days">
        <summary>The figures of each day</summary>
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Advertising figures per day, last {period} days</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col" className="num">
                  Impressions
                </th>
                <th scope="col" className="num">
                  Clicks
                </th>
                <th scope="col" className="num">
                  Spend
                </th>
                <th scope="col" className="num">
                  Orders
                </th>
                <th scope="col" className="num">
                  Sales
                </th>
              </tr>
            </thead>
            <tbody>
              {days.map((d) => (
                <tr key={d.date}>
                  <th scope="row">{formatDay(d.date, 'long')}</th>
                  <td className="num">{formatCount(d.impressions)}</td>
                  <td className="num">{formatCount(d.clicks)}</td>
                  <td className="num">{money(d.spend, currency)}</td>
                  <td className="num">{formatCount(d.orders)}</td>
                  <td className="num">{money(d.sales, currency)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </>
  );
}

function Stat({ term, value, hint }: { term: string; value: string; hint?: string }) {
  return (
    <div className="stat">
      <dt>
        {term}
        {hint && <span className="muted small"> ({hint})</span>}
      </dt>
      <dd>{value}</dd>
    </div>
  );
}
