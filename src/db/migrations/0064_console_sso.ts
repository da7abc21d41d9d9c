import type { Kysely } from 'kysely';

/**
 * An issuer's OpenID Connect provider for console sign-in (issue 39 §8): one per issuer. The client
 * secret is sealed under the key-encryption key of the signing keys; `allowed_domain` (lower case,
 * or null) lets every verified address of that domain in as a viewer; `password_sign_in` 0 turns
 * password sign-in off for the issuer's users.
 */
export function consoleSsoMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('console_sso')
        .addColumn('issuer_id', 'text', (c) => c.primaryKey())
        .addColumn('provider_name', 'text', (c) => c.notNull())
        .addColumn('issuer_url', 'text', (c) => c.notNull())
        .addColumn('client_id', 'text', (c) => c.notNull())
        .addColumn('client_secret_sealed', 'text', (c) => c.notNull())
        .addColumn('allowed_domain', 'text')
        .addColumn('password_sign_in', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
    },
  };
}
