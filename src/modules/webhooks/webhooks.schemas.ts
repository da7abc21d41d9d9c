import { Type } from '@sinclair/typebox';
import { DateTime, HTTPS_URL_PATTERN, Nullable, PageOffset, WEB_URL_PATTERN } from '../../core/schemas.js';
import { WEBHOOK_EVENTS, type WebhookEvent } from './outbox.service.js';
import { DELIVERY_STATUSES, TEST_EVENT } from './webhooks.constants.js';

const EventName = Type.Unsafe<WebhookEvent>({
  type: 'string',
  enum: [...WEBHOOK_EVENTS],
  description: 'A subscribable event name.',
});

export const WebhookSubscription = Type.Object(
  {
    id: Type.String(),
    url: Type.String({ format: 'uri', description: 'Where deliveries are POSTed (https).' }),
    events: Type.Array(EventName),
    createdAt: DateTime,
  },
  { $id: 'WebhookSubscription' },
);

export const WebhookSubscriptionCreated = Type.Object(
  {
    id: Type.String(),
    url: Type.String({ format: 'uri' }),
    events: Type.Array(EventName),
    createdAt: DateTime,
    secret: Type.String({
      description: 'The HMAC signing secret. Shown only in this response; store it now.',
    }),
  },
  { $id: 'WebhookSubscriptionCreated' },
);

export const WebhookDelivery = Type.Object(
  {
    id: Type.String({ description: 'The delivery id, sent as X-Service-Delivery on every attempt.' }),
    event: Type.Unsafe<string>({
      type: 'string',
      enum: [...WEBHOOK_EVENTS, TEST_EVENT],
      description: `The event delivered: a subscribable one, or ${TEST_EVENT} (a test sent from the console).`,
    }),
    status: Type.Unsafe<string>({ type: 'string', enum: [...DELIVERY_STATUSES] }),
    attempts: Type.Integer(),
    lastStatusCode: Nullable(Type.Integer({ description: "The receiver's last HTTP status; null without an answer." })),
    lastError: Nullable(Type.String({ description: 'Why the last attempt failed (never the response body).' })),
    nextAttemptAt: Nullable(
      Type.String({ format: 'date-time', description: 'null once delivered, failed or cancelled.' }),
    ),
    createdAt: DateTime,
    deliveredAt: Nullable(Type.String({ format: 'date-time' })),
  },
  { $id: 'WebhookDelivery' },
);

export const WebhookCatalog = Type.Object(
  {
    signature: Type.Object({
      header: Type.String(),
      scheme: Type.String(),
      algorithm: Type.String(),
      signedOver: Type.String(),
      v2: Type.Object(
        {
          header: Type.String(),
          timestampHeader: Type.String(),
          format: Type.String(),
          signedOver: Type.String(),
          toleranceSeconds: Type.Integer({ description: 'How far from its clock a receiver should accept t.' }),
        },
        { description: 'The timestamped signature, which lets a receiver refuse replayed deliveries.' },
      ),
    }),
    headers: Type.Object({}, { additionalProperties: Type.String(), description: 'Each header sent and its meaning.' }),
    retry: Type.Object({
      maxAttempts: Type.Integer(),
      backoffMinutes: Type.Array(Type.Integer()),
      note: Type.String(),
    }),
    events: Type.Array(
      Type.Object({
        event: Type.String(),
        description: Type.String(),
        sample: Type.Object({
          id: Type.String(),
          event: Type.String(),
          occurredAt: DateTime,
          data: Type.Object({}, { additionalProperties: true }),
        }),
      }),
    ),
  },
  { $id: 'WebhookCatalog' },
);

/**
 * The subscription body. The receiver URL is https (`HTTPS_URL_PATTERN`); a deployment with
 * WEBHOOK_ALLOW_PRIVATE (development, tests) takes http too, and its document says so.
 */
export function createWebhookBody(allowHttp: boolean) {
  return Type.Object({
    url: Type.String({
      format: 'uri',
      pattern: allowHttp ? WEB_URL_PATTERN : HTTPS_URL_PATTERN,
      minLength: 1,
      maxLength: 2048,
      description: allowHttp
        ? 'URL of the receiver: https, or http on this development deployment (WEBHOOK_ALLOW_PRIVATE).'
        : 'https URL of a public receiver.',
    }),
    events: Type.Array(EventName, { minItems: 1, maxItems: WEBHOOK_EVENTS.length, uniqueItems: true }),
  });
}

/** A change of receiver URL or events; what is left out stays. The signing secret never changes here. */
export function updateWebhookBody(allowHttp: boolean) {
  const { url, events } = createWebhookBody(allowHttp).properties;
  return Type.Object(
    { url: Type.Optional(url), events: Type.Optional(events) },
    { additionalProperties: false, minProperties: 1 },
  );
}

export const WebhookIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const DeliveriesQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
    offset: PageOffset,
  },
  { additionalProperties: false },
);

export const webhookSchemas = [WebhookSubscription, WebhookSubscriptionCreated, WebhookDelivery, WebhookCatalog];
