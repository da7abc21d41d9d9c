import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../types.js';

/**
 * A console email is unique within an issuer, no longer across the service: an owner inviting an
 * address that another issuer already has gets the same answer as for a new address, so the invite
 * tells nothing about other issuers' staff (issue 37). Each issuer's account has its own password;
 * sign-in tries the accounts of the email. (issuer_id, email) replaces the index on issuer_id alone.
 * SQLite cannot drop a column's UNIQUE, so the table is rebuilt there with the same columns.
 */
export function consoleEmailPerIssuerMigration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect === 'postgres') {
        await sql`alter table console_users drop constraint console_users_email_key`.execute(db);
        await db.schema.dropIndex('console_users_issuer').execute();
      } else {
        await db.schema
          .createTable('console_users_new')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('issuer_id', 'text', (c) => c.notNull())
          .addColumn('email', 'text', (c) => c.notNull())
          .addColumn('role', 'text', (c) => c.notNull())
          .addColumn('password_hash', 'text')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .addColumn('last_sign_in_at', 'text')
          .execute();
        await sql`insert into console_users_new (id, issuer_id, email, role, password_hash, created_at, updated_at, last_sign_in_at)
          select id, issuer_id, email, role, password_hash, created_at, updated_at, last_sign_in_at from console_users`.execute(
          db,
        );
        await db.schema.dropTable('console_users').execute();
        await db.schema.alterTable('console_users_new').renameTo('console_users').execute();
      }
      await db.schema
        .createIndex('console_users_issuer_email')
        .unique()
        .on('console_users')
        .columns(['issuer_id', 'email'])
        .execute();
      await db.schema.createIndex('console_users_email').on('console_users').columns(['email']).execute();
    },
  };
}
