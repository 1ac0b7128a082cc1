/**
 * The advertising figures' chart: daily spend and sales (money, bars on the left axis) with clicks or impressions (a
 * line on the right axis). recharts, loaded on its own (`lazy` in advertising-metrics.tsx), so the dashboard's main
 * bundle does not carry it; the figures it draws are also in the page as text (totals, a summary and a table).
 */
import { Bar, CartesianGrid, ComposedChart, Legend, Line, Tooltip, XAxis, YAxis } from 'recharts';
import { type AdvertisingDay, formatCount, formatDay, money } from './advertising-parts';

/** The widest a bar is drawn, in px. */
const BAR_MAX_PX = 40;

/** Colours with at least 3:1 against the white card (WCAG 1.4.11 for the bars and the line). */
const SPEND = '#c2410c';
const SALES = '#1f5fbf';
const COUNT = '#1b7a3d';

export interface ChartProps {
  days: readonly AdvertisingDay[];
  currency: string;
  /** The line on the right axis. */
  measure: 'clicks' | 'impressions';
  /** What the chart shows, in words (the SVG's title for the keyboard layer). */
  summary: string;
}

export default function AdvertisingChart({ days, currency, measure, summary }: ChartProps) {
  const data = days.map((d) => ({ ...d, spend: Number(d.spend), sales: Number(d.sales) }));
  const compactMoney = (value: number) => money(value.toFixed(value >= 100 ? 0 : 2), currency);
  const measureName = measure === 'clicks' ? 'Clicks' : 'Impressions';
  return (
    <ComposedChart
      data={data}
      responsive
      style={{ width: '100%', height: 320 }}
      margin={{ top: 10, right: 10, bottom: 5, left: 10 }}
      title={summary}
    >
      <CartesianGrid stroke="#d8dee6" vertical={false} />
      <XAxis dataKey="date" tickFormatter={(date: string) => formatDay(date)} stroke="#5b6675" minTickGap={16} />
      <YAxis yAxisId="money" stroke="#5b6675" tickFormatter={compactMoney} width={80} />
      <YAxis
        yAxisId="count"
        orientation="right"
        stroke="#5b6675"
        allowDecimals={false}
        tickFormatter={(value: number) => formatCount(value)}
        width={60}
      />
      <Tooltip
        labelFormatter={(date) => formatDay(String(date), 'long')}
        formatter={(value, name) => [
          name === measureName ? formatCount(Number(value)) : money(Number(value).toFixed(2), currency),
          String(name),
        ]}
      />
      <Legend />
      {/* A few days' bars stay bars: without a maximum, one day's two fill the width. */}
      <Bar yAxisId="money" dataKey="spend" name="Spend" fill={SPEND} maxBarSize={BAR_MAX_PX} isAnimationActive={false} />
      <Bar yAxisId="money" dataKey="sales" name="Sales" fill={SALES} maxBarSize={BAR_MAX_PX} isAnimationActive={false} />
      <Line
        yAxisId="count"
        dataKey={measure}
        name={measureName}
        stroke={COUNT}
        strokeWidth={2}
        dot={{ r: 3 }}
        type="monotone"
        isAnimationActive={false}
      />
    </ComposedChart>
  );
}
