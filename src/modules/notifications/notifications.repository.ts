import type { InsertQueryBuilder, InsertResult, Selectable } from 'kysely';
import type { Dialect, Executor } from '../../db/database.js';
import { unnestRows, valuesStatements } from '../../db/dialect.js';
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

/**
 * SQLite: the row counts of the statements that write `total` rows, each 500 or a power of two
 * (a remainder of 37 is 32 + 4 + 1). The driver keeps up to 500 prepared texts, and a prepared
 * VALUES statement of this table holds about 0.9 KB per row in C memory: the sender's passes write
 * whatever count came due, and statements of every count from 1 to 500 would hold about 110 MB
 * (measured by preparing them). Ten texts hold about 0.9 MB.
 */
export function sqliteChunkSizes(total: number): number[] {
  const sizes: number[] = [];
  let left = total;
  while (left >= STATUS_ROWS_PER_STATEMENT) {
    sizes.push(STATUS_ROWS_PER_STATEMENT);
    left -= STATUS_ROWS_PER_STATEMENT;
  }
  for (let size = 256; size >= 1; size /= 2) {
    if (left >= size) {
      sizes.push(size);
      left -= size;
    }
  }
  return sizes;
}
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
/** SQLite: the VALUES statement, compiled once per batch size. */
const statusValues = valuesStatements<CredentialNotificationRow>(STATUS_COLUMNS, (executor, template) =>
  newestStatus(executor.insertInto('credential_notifications').values(template)),
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
     * a VALUES list whose text is compiled once per batch size.
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
      let start = 0;
      for (const size of sqliteChunkSizes(rows.length)) {
        await db.executeQuery(statusValues(db, rows.slice(start, start + size)));
        start += size;
      }
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
