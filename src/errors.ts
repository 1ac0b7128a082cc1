/** The closed set of errors the service can answer with, and their one mapping to the seed's error body (seed §7, DESIGN §2). */
export type ErrorCode =
  | 'bad_request'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'method_not_allowed'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'validation_failed'
  | 'rate_limited'
  | 'internal'
  | 'unavailable';

const STATUS: Record<ErrorCode, { status: number; message: string }> = {
  bad_request: { status: 400, message: 'Bad request' },
  unauthenticated: { status: 401, message: 'Unauthenticated' },
  forbidden: { status: 403, message: 'Invalid workspace or access denied' },
  not_found: { status: 404, message: 'Not found' },
  conflict: { status: 409, message: 'Conflict' },
  method_not_allowed: { status: 405, message: 'Method not allowed' },
  payload_too_large: { status: 413, message: 'Payload too large' },
  unsupported_media_type: { status: 415, message: 'Unsupported media type: send application/json' },
  validation_failed: { status: 422, message: 'The given data was invalid.' },
  rate_limited: { status: 429, message: 'Too many requests' },
  internal: { status: 500, message: 'Server error' },
  unavailable: { status: 503, message: 'Service unavailable' },
};

/** Field name -> human-readable messages, as in DESIGN §2 (`errors.platform_id = ["…"]`). */
export type FieldErrors = Record<string, string[]>;

export interface ErrorBody {
  success: false;
  code: number;
  message: string;
  errors?: FieldErrors;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly fields: FieldErrors | undefined;
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    options: { message?: string; fields?: FieldErrors; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(options.message ?? STATUS[code].message, { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = STATUS[code].status;
    this.fields = options.fields;
    this.headers = options.headers ?? {};
  }

  toBody(): ErrorBody {
    return this.fields
      ? { success: false, code: this.status, message: this.message, errors: this.fields }
      : { success: false, code: this.status, message: this.message };
  }
}

/** A 422 for one field: `invalidField('email', 'The email has already been taken.')`. */
export function invalidField(field: string, message: string): AppError {
  return new AppError('validation_failed', { fields: { [field]: [message] } });
}
