import { type Static, type TSchema, Type } from '@sinclair/typebox';

/**
 * OpenAPI 3.0.3 has no `type: null`; a nullable value is `nullable: true`, which ajv and
 * fast-json-stringify both understand.
 */
export function Nullable<T extends TSchema>(schema: T) {
  return Type.Unsafe<Static<T> | null>({ ...schema, nullable: true });
}

/**
 * One of a fixed set of strings, as `enum`. TypeBox writes a union of literals as `anyOf` of
 * `const`: the document then lists one-value alternatives, and fast-json-stringify can only
 * serialise it by running an ajv validator per value.
 */
export function StringEnum<const T extends readonly string[]>(values: T, options: { description?: string } = {}) {
  return Type.Unsafe<T[number]>({ ...options, type: 'string', enum: [...values] });
}

export const Uuid = Type.String({ format: 'uuid' });
/** The characters of an email's local part (RFC 5322 atext), as ajv's `email` format takes them. */
const ATEXT = "[a-zA-Z0-9!#$%&'*+/=?^_`{|}~-]+";
/** A DNS label of at most 63 characters (RFC 1035 §2.3.4). */
const LABEL = '[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?';
/**
 * An email address as the service takes it, one rule for every email field: a local part of at
 * most 64 characters (RFC 5321 §4.5.3.1.1), a dotted domain (`0@com` is refused), no quoted local
 * part or address literal, and surrounding whitespace allowed (normalisation trims it before
 * hashing, design.md). With `maxLength` 254 (RFC 5321 §4.5.3.1.3: a path of 256 with its angle
 * brackets) this is the whole check: the schema carries no `format: email`, whose addresses have no
 * surrounding whitespace, so the document says exactly what the service takes.
 */
export const EMAIL_PATTERN = `^\\s*(?=[^@\\s]{1,64}@)${ATEXT}(\\.${ATEXT})*@(${LABEL}\\.)+${LABEL}\\s*$`;
const EMAIL_MAX_LENGTH = 254;
export const Email = Type.String({
  pattern: EMAIL_PATTERN,
  maxLength: EMAIL_MAX_LENGTH,
  description:
    'An email address (a local part of at most 64 characters, a dotted domain); surrounding whitespace is trimmed.',
});
export const Uri = Type.String({ format: 'uri', maxLength: 2048 });
/**
 * An http(s) URL a browser can open: the scheme, then a host (after any user info) that is not
 * empty. ajv's `uri` alone takes `https://`; other schemes (javascript:, data:) are refused.
 */
export const WEB_URL_PATTERN = '^https?://([^/?#\\s@]*@)?[^/?#\\s@:]';
export const WebUrl = Type.String({ format: 'uri', pattern: WEB_URL_PATTERN, maxLength: 2048 });
/** WEB_URL_PATTERN for https only (webhook receivers). */
export const HTTPS_URL_PATTERN = '^https://([^/?#\\s@]*@)?[^/?#\\s@:]';
export const DateTime = Type.String({ format: 'date-time' });
/**
 * A list offset. Above 2^53 a number is no longer an exact integer and the databases refuse it as a
 * row count, so the bound keeps such a request a 400 rather than a failed query.
 */
export const PageOffset = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 });
/** Path id: any string; a malformed id is one that does not exist. */
export const IdParams = Type.Object({ id: Type.String({ maxLength: 200 }) });

export const Text = (maxLength = 500) => Type.String({ minLength: 1, maxLength });
/**
 * No control character (C0 with U+0000, DEL, C1): a name shows in email headers, logs, CSV exports
 * and badge images, where a CR or LF could start a line of its own.
 */
export const NAME_PATTERN = '^[^\\u0000-\\u001f\\u007f-\\u009f]*$';
/** The characters NAME_PATTERN refuses, for names that arrive outside a schema (CSV rows, connector records). */
export const NAME_CONTROL_CHARACTER = /\p{Cc}/u;
/** A name (of an issuer, a definition, a person, a key): Text without control characters. */
export const Name = (maxLength = 200) => Type.String({ minLength: 1, maxLength, pattern: NAME_PATTERN });

export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'Machine-readable error code.' }),
    message: Type.Optional(Type.String()),
  },
  { $id: 'Error', description: 'Error body' },
);

export const ValidationErrorBody = Type.Object(
  {
    error: Type.String(),
    message: Type.Optional(Type.String()),
    issues: Type.Array(
      Type.Object({
        path: Type.String({ description: 'JSON pointer of the offending value ("/recipientEmail").' }),
        message: Type.String(),
        code: Type.String({ description: 'The schema keyword that failed.' }),
      }),
    ),
  },
  { $id: 'ValidationError', description: 'Request validation failed' },
);

export const QuotaErrorBody = Type.Object(
  {
    error: Type.Literal('quota_exceeded'),
    message: Type.String(),
    plan: Type.String(),
    quota: Nullable(Type.Integer()),
    used: Type.Integer(),
  },
  { $id: 'QuotaExceeded', description: 'Issuance quota exhausted' },
);

export const sharedSchemas = [ErrorBody, ValidationErrorBody, QuotaErrorBody];

const ErrorRef = Type.Ref(ErrorBody);
const ValidationRef = Type.Ref(ValidationErrorBody);

const descriptions: Record<number, string> = {
  400: 'Invalid request',
  401: 'Missing or invalid API key',
  403: 'Refused: the console role may not do this, or the CSRF token is missing',
  402: 'Payment required',
  404: 'Not found',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload too large',
  415: 'Unsupported media type',
  422: 'Unprocessable',
  429: 'Rate limit exceeded',
  503: 'Temporarily unavailable',
};

/** Response schemas for error statuses, using the shared Error components. */
export function errorResponses<S extends number>(...statuses: S[]): { [K in S]: TSchema } {
  const out = {} as { [K in S]: TSchema };
  for (const status of statuses) {
    const schema = status === 400 ? ValidationRef : ErrorRef;
    out[status] = { ...schema, description: descriptions[status] ?? 'Error' };
  }
  return out;
}

/** The 402 of routes that issue credentials: the quota body of interface §Errors 3. */
export const quotaExceededResponse = { 402: { ...Type.Ref(QuotaErrorBody), description: 'Issuance quota exhausted' } };

/** The error responses of every keyed route. */
export const keyedErrors = [401, 403, 429] as const;
/** The error responses of every open route. */
export const openErrors = [429] as const;
