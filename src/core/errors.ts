/** Machine-readable error codes (interface §Errors, design.md §4 Errors) and their HTTP status. */
export const ErrorCodes = {
  unauthorized: 401,
  forbidden: 403,
  csrf_failed: 403,
  last_owner: 409,
  email_taken: 409,
  lti_platform_exists: 409,
  lti_key_rotated_recently: 409,
  validation_failed: 400,
  not_found: 404,
  method_not_allowed: 405,
  uri_too_long: 414,
  request_timeout: 408,
  headers_too_large: 431,
  slug_taken: 409,
  slug_locked: 409,
  stage_exists: 409,
  pathway_incomplete: 409,
  pathway_empty: 422,
  already_endorsed: 409,
  endorsement_limit: 409,
  endorsement_final: 409,
  already_held: 409,
  credential_replaced: 409,
  credential_revoked: 409,
  quota_exceeded: 402,
  premium_not_included: 402,
  rate_limited: 429,
  import_busy: 429,
  invalid_csv: 422,
  ingest_failed: 422,
  unknown_provider: 404,
  payload_too_large: 413,
  definition_archived: 400,
  invalid_image: 400,
  gone: 410,
  certificate_unprintable: 422,
  unsupported_media_type: 415,
  service_unavailable: 503,
  internal_error: 500,
} as const;

export type ErrorCode = keyof typeof ErrorCodes;

export interface ValidationIssue {
  path: string;
  message: string;
  code: string;
}

/** The one error type services throw; the error handler renders it as the Error body. */
export class AppError extends Error {
  readonly statusCode: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.statusCode = ErrorCodes[code];
  }
}

export const errors = {
  unauthorized: (message = 'A valid API key is required (Authorization: Bearer <key> or X-API-Key).') =>
    new AppError('unauthorized', message),
  forbidden: (message: string) => new AppError('forbidden', message),
  csrfFailed: () => new AppError('csrf_failed', 'A change made with a console session needs its X-CSRF-Token header.'),
  notFound: (what = 'Resource') => new AppError('not_found', `${what} not found.`),
  validation: (message: string, issues: ValidationIssue[] = []) =>
    new AppError('validation_failed', message, { issues }),
  slugTaken: (slug: string) => new AppError('slug_taken', `The slug "${slug}" is already taken.`),
  slugLocked: (reason: 'credentials' | 'endorsements') =>
    new AppError(
      'slug_locked',
      reason === 'credentials'
        ? 'The slug cannot change once a credential exists: every credential URL, its signed documents and the did:web carry it, and links already shared would break.'
        : 'The slug cannot change once the issuer has given an endorsement: its address and signature carry the slug and the did:web, and the endorsements already given would break.',
    ),
  alreadyHeld: (credentialId: string) =>
    new AppError(
      'already_held',
      'The recipient already holds a valid credential of this definition; send ifAlreadyHeld "issue" to issue another.',
      { credentialId },
    ),
  credentialReplaced: (credentialId: string) =>
    new AppError(
      'credential_replaced',
      'The credential was replaced by a newer one; correct the newest credential instead.',
      { credentialId },
    ),
  credentialRevoked: (credentialId: string) =>
    new AppError(
      'credential_revoked',
      'The credential is revoked; a revoked credential is not corrected (reissue it if it was revoked in error).',
      { credentialId },
    ),
  stageExists: () => new AppError('stage_exists', 'This definition is already a stage of the pathway.'),
  pathwayIncomplete: (missing: { stageId: string; definitionId: string; stepOrder: number }[]) =>
    new AppError(
      'pathway_incomplete',
      `The recipient has not completed the pathway: ${missing.length} required stage(s) have no currently valid credential.`,
      { missingStages: missing },
    ),
  pathwayEmpty: () => new AppError('pathway_empty', 'The pathway has no stages yet, so no one can have completed it.'),
  alreadyEndorsed: () =>
    new AppError(
      'already_endorsed',
      'This issuer already endorses this definition; revoke that endorsement before giving another.',
    ),
  endorsementLimit: (message: string) => new AppError('endorsement_limit', message),
  endorsementFinal: (message: string) => new AppError('endorsement_final', message),
  quotaExceeded: (plan: string, quota: number | null, used: number) =>
    new AppError('quota_exceeded', `The ${plan} plan's issuance quota for this month is used up.`, {
      plan,
      quota,
      used,
    }),
  premiumNotIncluded: (plan: string) =>
    new AppError('premium_not_included', `The ${plan} plan does not include premium verification.`),
  invalidCsv: (message: string) => new AppError('invalid_csv', message),
  importBusy: (message: string) => new AppError('import_busy', message),
  ingestFailed: (message: string) => new AppError('ingest_failed', message),
  unknownProvider: (provider: string) => new AppError('unknown_provider', `Unknown connector provider "${provider}".`),
  payloadTooLarge: (message = 'The request body is too large.') => new AppError('payload_too_large', message),
  definitionArchived: () =>
    new AppError('definition_archived', 'The credential definition is archived; it cannot issue credentials.'),
  unavailable: (message = 'The service is temporarily unavailable; retry shortly.') =>
    new AppError('service_unavailable', message),
};
