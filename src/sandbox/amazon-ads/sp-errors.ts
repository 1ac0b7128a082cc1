/**
 * The Ads API's words for what goes wrong. A refused request is `{code, details}` (third-party SDKs and Amazon's own
 * repos' issues show `{"code":"401","details":"Authentication failed"}`; no primary source was retrieved: UNCONFIRMED).
 * A refused item of a Sponsored Products v3 batch is `{errorType, errorValue: {<errorType>: {reason, message, cause}}}`
 * with the reasons of the v3 model (as generated from Amazon's OpenAPI document, e.g. vancodocton/AmazonAdsGenerated).
 */
import type { FaultAnswers } from '../faults.js';

/** A whole request refused. */
export const adsError = (code: string, details: string) => ({ code, details });

/**
 * The error classes a test can ask for (src/sandbox/faults.ts) on `identity`, `advertising` and `reports`, in the Ads
 * API's `{code, details}`.
 */
export const ADS_FAULT_ANSWERS: FaultAnswers = {
  error: adsError('INTERNAL_ERROR', 'Internal server error'),
  refused: { status: 401, body: adsError('UNAUTHORIZED', 'Not authorized to access this advertiser') },
  misconfigured: { status: 401, body: adsError('UNAUTHORIZED', 'Invalid Amazon-Advertising-API-ClientId') },
  passing: { status: 503, body: adsError('SERVICE_UNAVAILABLE', 'Service unavailable') },
  throttled: { status: 429, body: adsError('429', 'Too Many Requests') },
};

/** One refusal of one item. */
export interface ItemError {
  errorType: string;
  errorValue: Record<string, Record<string, unknown>>;
}

/** Where in the body an item's field is, as a JSON path (`$.campaigns[0].name`), and the value that was wrong. */
export interface Cause {
  location: string;
  trigger?: unknown;
}

const itemError = (errorType: string, reason: string, cause: Cause, message: string, extra: Record<string, unknown> = {}): ItemError => ({
  errorType,
  errorValue: {
    [errorType]: {
      reason,
      cause: cause.trigger === undefined ? { location: cause.location } : { location: cause.location, trigger: String(cause.trigger) },
      message,
      ...extra,
    },
  },
});

export const missingValue = (cause: Cause, message: string) => itemError('missingValueError', 'MISSING_VALUE', cause, message);

/** Malformed text: `BLANK`, `TOO_LONG`, `TOO_SHORT`, `PATTERN_NOT_MATCHED`, `LEADING_OR_TRAILING_WHITESPACE`, `FORBIDDEN_CHARS`. */
export const malformedValue = (cause: Cause, reason: string, message: string) => itemError('malformedValueError', reason, cause, message);

/** A value out of range (`TOO_LOW`, `TOO_HIGH`) or not one of the allowed (`INVALID_ENUM_VALUE`). */
export const rangeError = (cause: Cause, reason: string, message: string, limits: Record<string, unknown> = {}) =>
  itemError('rangeError', reason, cause, message, limits);

/** `NAME_NOT_UNIQUE` or `DUPLICATE_VALUE`. */
export const duplicateValue = (cause: Cause, reason: string, message: string) => itemError('duplicateValueError', reason, cause, message);

export type EntityType = 'CAMPAIGN' | 'AD_GROUP' | 'PRODUCT_AD' | 'KEYWORD';

export const entityNotFound = (cause: Cause, entityType: EntityType, entityId: string) =>
  itemError('entityNotFoundError', 'ENTITY_NOT_FOUND', cause, `${entityLabel(entityType)} ${entityId} was not found`, {
    entityType,
    entityId,
  });

/** `ARCHIVED_ENTITY_CANNOT_BE_MODIFIED`, `PARENT_ARCHIVED_FORBIDS_UPDATES`, `PARENT_ENTITY_FORBIDS_CREATION`. */
export const entityState = (cause: Cause, reason: string, message: string) => itemError('entityStateError', reason, cause, message);

export const otherError = (cause: Cause, message: string) => itemError('otherError', 'OTHER_ERROR', cause, message);

export function entityLabel(entityType: EntityType): string {
  return { CAMPAIGN: 'Campaign', AD_GROUP: 'Ad group', PRODUCT_AD: 'Product ad', KEYWORD: 'Keyword' }[entityType];
}
