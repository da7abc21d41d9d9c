import { WEBHOOK_EVENTS } from './outbox.service.js';
import {
  DELIVERY_HEADER,
  DELIVERY_TIMEOUT_MS,
  EVENT_HEADER,
  RETRY_SCHEDULE,
  SIGNATURE_ALGORITHM,
  SIGNATURE_HEADER,
  SIGNATURE_SCHEME,
  SIGNATURE_TOLERANCE_SECONDS,
  SIGNATURE_V2_HEADER,
  TIMESTAMP_HEADER,
  USER_AGENT,
} from './webhooks.constants.js';
import { EVENT_DESCRIPTIONS, sampleEnvelopes } from './webhooks.events.js';

const totalBackoffHours = Math.round(RETRY_SCHEDULE.backoffMinutes.reduce((a, b) => a + b, 0) / 6) / 10;

/** The public webhook catalogue: every value comes from the constants the dispatcher sends with. */
export function webhookCatalog(publicBaseUrl: string) {
  const samples = sampleEnvelopes(publicBaseUrl);
  return {
    signature: {
      header: SIGNATURE_HEADER,
      scheme: SIGNATURE_SCHEME,
      algorithm: SIGNATURE_ALGORITHM,
      signedOver: `The raw request body, byte for byte as received (before any JSON parsing), keyed with the subscription secret. The header value is "${SIGNATURE_SCHEME}=" followed by the lowercase hex digest; compare it in constant time.`,
      v2: {
        header: SIGNATURE_V2_HEADER,
        timestampHeader: TIMESTAMP_HEADER,
        format: `t=<unix seconds>,v1=<hex ${SIGNATURE_ALGORITHM}(secret, "<t>.<raw body>")>`,
        signedOver: `The attempt's unix time in seconds (also sent as ${TIMESTAMP_HEADER}), a ".", then the raw request body. Each attempt, retries included, is signed at the time it is sent. Check the digest in constant time, then refuse the delivery when t is more than ${SIGNATURE_TOLERANCE_SECONDS} seconds from your clock: a captured delivery cannot be replayed later.`,
        toleranceSeconds: SIGNATURE_TOLERANCE_SECONDS,
      },
    },
    headers: {
      'Content-Type': 'application/json',
      'User-Agent': USER_AGENT,
      [SIGNATURE_HEADER]: `${SIGNATURE_SCHEME}=<hex ${SIGNATURE_ALGORITHM}(secret, raw body)>`,
      [TIMESTAMP_HEADER]: 'Unix seconds when this attempt was sent; signed by the next header.',
      [SIGNATURE_V2_HEADER]: `t=<unix seconds>,v1=<hex ${SIGNATURE_ALGORITHM}(secret, "<t>.<raw body>")>: refuse a stale t to stop replays.`,
      [EVENT_HEADER]: 'The event name, the same as the envelope event.',
      [DELIVERY_HEADER]: 'The delivery id: one per event and subscription, the same on every retry.',
    },
    retry: {
      maxAttempts: RETRY_SCHEDULE.maxAttempts,
      backoffMinutes: [...RETRY_SCHEDULE.backoffMinutes],
      note: `An attempt succeeds when the receiver answers 2xx within ${DELIVERY_TIMEOUT_MS / 1000} seconds; redirects are not followed. After failed attempt n the next waits backoffMinutes[n-1] minutes (about ${totalBackoffHours} hours in all); after ${RETRY_SCHEDULE.maxAttempts} failed attempts the delivery is marked failed. Delivery is at least once and unordered: dedupe on ${DELIVERY_HEADER} (or the envelope id), and after verifying the signature reject envelopes whose occurredAt is older than your replay window (retries keep the original occurredAt, so a window shorter than about ${totalBackoffHours} hours drops late retries).`,
    },
    events: WEBHOOK_EVENTS.map((event) => ({
      event,
      description: EVENT_DESCRIPTIONS[event],
      sample: samples[event],
    })),
  };
}
