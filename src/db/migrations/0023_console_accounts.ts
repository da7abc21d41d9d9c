import type { Kysely } from 'kysely';

/**
 * Console accounts: an issuer's staff, their invites and their sessions. A staff email is account
 * data, kept here alone (never beside recipients, never hashed with an issuer's salt). Invite and
 * session tokens are stored as SHA-256 only: a copy of the database signs nobody in.
 */
export function consoleAccountsMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('console_users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('issuer_id', 'text', (c) => c.notNull())
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('password_hash', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('last_sign_in_at', 'text')
        .execute();
      await db.schema.createIndex('console_users_issuer').on('console_users').columns(['issuer_id']).execute();
      await db.schema
        .createTable('console_invites')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('used_at', 'text')
        .execute();
      await db.schema.createIndex('console_invites_user').on('console_invites').columns(['user_id']).execute();
      await db.schema
        .createTable('console_sessions')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('csrf_token', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('last_seen_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('console_sessions_user').on('console_sessions').columns(['user_id']).execute();
    },
  };
}
