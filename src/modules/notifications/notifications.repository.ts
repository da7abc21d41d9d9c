import type { InsertQueryBuilder, InsertResult, Selectable } from 'kysely';
import type { Dialect, Executor } from '../../db/database.js';
import { executeAll, unnestRows, valuesStatements } from '../../db/dialect.js';
import type {
  CredentialNotificationsTable,
  CredentialRemindersTable,
  CredentialResendsTable,
  DB,
  NotificationSettingsTable,
} from '../../db/schema.js';

export type NotificationSettingsRow = Selectable<NotificationSettingsTable>;
export type CredentialNotificationRow = Selectable<CredentialNotificationsTable>;
export type CredentialReminderRow = Selectable<CredentialRemindersTable>;
export type CredentialResendRow = Selectable<CredentialResendsTable>;

/** What a resend needs of its credential: nothing that leads back to a person but the hash. */
export interface ResendTarget {
  id: string;
  issuer_id: string;
  definition_id: string;
  issued_on: string;
  expires_on: string | null;
  recipient_hash: string;
  revoked_at: string | null;
  language: string | null;
  created_at: string;
  display_name: string | null;
  /** The credential it replaced (a renewal, reissue or name correction), if any. */
  reissued_from: string | null;
  original_name: string | null;
  original_expires_on: string | null;
  original_revoked_reason: string | null;
  /** The status of its expiry reminder, when one was claimed. */
  reminder_status: string | null;
}
export type NotificationStatus = 'queued' | 'sent' | 'failed' | 'suppressed';

/** A credential due an expiry reminder. */
export interface DueReminder {
  id: string;
  definition_id: string;
  issued_on: string;
  expires_on: string;
  recipient_hash: string;
  /** The credential's language and making, for the reminder's language and badge text (issue 45 §2). */
  language: string | null;
  created_at: string;
}

/**
 * The issuer's live credentials expiring after `now` and by `until` that were never reminded nor
 * replaced by a newer credential (a renewal or reissue names them in `reissued_from`).
 */
const dueQuery = (db: Executor, issuerId: string, now: string, until: string) =>
  db
    .selectFrom('credentials as c')
    .leftJoin('credential_reminders as r', 'r.credential_id', 'c.id')
    .where('c.issuer_id', '=', issuerId)
    .where('c.revoked_at', 'is', null)
    .where('c.expires_on', '>', now)
    .where('c.expires_on', '<=', until)
    .where('r.credential_id', 'is', null)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('credentials as n')
            .select('n.id')
            .where('n.issuer_id', '=', issuerId)
            .whereRef('n.reissued_from', '=', 'c.id'),
        ),
      ),
    );

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

/** A reminder claim: a credential's reminder row, for the issuer named by the call. */
export type ReminderClaim = Omit<CredentialReminderRow, 'issuer_id'>;

const CLAIM_COLUMNS = [
  'credential_id',
  'issuer_id',
  'recipient_hash',
  'status',
  'detail',
  'unsubscribe_token_hash',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof CredentialReminderRow)[];
const CLAIM_ROWS_PER_STATEMENT = 200;

/** A reminder row is inserted once: the insert is the claim, and answers the ids it inserted. */
const claimOnce = (insert: InsertQueryBuilder<DB, 'credential_reminders', InsertResult>) =>
  insert.onConflict((oc) => oc.column('credential_id').doNothing()).returning('credential_id');
