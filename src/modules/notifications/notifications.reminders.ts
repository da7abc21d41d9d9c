import { isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import type { Job } from '../../core/job.js';
import type { AuditService } from '../audit/audit.service.js';
import type { Mailer, MailMessage } from './notifications.mailer.js';
import { createNotificationRepository, type NotificationStatus } from './notifications.repository.js';

/** One claimed reminder. The address exists only here, in this process's memory, until it is sent. */
export interface PendingReminder {
  issuerId: string;
  credentialId: string;
  definitionId: string;
  issuedOn: string;
  expiresOn: string;
  recipientHash: string;
  email: string;
  unsubscribeToken: string;
  /** The credential's language (BCP 47) when it has one, and when it was made (its badge text's version). */
  language: string | null;
  createdAt: string;
}

/** Sends under way at once (the mailer pools four SMTP connections). */
const MAX_IN_FLIGHT = 4;

/**
 * Sends claimed expiry reminders behind the call that supplied their addresses, a few at a time, one
 * attempt each (the claim is final: a reminder is never sent twice, so a failure is recorded, not
 * retried from another replica). A reminder sent is audited as `notifications.reminder_sent` by
 * `system`; a reminder still queued at shutdown is recorded `failed` (`not_sent_before_shutdown`).
 */
export function createReminderSender(
  core: Pick<Core, 'db' | 'clock' | 'log'>,
  deps: {
    mailer: Mailer;
    audit: Pick<AuditService, 'append'>;
    compose: (reminder: PendingReminder) => Promise<MailMessage | null>;
  },
): Job & { enqueue(reminders: PendingReminder[]): void; drain(): Promise<void> } {
  const queue: PendingReminder[] = [];
  const inFlight = new Set<Promise<void>>();

  async function record(reminder: PendingReminder, status: NotificationStatus, detail: string | null) {
    await core.db.transaction().execute(async (trx) => {
      await createNotificationRepository(trx).saveReminder(
        reminder.issuerId,
        reminder.credentialId,
        status,
        detail,
        isoNow(core.clock),
      );
      if (status !== 'sent') return;
      await deps.audit.append(trx, {
        issuerId: reminder.issuerId,
        actor: 'system',
        action: 'notifications.reminder_sent',
        targetType: 'credential',
        targetId: reminder.credentialId,
      });
    });
  }

  async function send(reminder: PendingReminder): Promise<void> {
    if (await createNotificationRepository(core.db).isSuppressed(reminder.issuerId, reminder.recipientHash)) {
      await record(reminder, 'suppressed', 'unsubscribed');
      return;
    }
    const message = await deps.compose(reminder);
    if (!message) {
      await record(reminder, 'failed', 'credential_unavailable');
      return;
    }
    const result = await deps.mailer.send(message);
    await record(reminder, result.ok ? 'sent' : 'failed', result.ok ? null : result.detail);
  }

  function pump() {
    while (inFlight.size < MAX_IN_FLIGHT && queue.length > 0) {
      const reminder = queue.shift() as PendingReminder;
      const task = send(reminder)
        .catch((error: unknown) => {
          // Database or template trouble; the address is only ever handed to the mailer.
          core.log.error({ err: error, credentialId: reminder.credentialId }, 'reminder send failed');
          return record(reminder, 'failed', 'internal_error').catch(() => undefined);
        })
        .finally(() => {
          inFlight.delete(task);
          pump();
        });
      inFlight.add(task);
    }
  }

  async function settle() {
    while (inFlight.size > 0) await Promise.all(inFlight);
  }

  return {
    name: 'notification-reminders',
    enqueue(reminders) {
      queue.push(...reminders);
      pump();
    },
    drain: settle,
    start() {},
    async stop() {
      const left = queue.splice(0);
      await settle();
      for (const reminder of left) await record(reminder, 'failed', 'not_sent_before_shutdown');
    },
  };
}
