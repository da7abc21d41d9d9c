import type { Core } from '../../core/context.js';
import type { AuditService } from '../audit/audit.service.js';
import { createWebhookDispatcher } from './dispatcher.js';
import { createExpirySweeper } from './expiry-sweeper.js';
import type { OutboxService } from './outbox.service.js';
import { systemLookup } from './ssrf.js';
import { createWebhookService } from './webhooks.service.js';

/** Webhooks: subscriptions (API and console), the dispatcher and the expiry sweeper. */
export function createWebhookModule(
  core: Core,
  deps: { outbox: OutboxService; audit: Pick<AuditService, 'append' | 'appendMany'> },
) {
  const subscriptions = createWebhookService(core, { lookup: systemLookup, audit: deps.audit });
  const dispatcher = createWebhookDispatcher(core);
  const expirySweeper = createExpirySweeper(core, deps);
  return {
    subscriptions,
    dispatcher,
    expirySweeper,
    /** The jobs that deliver and announce; run by the API process when WEBHOOK_DISPATCH=inline and by `accolade worker`. */
    jobs: [dispatcher, expirySweeper],
  };
}

export type WebhookModule = ReturnType<typeof createWebhookModule>;