/** SQLite: VALUES statements of 200 rows or a power of two (`sqliteChunkSizes`). */
const claimValues = valuesStatements<CredentialReminderRow>(
  CLAIM_COLUMNS,
  CLAIM_ROWS_PER_STATEMENT,
  (executor, template) => claimOnce(executor.insertInto('credential_reminders').values(template)),
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

    /** Which of these recipient hashes are on the issuer's suppression list, 500 a statement. */
    async suppressedAmong(issuerId: string, recipientHashes: readonly string[]): Promise<Set<string>> {
      const found = new Set<string>();
      const unique = [...new Set(recipientHashes)];
      for (let start = 0; start < unique.length; start += STATUS_ROWS_PER_STATEMENT) {
        const rows = await db
          .selectFrom('notification_suppressions')
          .select('recipient_hash')
          .where('issuer_id', '=', issuerId)
          .where('recipient_hash', 'in', unique.slice(start, start + STATUS_ROWS_PER_STATEMENT))
          .execute();
        for (const row of rows) found.add(row.recipient_hash);
      }
      return found;
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

    /**
     * What became of each message about `credentialIds` (awards and reminders, no address) and the
     * recipient's suppression, if any: a subject access request's notification history.
     */
    async historyOf(issuerId: string, recipientHash: string, credentialIds: readonly string[]) {
      const awards: CredentialNotificationRow[] = [];
      const reminders: CredentialReminderRow[] = [];
      const resends: CredentialResendRow[] = [];
      for (let start = 0; start < credentialIds.length; start += STATUS_ROWS_PER_STATEMENT) {
        const ids = credentialIds.slice(start, start + STATUS_ROWS_PER_STATEMENT);
        awards.push(
          ...(await db
            .selectFrom('credential_notifications')
            .selectAll()
            .where('issuer_id', '=', issuerId)
            .where('credential_id', 'in', ids)
            .execute()),
        );
        reminders.push(
          ...(await db
            .selectFrom('credential_reminders')
            .selectAll()
            .where('issuer_id', '=', issuerId)
            .where('credential_id', 'in', ids)
            .execute()),
        );
        resends.push(
          ...(await db
            .selectFrom('credential_resends')
            .selectAll()
            .where('issuer_id', '=', issuerId)
            .where('credential_id', 'in', ids)
            .execute()),
        );
      }
      const suppression = await db
        .selectFrom('notification_suppressions')
        .select(['reason', 'created_at'])
        .where('issuer_id', '=', issuerId)
        .where('recipient_hash', '=', recipientHash)
        .executeTakeFirst();
      return { awards, reminders, resends, suppression };
    },

    /** The issuer and recipient an unsubscribe token was made for: an award's, a reminder's or a resend's. */
    /** The message a token was sent in: its issuer, recipient, and the credential's language. */
    async byUnsubscribeToken(
      tokenHash: string,
    ): Promise<{ issuer_id: string; recipient_hash: string; language: string | null } | undefined> {
      for (const table of ['credential_notifications', 'credential_reminders', 'credential_resends'] as const) {
        const found = await db
          .selectFrom(table)
          .select(['issuer_id', 'recipient_hash', 'credential_id'])
          .where('unsubscribe_token_hash', '=', tokenHash)
          .executeTakeFirst();
        if (!found) continue;
        const credential = await db
          .selectFrom('credentials')
          .select('language')
          .where('issuer_id', '=', found.issuer_id)
          .where('id', '=', found.credential_id)
          .executeTakeFirst();
        return {
          issuer_id: found.issuer_id,
          recipient_hash: found.recipient_hash,
          language: credential?.language ?? null,
        };
      }
      return undefined;
    },

    /** The issuer's credential a resend is for, or undefined (another issuer's is unknown here). */
    async resendTarget(issuerId: string, credentialId: string): Promise<ResendTarget | undefined> {
      return db
        .selectFrom('credentials as c')
        .leftJoin('credentials as o', (join) =>
          join.onRef('o.id', '=', 'c.reissued_from').onRef('o.issuer_id', '=', 'c.issuer_id'),
        )
        .leftJoin('credential_reminders as r', 'r.credential_id', 'c.id')
        .select([
          'c.id',
          'c.issuer_id',
          'c.definition_id',
          'c.issued_on',
          'c.expires_on',
          'c.recipient_hash',
          'c.revoked_at',
          'c.language',
          'c.created_at',
          'c.display_name',
          'c.reissued_from',
          'o.display_name as original_name',
          'o.expires_on as original_expires_on',
          'o.revoked_reason as original_revoked_reason',
          'r.status as reminder_status',
        ])
        .where('c.issuer_id', '=', issuerId)
        .where('c.id', '=', credentialId)
        .executeTakeFirst();
    },

    /** The credential's resends since `since`, for its daily limit. */
    async resendsSince(issuerId: string, credentialId: string, since: string): Promise<number> {
      const row = await db
        .selectFrom('credential_resends')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('issuer_id', '=', issuerId)
        .where('credential_id', '=', credentialId)
        .where('created_at', '>', since)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    async insertResend(row: CredentialResendRow): Promise<void> {
      await db.insertInto('credential_resends').values(row).execute();
    },

    async saveResend(id: string, status: NotificationStatus, detail: string | null, at: string): Promise<void> {
      await db.updateTable('credential_resends').set({ status, detail, updated_at: at }).where('id', '=', id).execute();
    },

    /** The credential's newest resend, for its detail. */
    async latestResend(issuerId: string, credentialId: string): Promise<CredentialResendRow | undefined> {
      return db
        .selectFrom('credential_resends')
        .selectAll()
        .where('issuer_id', '=', issuerId)
        .where('credential_id', '=', credentialId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
    },

    /**
     * The issuer's credentials of these recipients that are due a reminder: not revoked, expiring
     * after `now` and by `until`, and never reminded.
     */
    async dueReminders(
      issuerId: string,
      recipientHashes: readonly string[],
      now: string,
      until: string,
    ): Promise<DueReminder[]> {
      const due: DueReminder[] = [];
      const unique = [...new Set(recipientHashes)];
      for (let start = 0; start < unique.length; start += STATUS_ROWS_PER_STATEMENT) {
        const rows = await dueQuery(db, issuerId, now, until)
          .where('c.recipient_hash', 'in', unique.slice(start, start + STATUS_ROWS_PER_STATEMENT))
          .select([
            'c.id',
            'c.definition_id',
            'c.issued_on',
            'c.expires_on',
            'c.recipient_hash',
            'c.language',
            'c.created_at',
          ])
          .orderBy('c.expires_on')
          .execute();
        for (const row of rows) due.push({ ...row, expires_on: row.expires_on as string });
      }
      return due;
    },

    /** How many of the issuer's credentials are due a reminder now (the console shows it). */
    async dueReminderCount(issuerId: string, now: string, until: string): Promise<number> {
      const row = await dueQuery(db, issuerId, now, until)
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    /**
     * Claims reminders for the issuer's credentials: inserts each credential's row unless one exists,
     * and answers the ids it inserted. The insert is the claim, atomic on both engines: of two callers
     * racing for a credential (two replicas asked at once), exactly one gets its id back and sends.
     * Up to 200 rows a statement (SQLite runs each statement synchronously), in credential id order
     * so that PostgreSQL callers racing for the same rows take their locks in one order.
     */
    async claimReminders(issuerId: string, dialect: Dialect, rows: readonly ReminderClaim[]): Promise<Set<string>> {
      const claims = rows
        .map((row) => ({ ...row, issuer_id: issuerId }))
        .sort((a, b) => (a.credential_id < b.credential_id ? -1 : a.credential_id > b.credential_id ? 1 : 0));
      const claimed = new Set<string>();
      if (dialect === 'postgres') {
        for (let start = 0; start < claims.length; start += CLAIM_ROWS_PER_STATEMENT) {
          const inserted = await claimOnce(
            db
              .insertInto('credential_reminders')
              .columns(CLAIM_COLUMNS)
              .expression(unnestRows(claims.slice(start, start + CLAIM_ROWS_PER_STATEMENT), CLAIM_COLUMNS)),
          ).execute();
          for (const row of inserted) claimed.add(row.credential_id);
        }
        return claimed;
      }
      for (const row of await executeAll<{ credential_id: string }>(db, claimValues(db, claims))) {
        claimed.add(row.credential_id);
      }
      return claimed;
    },

    async saveReminder(
      issuerId: string,
      credentialId: string,
      status: NotificationStatus,
      detail: string | null,
      at: string,
    ): Promise<void> {
      await db
        .updateTable('credential_reminders')
        .set({ status, detail, updated_at: at })
        .where('issuer_id', '=', issuerId)
        .where('credential_id', '=', credentialId)
        .execute();
    },
  };
}
