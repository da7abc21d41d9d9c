import type { Kysely } from 'kysely';

/**
 * "Resend the email" (issue 46): one row per resend asked for, with its outcome and the hash of its
 * own unsubscribe token (the first message's link keeps working). As with `credential_notifications`
 * the address is never stored. The rows also count a credential's resends for its daily limit.
 */
export function notificationResendsMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('credential_resends')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('credential_id', 'text', (c) => c.notNull())
        .addColumn('recipient_hash', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('detail', 'text')
        .addColumn('unsubscribe_token_hash', 'text', (c) => c.unique())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('credential_resends_by_credential')
        .on('credential_resends')
        .columns(['issuer_id', 'credential_id', 'created_at'])
        .execute();
    },
  };
}
