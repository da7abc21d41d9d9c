import type { Kysely } from 'kysely';

/**
 * Console sessions (issue 48 §7):
 * - `csrf_token` now holds the SHA-256 of the session's CSRF token, never the token: the token is
 *   derived from the session token (accounts.service.ts), which only the cookie holds.
 * - `method` says how the session was opened (`password` or `sso`), so turning password sign-in
 *   off can end the password sessions and keep those opened through the issuer's provider.
 *
 * Existing sessions are ended: each holds its CSRF token in the clear, and a token that is not
 * derived from its session token would stop matching anyway. Console users sign in once more.
 */
export function consoleSessionHardeningMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.deleteFrom('console_sessions' as never).execute();
      await db.schema
        .alterTable('console_sessions')
        .addColumn('method', 'text', (c) => c.notNull().defaultTo('password'))
        .execute();
    },
  };
}
