/**
 * Amazon Ads' Sponsored Products v3 and reporting v3 (listings.md §4), built and read without I/O: each entity's vendor
 * media type, the profile scope header, the 207 Multi-Status answers read item by item, and the advertised-product
 * report's request and rows.
 */
import Type from 'typebox';
import { storelinkIssue } from '../../domain/index.js';
import { isPassingFailure } from '../../lib/outbound-http.js';
import type { AdEntity, AdEntityState, AdReportRow, AdReportStatus } from '../contracts/advertising.js';
import { ListingRefused, PlatformError } from '../contracts/errors.js';
import { parseBody } from '../parse.js';

/** The four entities Storelink makes: their path, media type, list key in bodies and answers, and id field. */
export const SP = {
  campaigns: { path: '/sp/campaigns', media: 'application/vnd.spCampaign.v3+json', key: 'campaigns', id: 'campaignId' },
  adGroups: { path: '/sp/adGroups', media: 'application/vnd.spAdGroup.v3+json', key: 'adGroups', id: 'adGroupId' },
  productAds: { path: '/sp/productAds', media: 'application/vnd.spProductAd.v3+json', key: 'productAds', id: 'adId' },
  keywords: { path: '/sp/keywords', media: 'application/vnd.spKeyword.v3+json', key: 'keywords', id: 'keywordId' },
} as const;
export type SpEntity = (typeof SP)[keyof typeof SP];

export const REPORT_MEDIA = 'application/vnd.createasyncreportrequest.v3+json';

/**
 * Every Ads call's headers: the LWA client id, the bearer, the profile it acts in (`Amazon-Advertising-API-Scope`), and
 * the entity's vendor media type as both Content-Type and Accept (listings.md §4).
 */
export function adsHeaders(input: { clientId: string; accessToken: string; profileId: string; media: string }): Record<string, string> {
  return {
    'Amazon-Advertising-API-ClientId': input.clientId,
    authorization: `Bearer ${input.accessToken}`,
    'Amazon-Advertising-API-Scope': input.profileId,
    'content-type': input.media,
    accept: input.media,
  };
}

/** Amazon's states, upper case, and Storelink's. */
export const toAmazonState = (state: 'enabled' | 'paused') => (state === 'enabled' ? 'ENABLED' : 'PAUSED');
const fromAmazonState = (state: unknown): AdEntityState =>
  state === 'ENABLED' ? 'enabled' : state === 'PAUSED' ? 'paused' : state === 'ARCHIVED' ? 'archived' : 'other';

/** Ids are numeric strings in v3 (older answers sent numbers); either is kept exactly as a string. */
const EntityId = Type.Union([Type.String({ minLength: 1 }), Type.Number()]);

