import type { Control } from './trust.schemas.js';

/** The date these controls were last checked against the code; change it with every review. */
export const LAST_REVIEWED = '2026-11-21';

export const SLO_TARGETS = { availabilityTarget: '99.5%', rtoTarget: '4h', rpoTarget: '24h' } as const;

/**
 * The security controls the service itself implements. Every path named in an evidence string is a
 * file of this repository; test/trust.test.ts fails when one disappears, so the page cannot drift
 * into claims nothing backs.
 */
export const CONTROLS: readonly Control[] = [
  {
    id: 'ENC-1',
    category: 'Encryption',
    title: 'TLS 1.2 or newer in transit',
    description:
      'With TLS_CERT_FILE and TLS_KEY_FILE set the server speaks HTTPS only, with minVersion TLSv1.2; behind a load balancer the operator terminates TLS there and sets TRUST_PROXY. Plain HTTP is for development.',
    evidence:
      'Code: src/server.ts (reads the certificate files), src/app.ts (https minVersion TLSv1.2), src/config.ts (TLS_CERT_FILE and TLS_KEY_FILE must be set together). Tests: test/config.test.ts.',
  },
  {
    id: 'ENC-2',
    category: 'Encryption',
    title: 'HSTS and HTTPS-only public URLs',
    description:
      'Strict-Transport-Security is sent whenever TLS is configured or PUBLIC_BASE_URL is https, and every published URL (assertions, badge classes, verification pages) is built from PUBLIC_BASE_URL, so documents never point at plain HTTP in production.',
    evidence:
      'Code: src/core/security-headers.ts (HSTS), src/core/urls.ts (publicUrls). Tests: test/ops.test.ts (security headers on every response).',
  },
  {
    id: 'ISO-1',
    category: 'Data Isolation',
    title: 'Tenant scoping from the API key',
    description:
      'The API key resolves the issuer; no partner call takes an issuer id. Every repository method takes the issuer id first and filters by it in SQL, so there is no unscoped lookup of tenant data.',
    evidence:
      'Code: src/core/auth.ts (key to issuer), src/modules/credentials/credentials.repository.ts, src/modules/pathways/pathways.repository.ts, src/modules/gdpr/gdpr.repository.ts. Tests: test/credentials.test.ts, test/pathways.test.ts.',
  },
  {
    id: 'ISO-2',
    category: 'Data Isolation',
    title: "Another issuer's resource is indistinguishable from a missing one",
    description:
      'A resource of another issuer answers 404 with exactly the body of a missing id, so ids of other tenants cannot be probed. The route tests apply one shared helper that compares both answers byte for byte.',
    evidence:
      'Code: src/core/errors.ts (notFound). Tests: test/helpers.ts (expectHiddenFromOtherIssuer), test/credentials.test.ts, test/pathways.test.ts.',
  },
  {
    id: 'ISO-3',
    category: 'Data Isolation',
    title: 'Per-issuer recipient salt',
    description:
      'Each issuer has its own random 32-hex-character salt, so the same email hashes differently at two issuers and recipients cannot be linked across tenants.',
    evidence:
      'Code: src/core/hashing.ts (hashRecipientEmail), src/modules/issuers/issuers.service.ts. Tests: test/gdpr.test.ts (the same email has a different hash at another issuer).',
  },
  {
    id: 'AC-1',
    category: 'Access Control',
    title: 'API keys stored as SHA-256 hashes and shown once',
    description:
      'A key is 40 random URL-safe characters after the acc_ prefix. Only its SHA-256 hash and an 8-character display prefix are stored; the full key is printed once by the console at creation and cannot be retrieved later.',
    evidence:
      'Code: src/modules/issuers/issuers.service.ts (hashApiKey, newKey), src/cli/issuers.commands.ts. Tests: test/cli.test.ts (the printed key works over HTTP), test/platform.test.ts.',
  },
  {
    id: 'AC-2',
    category: 'Access Control',
    title: 'Revocable and rotatable keys',
    description:
      '`accolade keys revoke` disables a key at once; `accolade keys rotate --grace <seconds>` issues a new key and keeps the old ones working only until the grace period ends. A revoked key answers 401. Each server caches key lookups, and drops a key when the database announces its change (within milliseconds; a server that cannot hear those announcements does not use the cache).',
    evidence:
      'Code: src/modules/issuers/issuers.service.ts (revokeKey, rotateKeys), src/db/read-cache.ts (keys), src/cli/issuers.commands.ts. Tests: test/cli.test.ts (rotates and revokes keys), test/platform.test.ts (refuses a revoked key), test/read-cache.test.ts (a key revoked on one replica or by SQL, on both).',
  },
  {
    id: 'AC-3',
    category: 'Access Control',
    title: 'Every partner route requires a key',
    description:
      'Keyed routes declare it in their configuration; a request without a valid key is refused with 401 before its body is parsed. Only what the interface names as open (verification, the public documents and pages, the embed script, the webhook catalogue, this trust page) and the operations endpoints answer without a key.',
    evidence:
      'Code: src/core/auth.ts (registerAuth). Tests: test/helpers.ts (expectKeyRequired), test/openapi.test.ts (keyed operations declare security).',
  },
  {
    id: 'AC-4',
    category: 'Access Control',
    title: 'Per-key rate limits',
    description:
      "Each API key is limited to its plan's requests per minute, and requests without a valid key to a per-address limit; a 429 carries Retry-After and X-RateLimit headers. With REDIS_URL every replica shares one count.",
    evidence: 'Code: src/core/rate-limit.ts. Tests: test/ratelimit.test.ts.',
  },
  {
    id: 'AUD-1',
    category: 'Audit',
    title: 'Append-only audit log enforced by the database',
    description:
      'Database triggers refuse UPDATE and DELETE (and TRUNCATE on PostgreSQL, and REPLACE on SQLite) of audit records, verification events and engagement events, whatever code or console issues them. On PostgreSQL the application connects as a role that does not own the tables and has no UPDATE, DELETE or TRUNCATE grant on them.',
    evidence:
      'Code: src/db/migrations/append-only.ts, src/db/migrations/0001_initial.ts; README.md (Database roles). Tests: test/audit.test.ts.',
  },
  {
    id: 'AUD-2',
    category: 'Audit',
    title: 'Hash-chained records and `accolade audit verify`',
    description:
      "Every record hashes its content together with the previous record's hash (a SHA-256 chain per issuer); `accolade audit verify` recomputes the chains and names the first record that was altered or removed.",
    evidence:
      'Code: src/modules/audit/audit.service.ts (append, verify), src/cli/issuers.commands.ts (audit verify). Tests: test/audit.test.ts, test/cli.test.ts.',
  },
  {
    id: 'AUD-3',
    category: 'Audit',
    title: 'Mutations audited in the same transaction',
    description:
      'Issuance, revocation, reissue, pathway changes and GDPR export and erasure write their audit record inside the transaction of the change, so a change and its record commit together. Records carry counts and ids, never an email.',
    evidence:
      'Code: src/modules/credentials/issuance.service.ts, src/modules/credentials/credentials.service.ts, src/modules/gdpr/gdpr.service.ts. Tests: test/platform.test.ts, test/gdpr.test.ts.',
  },
  {
    id: 'MIN-1',
    category: 'Data Minimisation',
    title: 'Recipient emails hashed on arrival',
    description:
      "An email is normalised and hashed with the issuer's salt (SHA-256) as soon as a request arrives; it is never written to the database, a log line, an error message, a webhook payload or a response.",
    evidence:
      'Code: src/core/hashing.ts, src/modules/credentials/issuance.service.ts (recipientHash). Tests: test/gdpr.test.ts (the email is absent from the database files).',
  },
  {
    id: 'MIN-2',
    category: 'Data Minimisation',
    title: 'Partial names in public results',
    description:
      'Public verification, the verification page and earner profiles show the recipient only as first name plus last initial ("Ada L."), and nothing once the name is erased; the full name never leaves the partner API.',
    evidence:
      'Code: src/modules/verification/partial-name.ts, src/modules/verification/verification.views.ts. Tests: test/verification.test.ts (a partial name only), test/gdpr.test.ts (no name after erasure).',
  },
  {
    id: 'MIN-3',
    category: 'Data Minimisation',
    title: 'GDPR export and erasure',
    description:
      "POST /api/v1/gdpr/export returns everything held about a recipient and audits the access; POST /api/v1/gdpr/erase revokes the recipient's credentials, removes their stored name and earner profiles in one transaction and audits it. The salted hash and the audit trail stay so the issuer can still account for what it issued.",
    evidence: 'Code: src/modules/gdpr/gdpr.service.ts, src/modules/gdpr/gdpr.repository.ts. Tests: test/gdpr.test.ts.',
  },
  {
    id: 'MIN-4',
    category: 'Data Minimisation',
    title: 'Webhook payloads without personal data',
    description: 'Webhook events carry ids, URLs, statuses and timestamps only: never an email, a hash or a name.',
    evidence:
      'Code: src/modules/webhooks/webhooks.events.ts (credentialEventData). Tests: test/webhooks.test.ts (no personal data in deliveries).',
  },
  {
    id: 'SEC-1',
    category: 'Secrets Management',
    title: 'Signed webhooks with per-subscription secrets',
    description:
      'Each subscription gets a random signing secret, shown only in the response that creates it. Every delivery carries X-Service-Signature: sha256=<HMAC-SHA256 of the raw body>, so receivers can reject forged or altered calls.',
    evidence:
      'Code: src/modules/webhooks/webhooks.service.ts (create), src/modules/webhooks/delivery.http.ts (signatureFor). Tests: test/webhooks.test.ts.',
  },
  {
    id: 'SEC-2',
    category: 'Secrets Management',
    title: 'Secrets redacted from logs',
    description:
      'Every JSON log line is scrubbed as it is written: any email address and any API key in it, in whatever field, message or error, is replaced by [redacted]. Request headers are never logged, and a logged request URL has emails, keys, tokens and secret parameters removed, so neither keys nor recipient emails reach log storage.',
    evidence:
      'Code: src/app.ts (logOptions), src/core/log-redaction.ts (scrubLogLine, redactUrl). Tests: test/front-door.test.ts (log lines scrubbed as they are written), test/gdpr.test.ts (captured logs hold neither the key nor the email).',
  },
  {
    id: 'SEC-3',
    category: 'Secrets Management',
    title: 'Operator secrets only from the environment',
    description:
      'Database credentials, METRICS_TOKEN and TLS key files come from the environment, parsed and validated once at start-up, never from the code. The metrics token is compared in constant time.',
    evidence:
      'Code: src/config.ts (loadConfig), src/modules/ops/ops.routes.ts (tokensMatch). Tests: test/config.test.ts, test/ops.test.ts (METRICS_TOKEN).',
  },
  {
    id: 'OBS-1',
    category: 'Observability',
    title: 'Prometheus metrics',
    description:
      'GET /metrics serves request counts and a latency histogram by route and status, credentials issued and verifications by channel, plus process metrics; it can be protected with METRICS_TOKEN.',
    evidence:
      'Code: src/core/metrics.ts, src/modules/ops/ops.routes.ts. Tests: test/platform.test.ts (metrics by route), test/ops.test.ts.',
  },
  {
    id: 'OBS-2',
    category: 'Observability',
    title: 'Liveness and readiness',
    description:
      'GET /health answers while the process runs; GET /health/ready checks the database with a timeout and answers 503 when it cannot be reached, so load balancers stop routing to an unhealthy replica.',
    evidence:
      'Code: src/modules/ops/ops.routes.ts. Tests: test/platform.test.ts, test/ops.test.ts (503 without a database).',
  },
  {
    id: 'OBS-3',
    category: 'Observability',
    title: 'Request ids and structured logs',
    description:
      'Every response carries X-Request-Id, the id Fastify puts on every JSON log line of that request; a 500 answers internal_error without internals while the cause is logged under the same id.',
    evidence:
      'Code: src/app.ts (genReqId, x-request-id), src/core/error-handler.ts. Tests: test/platform.test.ts, test/errors.test.ts.',
  },
];
