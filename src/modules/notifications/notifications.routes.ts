import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { type LanguageSources, negotiateLanguage } from '../../core/locale.js';
import { errorResponses, IdParams, keyedErrors, openErrors } from '../../core/schemas.js';
import { renderUnsubscribePage, unsubscribeCsp } from './notifications.page.js';
import {
  NotificationPreviewSchema,
  NotificationSettingsSchema,
  PreviewQuery,
  ReminderReportSchema,
  RemindersDueSchema,
  ResendBody,
  ResendResultSchema,
  SendRemindersBody,
  UpdateNotificationSettingsBody,
} from './notifications.schemas.js';
import { RESENDS_PER_DAY } from './notifications.service.js';

const Settings = Type.Ref(NotificationSettingsSchema);
const TokenParams = Type.Object({ token: Type.String({ maxLength: 100 }) });
const LangQuery = Type.Object({
  lang: Type.Optional(
    Type.String({
      maxLength: 35,
      description: 'The page language (BCP 47); else Accept-Language, else the credential’s, else the issuer’s',
    }),
  ),
});
const HTML = 'text/html; charset=utf-8';
const NONCE_LENGTH = 24;
const htmlPage = (description: string) => ({ description, content: { 'text/html': { schema: Type.String() } } });

/** The issuer's notification settings (key) and the earner's unsubscribe link (open). */
export const notificationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { notifications } = app.services;
  const { ids } = app.core;
  const tags = ['Notifications'];

  app.get(
    '/api/v1/notifications/settings',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'getNotificationSettings',
        tags,
        summary: "The issuer's earner-notification settings",
        response: { 200: Settings, ...errorResponses(...keyedErrors) },
      },
    },
    async (request) => notifications.settings(request.issuerId()),
  );

  app.patch(
    '/api/v1/notifications/settings',
    {
      config: { auth: 'key', role: 'owner' },
      schema: {
        operationId: 'updateNotificationSettings',
        tags,
        summary: 'Change the sender name, reply-to, language or default of earner notifications',
        body: UpdateNotificationSettingsBody,
        response: { 200: Settings, ...errorResponses(400, ...keyedErrors) },
      },
    },
    async (request) => notifications.updateSettings(request.issuerId(), request.actor(), request.body),
  );

  app.get(
    '/api/v1/notifications/preview',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'previewNotification',
        tags,
        summary: "The earner's message as the current settings render it, for an example credential",
        querystring: PreviewQuery,
        response: { 200: NotificationPreviewSchema, ...errorResponses(400, 404, ...keyedErrors) },
      },
    },
    async (request) =>
      notifications.preview(request.issuerId(), request.query.kind ?? 'award', request.query.definitionId),
  );

  app.get(
    '/api/v1/notifications/reminders',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'getRemindersDue',
        tags,
        summary: 'How many credentials are due an expiry reminder now',
        response: { 200: RemindersDueSchema, ...errorResponses(...keyedErrors) },
      },
    },
    async (request) => notifications.remindersDue(request.issuerId()),
  );

  app.post(
    '/api/v1/notifications/reminders',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'sendExpiryReminders',
        tags,
        summary: 'Email expiry reminders to the earners given whose credentials are due one (once per credential)',
        description:
          "The service stores no address, so the caller supplies them (the issuer's roster). Each credential of an address that is live, expires within the issuer's `expiryReminderDays` and was never reminded gets one reminder, however many replicas or calls race for it. 400 while reminders are off.",
        body: SendRemindersBody,
        response: { 200: ReminderReportSchema, ...errorResponses(400, ...keyedErrors) },
      },
    },
    async (request) => notifications.sendReminders(request.issuerId(), request.actor(), request.body.recipientEmails),
  );

  app.post(
    '/api/v1/credentials/:id/notification',
    {
      config: { auth: 'key' },
      schema: {
        operationId: 'resendCredentialNotification',
        tags,
        summary: 'Email the earner the credential\'s message again ("Resend the email")',
        description: `The credential's newest message again, in its language with the badge's translated text: its expiry reminder once one was sent (while it has not expired), else the renewal, reissue or name correction that made it, else the award; with a fresh unsubscribe link, to \`recipientEmail\`, which must be the credential's recipient (400 otherwise: the service keeps no address, so the caller gives it). 409 credential_revoked for a revoked or erased credential; 429 after ${RESENDS_PER_DAY} resends of one credential in 24 hours. Audited as credential.notification_resent with its outcome; the credential detail's notification shows what became of it.`,
        params: IdParams,
        body: ResendBody,
        response: {
          202: { ...ResendResultSchema, description: 'Queued, or not sent and why' },
          ...errorResponses(400, 404, 409, ...keyedErrors),
        },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const notification = await notifications.resend(
        request.issuerId(),
        request.actor(),
        id,
        request.body.recipientEmail,
      );
      return reply.status(202).send({ credentialId: id, notification });
    },
  );

  // RFC 8058 one-click unsubscribe posts `List-Unsubscribe=One-Click` as a form; nothing in it is needed.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 1024 },
    (_r, _b, done) => done(null, undefined),
  );

  const page = {
    params: TokenParams,
    querystring: LangQuery,
    response: {
      200: htmlPage('The unsubscribe page'),
      404: htmlPage('Unknown link'),
      ...errorResponses(...openErrors),
    },
  };

  const asked = (request: { query: { lang?: string }; headers: { 'accept-language'?: string } }) => ({
    query: request.query.lang,
    acceptLanguage: request.headers['accept-language'],
  });

  /**
   * The confirmation (GET) or the unsubscribing itself (POST), in the language of `?lang=`, else of
   * Accept-Language, else the credential's, else the issuer's (issue 45 §2); the page varies by
   * Accept-Language and says its language.
   */
  async function answer(asked: LanguageSources, token: string, reply: FastifyReply, act: boolean) {
    const nonce = ids.token(NONCE_LENGTH);
    const target = await notifications.unsubscribeTarget(token);
    reply.header('content-type', HTML).header('content-security-policy', unsubscribeCsp(nonce));
    reply.header('cache-control', 'no-store').header('vary', 'Accept-Language');
    if (!target || (act && !(await notifications.unsubscribe(token)))) {
      const language = negotiateLanguage(asked);
      reply.header('content-language', language);
      return reply.status(404).send(renderUnsubscribePage({ kind: 'unknown' }, language, nonce));
    }
    const state = { kind: act ? ('done' as const) : ('confirm' as const), issuerName: target.issuerName };
    const language = negotiateLanguage({
      ...asked,
      credential: target.credentialLanguage,
      issuer: target.issuerLanguage,
    });
    reply.header('content-language', language);
    return reply.send(renderUnsubscribePage(state, language, nonce));
  }

  app.get(
    '/notifications/unsubscribe/:token',
    {
      schema: {
        operationId: 'getUnsubscribePage',
        tags,
        summary: 'Asks the earner to confirm unsubscribing (a link scanner opening it changes nothing)',
        ...page,
      },
    },
    async (request, reply) => answer(asked(request), request.params.token, reply, false),
  );

  app.post(
    '/notifications/unsubscribe/:token',
    {
      schema: {
        operationId: 'unsubscribe',
        tags,
        summary: "One-click unsubscribe (RFC 8058): adds the earner's hash to the issuer's suppression list",
        ...page,
      },
    },
    async (request, reply) => answer(asked(request), request.params.token, reply, true),
  );
};
