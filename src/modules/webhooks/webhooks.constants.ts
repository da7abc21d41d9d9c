/**
 * The delivery contract in one place: the dispatcher sends exactly this and the public catalogue
 * (GET /api/v1/webhooks/catalog) publishes exactly this, so the two cannot drift apart.
 */

export const SIGNATURE_HEADER = 'X-Service-Signature';
/** Unix seconds at the attempt; signed by SIGNATURE_V2_HEADER, so a captured delivery cannot be replayed later. */
export const TIMESTAMP_HEADER = 'X-Service-Timestamp';
/** `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`. */
export const SIGNATURE_V2_HEADER = 'X-Service-Signature-V2';
/** How far a receiver should accept the signed timestamp from its own clock (docs/webhooks.md). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;
export const EVENT_HEADER = 'X-Service-Event';
export const DELIVERY_HEADER = 'X-Service-Delivery';
/** The event of a test delivery (the console's "Send test event"): sent to one endpoint whatever it subscribes to. */
export const TEST_EVENT = 'webhook.test';
export const USER_AGENT = 'Accolade-Webhooks/1.1';
export const SIGNATURE_SCHEME = 'sha256';
export const SIGNATURE_ALGORITHM = 'HMAC-SHA256';

export const RETRY_SCHEDULE = {
  maxAttempts: 8,
  /** Wait after failed attempt n (1-based) before attempt n + 1; one "minute" is WEBHOOK_BACKOFF_UNIT_MS. */
  backoffMinutes: [1, 5, 15, 60, 180, 720, 1440],
} as const;

/** A 2xx must arrive within this time, connection included, or the attempt counts as failed. */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** At most this much of a receiver's answer is read (and none of it is stored). */
export const RESPONSE_BODY_CAP_BYTES = 4096;

/** A claimed row is another worker's to retry once this lease has passed (a worker killed mid-delivery). */
export const DELIVERY_LEASE_MS = 30_000;

export const SECRET_PREFIX = 'whsec_';
export const SECRET_RANDOM_LENGTH = 32;

export const DELIVERY_STATUSES = ['pending', 'delivering', 'delivered', 'failed', 'cancelled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Milliseconds to wait after `attempts` failed attempts, or null when none are left. */
export function backoffAfter(attempts: number, unitMs: number): number | null {
  if (attempts >= RETRY_SCHEDULE.maxAttempts) return null;
  const minutes = RETRY_SCHEDULE.backoffMinutes[attempts - 1];
  return minutes === undefined ? null : minutes * unitMs;
}
