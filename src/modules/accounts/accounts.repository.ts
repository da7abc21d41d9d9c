import type { Selectable } from 'kysely';
import type { Dialect, Executor } from '../../db/database.js';
import { forUpdate } from '../../db/dialect.js';
import type { ConsoleInvitesTable, ConsoleSessionsTable, ConsoleUsersTable } from '../../db/schema.js';

export type UserRow = Selectable<ConsoleUsersTable>;
export type InviteRow = Selectable<ConsoleInvitesTable>;
export type SessionRow = Selectable<ConsoleSessionsTable>;

/** A session with its user and the issuer and plan the user works for: one query per request. */
export interface SessionLookup {
  userId: string;
  role: string;
  csrfHash: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  issuerId: string;
  issuerSlug: string;
  planCode: string;
  requestsPerMinute: number;
}

/** Console users, invites and sessions. Issuer-owned reads take the issuer id first. */
export function createAccountRepository(db: Executor, dialect: Dialect) {
  return {
    async findUserByEmail(issuerId: string, email: string): Promise<UserRow | undefined> {
      return db
        .selectFrom('console_users')
        .selectAll()
        .where('issuer_id', '=', issuerId)
        .where('email', '=', email)
        .executeTakeFirst();
    },
    /** The accounts of one email that can sign in (one per issuer), the most recently used first. */
    async listActiveUsersByEmail(email: string, limit: number): Promise<UserRow[]> {
      return db
        .selectFrom('console_users')
        .selectAll()
        .where('email', '=', email)
        .where('password_hash', 'is not', null)
        .orderBy('last_sign_in_at', 'desc')
        .orderBy('id')
        .limit(limit)
        .execute();
    },
    /**
     * Locks the issuer's owners (PostgreSQL) for the surrounding transaction, so two changes that
     * each leave one owner take turns and the second sees the first's result.
     */
    async lockOwners(issuerId: string): Promise<void> {
      await forUpdate(
        dialect,
        db.selectFrom('console_users').select('id').where('issuer_id', '=', issuerId).where('role', '=', 'owner'),
      ).execute();
    },
    async getUser(issuerId: string, userId: string): Promise<UserRow | undefined> {
      return db
        .selectFrom('console_users')
        .selectAll()
        .where('issuer_id', '=', issuerId)
        .where('id', '=', userId)
        .executeTakeFirst();
    },
    async getUserById(userId: string): Promise<UserRow | undefined> {
      return db.selectFrom('console_users').selectAll().where('id', '=', userId).executeTakeFirst();
    },
    async listUsers(issuerId: string): Promise<UserRow[]> {
      return db
        .selectFrom('console_users')
        .selectAll()
        .where('issuer_id', '=', issuerId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
    },
    /** Owners who can sign in (invited owners who never accepted do not count). */
    async countActiveOwners(issuerId: string): Promise<number> {
      const row = await db
        .selectFrom('console_users')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('issuer_id', '=', issuerId)
        .where('role', '=', 'owner')
        .where((eb) => eb.or([eb('password_hash', 'is not', null), eb('last_sign_in_at', 'is not', null)]))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async insertUser(row: UserRow): Promise<void> {
      await db.insertInto('console_users').values(row).execute();
    },
    async setRole(issuerId: string, userId: string, role: string, at: string): Promise<void> {
      await db
        .updateTable('console_users')
        .set({ role, updated_at: at })
        .where('issuer_id', '=', issuerId)
        .where('id', '=', userId)
        .execute();
    },
    async setPassword(userId: string, passwordHash: string, at: string): Promise<void> {
      await db
        .updateTable('console_users')
        .set({ password_hash: passwordHash, updated_at: at })
        .where('id', '=', userId)
        .execute();
    },
    async recordSignIn(userId: string, at: string): Promise<void> {
      await db.updateTable('console_users').set({ last_sign_in_at: at }).where('id', '=', userId).execute();
    },
    async deleteUser(issuerId: string, userId: string): Promise<void> {
      await db.deleteFrom('console_invites').where('user_id', '=', userId).execute();
      await db.deleteFrom('console_sessions').where('user_id', '=', userId).execute();
      await db.deleteFrom('console_users').where('issuer_id', '=', issuerId).where('id', '=', userId).execute();
    },

    async insertInvite(row: InviteRow): Promise<void> {
      await db.insertInto('console_invites').values(row).execute();
    },
    /** An invite still open at `now`, with its user. */
    async findOpenInvite(tokenHash: string, now: string) {
      return db
        .selectFrom('console_invites as v')
        .innerJoin('console_users as u', 'u.id', 'v.user_id')
        .innerJoin('issuers as i', 'i.id', 'u.issuer_id')
        .select(['v.token_hash as tokenHash', 'v.expires_at as expiresAt', 'u.id as userId', 'i.name as issuerName'])
        .where('v.token_hash', '=', tokenHash)
        .where('v.used_at', 'is', null)
        .where('v.expires_at', '>', now)
        .executeTakeFirst();
    },
    /** Marks the invite used unless it already was; true when this call used it. */
    async useInvite(tokenHash: string, now: string): Promise<boolean> {
      const result = await db
        .updateTable('console_invites')
        .set({ used_at: now })
        .where('token_hash', '=', tokenHash)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async insertSession(row: SessionRow): Promise<void> {
      await db.insertInto('console_sessions').values(row).execute();
    },
    async findSession(tokenHash: string): Promise<SessionLookup | undefined> {
      return db
        .selectFrom('console_sessions as s')
        .innerJoin('console_users as u', 'u.id', 's.user_id')
        .innerJoin('issuers as i', 'i.id', 'u.issuer_id')
        .innerJoin('plans as p', 'p.code', 'i.plan_code')
        .select([
          'u.id as userId',
          'u.role as role',
          's.csrf_token as csrfHash',
          's.created_at as createdAt',
          's.last_seen_at as lastSeenAt',
          's.expires_at as expiresAt',
          'i.id as issuerId',
          'i.slug as issuerSlug',
          'i.plan_code as planCode',
          'p.requests_per_minute as requestsPerMinute',
        ])
        .where('s.token_hash', '=', tokenHash)
        .executeTakeFirst();
    },
    async touchSession(tokenHash: string, at: string): Promise<void> {
      await db.updateTable('console_sessions').set({ last_seen_at: at }).where('token_hash', '=', tokenHash).execute();
    },
    async deleteSession(tokenHash: string): Promise<void> {
      await db.deleteFrom('console_sessions').where('token_hash', '=', tokenHash).execute();
    },
    async deleteSessionsOf(userId: string): Promise<void> {
      await db.deleteFrom('console_sessions').where('user_id', '=', userId).execute();
    },
  };
}
