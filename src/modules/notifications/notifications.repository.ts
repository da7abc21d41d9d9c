import type { Selectable } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { CredentialNotificationsTable, NotificationSettingsTable } from '../../db/schema.js';

export type NotificationSettingsRow = Selectable<NotificationSettingsTable>;
export type CredentialNotificationRow = Selectable<CredentialNotificationsTable>;
export type NotificationStatus = 'queued' | 'sent' | 'failed' | 'suppressed';

/** Notification state: settings per issuer, one status row per credential, the suppression list. */
export function createNotificationRepository(db: Executor) {
  return {
    async settings(issuerId: string): Promise<NotificationSettingsRow | undefined> {
      return db.selectFrom('notification_settings').selectAll().where('issuer_id', '=', issuerId).executeTakeFirst();
    },

    async saveSettings(row: NotificationSettingsRow): Promise<void> {
      const { issuer_id: _, ...changes } = row;
      await db
        .insertInto('notification_settings')
        .values(row)
        .onConflict((oc) => oc.column('issuer_id').doUpdateSet(changes))
        .execute();
    },

    async isSuppressed(issuerId: string, recipientHash: string): Promise<boolean> {
      const row = await db
        .selectFrom('notification_suppressions')
        .select('recipient_hash')
        .where('issuer_id', '=', issuerId)
        .where('recipient_hash', '=', recipientHash)
        .executeTakeFirst();
      return row !== undefined;
    },

    async suppress(issuerId: string, recipientHash: string, reason: string, at: string): Promise<void> {
      await db
        .insertInto('notification_suppressions')
        .values({ issuer_id: issuerId, recipient_hash: recipientHash, reason, created_at: at })
        .onConflict((oc) => oc.columns(['issuer_id', 'recipient_hash']).doNothing())
        .execute();
    },

    /** A credential notifies at most once: a second insert for the same credential is ignored. */
    async insertStatuses(rows: CredentialNotificationRow[]): Promise<void> {
      if (rows.length === 0) return;
      await db
        .insertInto('credential_notifications')
        .values(rows)
        .onConflict((oc) => oc.column('credential_id').doNothing())
        .execute();
    },

    async updateStatus(
      credentialId: string,
      change: { status: NotificationStatus; detail: string | null; attempts: number; updatedAt: string },
    ): Promise<void> {
      await db
        .updateTable('credential_notifications')
        .set({ status: change.status, detail: change.detail, attempts: change.attempts, updated_at: change.updatedAt })
        .where('credential_id', '=', credentialId)
        .execute();
    },

    async status(issuerId: string, credentialId: string): Promise<CredentialNotificationRow | undefined> {
      return db
        .selectFrom('credential_notifications')
        .selectAll()
        .where('issuer_id', '=', issuerId)
        .where('credential_id', '=', credentialId)
        .executeTakeFirst();
    },

    async byUnsubscribeToken(tokenHash: string): Promise<CredentialNotificationRow | undefined> {
      return db
        .selectFrom('credential_notifications')
        .selectAll()
        .where('unsubscribe_token_hash', '=', tokenHash)
        .executeTakeFirst();
    },
  };
}