/** One refusal of one item: `{errorType, errorValue: {<errorType>: {reason, message, cause}}}`. */
const ItemError = Type.Object({
  errorType: Type.Optional(Type.String()),
  errorValue: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
const MultiStatus = (key: string, id: string) =>
  Type.Object({
    [key]: Type.Object({
      success: Type.Optional(Type.Array(Type.Object({ index: Type.Number(), [id]: EntityId }))),
      error: Type.Optional(Type.Array(Type.Object({ index: Type.Number(), errors: Type.Optional(Type.Array(ItemError)) }))),
    }),
  });

/** The Ads API's refusal of a whole request: `{code, details}`, v3's `{code, message}`, or reporting's `{code, detail}`. */
const AdsError = Type.Object({
  code: Type.Optional(Type.Unknown()),
  detail: Type.Optional(Type.String()),
  details: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
});

/**
 * A failed answer's class: 401 and 403 are the seller's grant (taken back, or the profile no longer theirs) unless
 * they name the app's client id; 429 and 5xx are passing; the rest is Storelink's request (the app's to fix).
 */
export function refusal(status: number, body: unknown, what: string): PlatformError {
  const error = parseBody(AdsError, body);
  const words = error?.details ?? error?.detail ?? error?.message ?? '';
  if (isPassingFailure(status)) return new PlatformError('unavailable', `Amazon Ads could not ${what} now (HTTP ${status})`);
  if ((status === 401 || status === 403) && !/clientid/i.test(words))
    return new PlatformError('rejected', words || 'Amazon Ads refused access to the advertising profile');
  return new PlatformError('misconfigured', `Amazon Ads refused to ${what} (HTTP ${status}${words ? `: ${words}` : ''})`);
}

/** The message of one item error, in Amazon's words: `errorValue[errorType].message`, else its reason. */
function itemMessage(error: { errorType?: string; errorValue?: Record<string, unknown> }): string {
  const detail = error.errorType ? error.errorValue?.[error.errorType] : Object.values(error.errorValue ?? {})[0];
  const fields = (detail ?? {}) as { message?: unknown; reason?: unknown };
  if (typeof fields.message === 'string' && fields.message) return fields.message;
  if (typeof fields.reason === 'string') return `${error.errorType ?? 'error'}: ${fields.reason}`;
  return error.errorType ?? 'Amazon Ads refused it';
}

/**
 * A 207 Multi-Status answer read per item: the id of each item that succeeded, by its index in the request, and the
 * refusals of the others as issues (`field` names what was refused, e.g. the SKU). Any other status is the whole
 * request refused.
 */
export function readMultiStatus(
  entity: SpEntity,
  status: number,
  body: unknown,
  labelOf: (index: number) => string,
): { ids: Map<number, string>; refused: ListingRefused | null } {
  if (status !== 207 && status !== 200) throw refusal(status, body, `save the ${entity.key}`);
  const parsed = parseBody(MultiStatus(entity.key, entity.id), body) as Record<
    string,
    {
      success?: Array<Record<string, unknown> & { index: number }>;
      error?: Array<{ index: number; errors?: Array<{ errorType?: string; errorValue?: Record<string, unknown> }> }>;
    }
  > | null;
  if (!parsed) throw new PlatformError('unavailable', `Amazon Ads answered the ${entity.key} with something unreadable`);
  const answer = parsed[entity.key]!;
  const ids = new Map((answer.success ?? []).map((item) => [item.index, String(item[entity.id])]));
  const issues = (answer.error ?? []).map((item) =>
    storelinkIssue(labelOf(item.index), 'advertising_refused', (item.errors ?? []).map(itemMessage).join(' ') || 'Amazon Ads refused it'),
  );
  return { ids, refused: issues.length > 0 ? new ListingRefused(issues.map((issue) => ({ ...issue, source: 'platform' }))) : null };
}

const Listed = (key: string) =>
  Type.Object({ [key]: Type.Array(Type.Record(Type.String(), Type.Unknown())), nextToken: Type.Optional(Type.String()) });

/** A list answer (`POST /sp/…/list` → 200 `{<key>: [...], nextToken?}`): each entity's id, state and the fields asked. */
export function readList(
  entity: SpEntity,
  status: number,
  body: unknown,
): { items: Array<AdEntity & { raw: Record<string, unknown> }>; nextToken: string | null } {
  if (status !== 200) throw refusal(status, body, `list the ${entity.key}`);
  const parsed = parseBody(Listed(entity.key), body) as { nextToken?: string } & Record<string, Array<Record<string, unknown>>>;
  if (!parsed) throw new PlatformError('unavailable', `Amazon Ads answered the ${entity.key} list with something unreadable`);
  const items = parsed[entity.key]!.filter((item) => item[entity.id] !== undefined).map((item) => ({
    id: String(item[entity.id]),
    state: fromAmazonState(item.state),
    raw: item,
  }));
  return { items, nextToken: parsed.nextToken ?? null };
}

/**
 * The advertised-product report of one profile, daily, as a gzipped JSON file (reporting v3): its figures per product
 * ad and day. Sellers' Sponsored Products attribute orders and sales over seven days (`purchases7d`, `sales7d`).
 */
export function reportRequest(range: { from: string; to: string }) {
  return {
    name: `Storelink advertised products ${range.from} to ${range.to}`,
    startDate: range.from,
    endDate: range.to,
    configuration: {
      adProduct: 'SPONSORED_PRODUCTS',
      groupBy: ['advertiser'],
      columns: ['date', 'campaignId', 'adGroupId', 'adId', 'advertisedSku', 'impressions', 'clicks', 'cost', 'purchases7d', 'sales7d'],
      reportTypeId: 'spAdvertisedProduct',
      timeUnit: 'DAILY',
      format: 'GZIP_JSON',
    },
  };
}

const ReportCreated = Type.Object({ reportId: Type.String({ minLength: 1 }) });
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/** `POST /reporting/reports` → `{reportId, status}`; a 425 says the same report is under way and names it. */
export function readReportCreated(status: number, body: unknown): string {
  if (status === 425) {
    const words = JSON.stringify(body ?? '');
    const existing = UUID.exec(words);
    if (existing) return existing[0];
  }
  if (status !== 200 && status !== 202) throw refusal(status, body, 'start the report');
  const parsed = parseBody(ReportCreated, body);
  if (!parsed) throw new PlatformError('unavailable', 'Amazon Ads answered the report request without a report id');
  return parsed.reportId;
}

/** Fields Amazon has not filled yet may come as null (its documented example) or not at all. */
const Maybe = Type.Optional(Type.Union([Type.String(), Type.Null()]));
const ReportState = Type.Object({ status: Type.String(), url: Maybe, failureReason: Maybe });

/** `GET /reporting/reports/{id}` → PENDING or PROCESSING, COMPLETED with the file's url, or FAILED with a reason. */
export function readReportStatus(status: number, body: unknown): AdReportStatus {
  if (status !== 200) throw refusal(status, body, 'read the report');
  const parsed = parseBody(ReportState, body);
  if (!parsed) throw new PlatformError('unavailable', 'Amazon Ads answered the report status with something unreadable');
  if (parsed.status === 'COMPLETED' && parsed.url) return { status: 'completed', url: parsed.url };
  if (parsed.status === 'FAILED') return { status: 'failed', reason: parsed.failureReason ?? 'Amazon Ads could not make the report' };
  return { status: 'pending' };
}

const Count = Type.Union([Type.Number(), Type.Null()]);
const ReportRow = Type.Object({
  date: Type.String(),
  adId: EntityId,
  impressions: Type.Optional(Count),
  clicks: Type.Optional(Count),
  cost: Type.Optional(Count),
  purchases7d: Type.Optional(Count),
  sales7d: Type.Optional(Count),
});

/** The report file's rows (a JSON array once gunzipped); a row without a date or ad id is not one Storelink can place. */
export function readReportRows(rows: unknown): AdReportRow[] {
  if (!Array.isArray(rows)) throw new PlatformError('unavailable', 'The Amazon Ads report file is not a list of rows');
  return rows.flatMap((entry) => {
    const row = parseBody(ReportRow, entry);
    if (!row) return [];
    return [
      {
        date: row.date,
        adId: String(row.adId),
        impressions: row.impressions ?? 0,
        clicks: row.clicks ?? 0,
        cost: row.cost ?? 0,
        orders: row.purchases7d ?? 0,
        sales: row.sales7d ?? 0,
      },
    ];
  });
}
