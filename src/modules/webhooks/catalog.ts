import { WEBHOOK_EVENTS } from './outbox.service.js';
import {
  DELIVERY_HEADER,
  DELIVERY_TIMEOUT_MS,
  EVENT_HEADER,
  RETRY_SCHEDULE,
  SIGNATURE_ALGORITHM,
  SIGNATURE_HEADER,
  SIGNATURE_SCHEME,
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
    },
    headers: {
      'Content-Type': 'application/json',
      'User-Agent': USER_AGENT,
      [SIGNATURE_HEADER]: `${SIGNATURE_SCHEME}=<hex ${SIGNATURE_ALGORITHM}(secret, raw body)>`,
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
