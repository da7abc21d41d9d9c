import type { InsertQueryBuilder, InsertResult, Selectable } from 'kysely';
import type { Dialect, Executor } from '../../db/database.js';
import { executeAll, unnestRows, valuesStatements } from '../../db/dialect.js';
import type { CredentialNotificationsTable, DB, NotificationSettingsTable } from '../../db/schema.js';

export type NotificationSettingsRow = Selectable<NotificationSettingsTable>;
export type CredentialNotificationRow = Selectable<CredentialNotificationsTable>;
export type NotificationStatus = 'queued' | 'sent' | 'failed' | 'suppressed';

const STATUS_COLUMNS = [
  'credential_id',
  'issuer_id',
  'recipient_hash',
  'status',
  'detail',
  'attempts',
  'unsubscribe_token_hash',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof CredentialNotificationRow)[];
const STATUS_ROWS_PER_STATEMENT = 500;

/** A credential's row is inserted once; later statuses replace its outcome fields. */
const newestStatus = (insert: InsertQueryBuilder<DB, 'credential_notifications', InsertResult>) =>
  insert.onConflict((oc) =>
    oc.column('credential_id').doUpdateSet((eb) => ({
      status: eb.ref('excluded.status'),
      detail: eb.ref('excluded.detail'),
      attempts: eb.ref('excluded.attempts'),
      updated_at: eb.ref('excluded.updated_at'),
    })),
  );
/** SQLite: VALUES statements of 500 rows or a power of two (`sqliteChunkSizes`). */
const statusValues = valuesStatements<CredentialNotificationRow>(
  STATUS_COLUMNS,
  STATUS_ROWS_PER_STATEMENT,
  (executor, template) => newestStatus(executor.insertInto('credential_notifications').values(template)),
);

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

    /**
     * Records statuses, up to 500 rows a statement: a new credential's row, or the latest status of one
     * already recorded (one row per credential). PostgreSQL takes the rows as column arrays, SQLite
     * VALUES lists of 500 rows or a power of two.
     */
    async saveStatuses(dialect: Dialect, rows: readonly CredentialNotificationRow[]): Promise<void> {
      if (dialect === 'postgres') {
        for (let start = 0; start < rows.length; start += STATUS_ROWS_PER_STATEMENT) {
          const batch = rows.slice(start, start + STATUS_ROWS_PER_STATEMENT);
          await newestStatus(
            db
              .insertInto('credential_notifications')
              .columns(STATUS_COLUMNS)
              .expression(unnestRows(batch, STATUS_COLUMNS, { attempts: 'int4' })),
          ).execute();
        }
        return;
      }
      await executeAll(db, statusValues(db, rows));
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
