/**
 * A reporting v3 request (`POST /reporting/reports`, `application/vnd.createasyncreportrequest.v3+json`) read and
 * checked: `{name?, startDate, endDate, configuration: {adProduct, groupBy, columns, reportTypeId, timeUnit, format}}`.
 * Amazon's rules: dates `YYYY-MM-DD`, endDate not before startDate, at most 31 days, startDate at most 95 days back
 * (listings.md §4; python-amazon-ad-api#92 quoting Amazon's v3 overview). The sandbox makes one report type, the
 * advertised-product report (spAdvertisedProduct, grouped by advertiser, DAILY, GZIP_JSON), and refuses the others
 * and `filters` with a 400 that says so (a sandbox limit, not Amazon's).
 */
import { addDays, REPORT_COLUMNS, type ReportColumn } from './metrics.js';
import { type Item, isDate } from './sp-fields.js';

export const RANGE_DAYS_MAX = 31;
export const LOOKBACK_DAYS = 95;

export interface ReportConfiguration {
  adProduct: 'SPONSORED_PRODUCTS';
  groupBy: ['advertiser'];
  columns: ReportColumn[];
  reportTypeId: 'spAdvertisedProduct';
  timeUnit: 'DAILY';
  format: 'GZIP_JSON';
}

export interface ReportRequest {
  name: string | null;
  startDate: string;
  endDate: string;
  configuration: ReportConfiguration;
}

const asItem = (value: unknown): Item => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Item) : {});

/** The dates' problem, if any. */
function datesProblem(startDate: unknown, endDate: unknown, today: string): string | null {
  if (typeof startDate !== 'string' || !isDate(startDate)) return 'startDate must be a date in the format YYYY-MM-DD';
  if (typeof endDate !== 'string' || !isDate(endDate)) return 'endDate must be a date in the format YYYY-MM-DD';
  if (endDate < startDate) return 'endDate must not be before startDate';
  if (addDays(startDate, RANGE_DAYS_MAX - 1) < endDate) return `The date range must not exceed ${RANGE_DAYS_MAX} days`;
  if (startDate < addDays(today, -LOOKBACK_DAYS)) return `startDate must be within the last ${LOOKBACK_DAYS} days`;
  return null;
}

/** The configuration's problem, if any (the sandbox's own limits say "the sandbox"). */
function configurationProblem(configuration: Item): string | null {
  if (configuration.adProduct !== 'SPONSORED_PRODUCTS') return 'configuration.adProduct must be SPONSORED_PRODUCTS';
  if (configuration.reportTypeId !== 'spAdvertisedProduct') return 'The sandbox makes only the spAdvertisedProduct report';
  const groupBy = configuration.groupBy;
  if (!Array.isArray(groupBy) || groupBy.length !== 1 || groupBy[0] !== 'advertiser')
    return 'configuration.groupBy must be ["advertiser"] for spAdvertisedProduct';
  const columns = configuration.columns;
  if (!Array.isArray(columns) || columns.length === 0) return 'configuration.columns must list the columns of the report';
  const unknown = columns.filter((column) => !REPORT_COLUMNS.includes(column as ReportColumn));
  if (unknown.length > 0)
    return `configuration columns includes invalid values: (${unknown.map(String).join(', ')}). Allowed values: (${REPORT_COLUMNS.join(', ')})`;
  if (configuration.timeUnit !== 'DAILY') return 'The sandbox makes DAILY reports only';
  if (configuration.format !== 'GZIP_JSON') return 'configuration.format must be GZIP_JSON';
  if (configuration.filters !== undefined) return 'The sandbox does not apply report filters';
  return null;
}

/** The request read, or the 400's words. `today` is the UTC date. */
export function readReportRequest(body: unknown, today: string): ReportRequest | string {
  const request = asItem(body);
  const problem = datesProblem(request.startDate, request.endDate, today) ?? configurationProblem(asItem(request.configuration));
  if (problem) return problem;
  if (request.name !== undefined && typeof request.name !== 'string') return 'name must be text';
  const configuration = asItem(request.configuration);
  return {
    name: (request.name as string | undefined) ?? null,
    startDate: request.startDate as string,
    endDate: request.endDate as string,
    configuration: {
      adProduct: 'SPONSORED_PRODUCTS',
      groupBy: ['advertiser'],
      columns: [...new Set(configuration.columns as ReportColumn[])],
      reportTypeId: 'spAdvertisedProduct',
      timeUnit: 'DAILY',
      format: 'GZIP_JSON',
    },
  };
}

/** The request as text with its keys sorted: two requests of one profile with the same text are the same report. */
export function requestKey(request: ReportRequest): string {
  const sorted = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sorted)
      : typeof value === 'object' && value !== null
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((key) => [key, sorted((value as Item)[key])]),
          )
        : value;
  return JSON.stringify(sorted(request));
}
