import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, keyedErrors, openErrors } from '../../core/schemas.js';
import { webhookCatalog } from './catalog.js';
import {
  createWebhookBody,
  DeliveriesQuery,
  updateWebhookBody,
  WebhookCatalog,
  WebhookDelivery,
  WebhookIdParams,
  WebhookSubscription,
  WebhookSubscriptionCreated,
} from './webhooks.schemas.js';

/** A delivery put in the queue; the dispatcher sends it and the delivery log shows how it went. */
const QueuedDelivery = Type.Object({ deliveryId: Type.String() });

export const webhookRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { subscriptions } = app.services.webhooks;
  const catalog = webhookCatalog(app.core.config.publicBaseUrl);

  app.get(
    '/api/v1/webhooks/catalog',
    {
      schema: {
        operationId: 'getWebhookCatalog',
        tags: ['Webhooks'],
        summary: 'Events, signature, headers and retry schedule of outbound webhooks',
        response: { 200: Type.Ref(WebhookCatalog), ...errorResponses(...openErrors) },
      },
    },
    async () => catalog,
  );

  app.post(
    '/api/v1/webhooks',
    {
      config: { auth: 'key', role: 'owner' },
      schema: {
        operationId: 'createWebhook',
        tags: ['Webhooks'],
        summary: 'Subscribe a receiver URL to events; the signing secret is returned only here',
        body: createWebhookBody(app.core.config.webhookAllowPrivate),
        response: { 201: Type.Ref(WebhookSubscriptionCreated), ...errorResponses(400, ...keyedErrors) },
      },
    },
    async (request, reply) => {
      const created = await subscriptions.create(request.issuerId(), request.actor(), request.body);
      return reply.status(201).send(created);
    },
  );

  app.get(
    '/api/v1/webhooks',
    {
      config: { auth: 'key', role: 'owner' },
      schema: {
        operationId: 'listWebhooks',
        tags: ['Webhooks'],
        summary: "The issuer's webhook subscriptions",
        response: { 200: Type.Array(Type.Ref(WebhookSubscription)), ...errorResponses(...keyedErrors) },
      },
    },
    async (request) => subscriptions.list(request.issuerId()),
  );

  app.get(
    '/api/v1/webhooks/:id',
    {
      config: { auth: 'key', role: 'owner' },
      schema: {
        operationId: 'getWebhook',
        tags: ['Webhooks'],
        summary: 'One webhook subscription',
        params: WebhookIdParams,
        response: { 200: Type.Ref(WebhookSubscription), ...errorResponses(404, ...keyedErrors) },
      },
    },
    async (request) => subscriptions.get(request.issuerId(), request.params.id),
  );

  app.patch(
    '/api/v1/webhooks/:id',
    {
      config: { auth: 'key', role: 'owner' },
      schema: {
        operationId: 'updateWebhook',
        tags: ['Webhooks'],
        summary: 'Change the receiver URL or the events of a subscription; the signing secret stays',
        params: WebhookIdParams,
        body: updateWebhookBody(app.core.config.webhookAllowPrivate),
        response: { 200: Type.Ref(WebhookSubscription), ...errorResponses(400, 404, ...keyedErrors) },
      },
    },
    async (request) => subscriptions.update(request.issuerId(), request.actor(), request.params.id, request.body),
  );

  app.delete(
    '/api/v1/webhooks/:id',
    {
      config: { auth: 'key', role: 'owner' },
      schema: {
        operationId: 'deleteWebhook',
        tags: ['Webhooks'],
        summary: 'Unsubscribe; deliveries not yet made are cancelled',
        params: WebhookIdParams,
        response: { 204: Type.Null({ description: 'Deleted' }), ...errorResponses(404, ...keyedErrors) },
      },
    },
    async (request, reply) => {
      await subscriptions.remove(request.issuerId(), request.actor(), request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/api/v1/webhooks/:id/test',
    {
      config: { auth: 'key', role: 'owner' },
      schema: {
        operationId: 'sendWebhookTest',
        tags: ['Webhooks'],
        summary: 'Queue a signed webhook.test delivery to this endpoint (shown in its delivery log)',
        params: WebhookIdParams,
        response: { 202: QueuedDelivery, ...errorResponses(404, ...keyedErrors) },
      },
    },
    async (request, reply) =>
      reply.status(202).send(await subscriptions.sendTest(request.issuerId(), request.actor(), request.params.id)),
  );

  app.post(
    '/api/v1/webhooks/:id/deliveries/:deliveryId/resend',
    {
      config: { auth: 'key', role: 'owner' },
      schema: {
        operationId: 'resendWebhookDelivery',
        tags: ['Webhooks'],
        summary: 'Queue a delivery again, with the same event and payload',
        params: Type.Object({ id: Type.String({ maxLength: 200 }), deliveryId: Type.String({ maxLength: 200 }) }),
        response: { 202: QueuedDelivery, ...errorResponses(404, ...keyedErrors) },
      },
    },
    async (request, reply) =>
      reply
        .status(202)
        .send(
          await subscriptions.resend(request.issuerId(), request.actor(), request.params.id, request.params.deliveryId),
        ),
  );

  app.get(
    '/api/v1/webhooks/:id/deliveries',
    {
      config: { auth: 'key', role: 'owner' },
      schema: {
        operationId: 'listWebhookDeliveries',
        tags: ['Webhooks'],
        summary: 'Deliveries of a subscription, latest first',
        params: WebhookIdParams,
        querystring: DeliveriesQuery,
        response: {
          200: Type.Object({
            total: Type.Integer(),
            limit: Type.Integer(),
            offset: Type.Integer(),
            items: Type.Array(Type.Ref(WebhookDelivery)),
          }),
          ...errorResponses(400, 404, ...keyedErrors),
        },
      },
    },
    async (request) =>
      subscriptions.deliveries(request.issuerId(), request.params.id, request.query.limit, request.query.offset),
  );
};
