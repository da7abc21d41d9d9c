import { type Kysely, sql } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Dialect } from '../../db/types.js';
import type { TranslationRow } from '../definitions/definition-translations.js';
import { withBackpack } from './backpack.tables.js';

/**
 * Issuers per step of the sign-in lookup. SQLite: 500 pairs, 1,000 bound values in an IN list.
 * PostgreSQL: the pairs travel as two array parameters whatever their number, so a step is sized
 * by memory instead (two round trips per 5,000 issuers, where 500 took twenty).
 */
export const LOOKUP_CHUNK: Record<Dialect, number> = { sqlite: 500, postgres: 5_000 };

export interface BadgeRow {
  credential_id: string;
  issuer_id: string;
  issuer_slug: string;
  issuer_name: string;
  definition_id: string;
  definition_name: string;
  definition_description: string;
  /** The language of the definition's own text. */
  definition_language: string;
  image_url: string | null;
  issued_on: string;
  expires_on: string | null;
  revoked_at: string | null;
  linked_at: string;
}

/**
 * The backpack's SQL. It reads across issuers on purpose: an earner's credentials are every
 * issuer's, found by each issuer's salted hash of the signed-in address (the issuers' `id` and
 * `recipient_salt`) and shown with their definition and issuer names. It writes only its own tables.
 */
export function createBackpackRepository(root: Kysely<DB>) {
  const db = withBackpack(root);
  return {
    findAccountByEmailHash: (emailHash: string) =>
      db.selectFrom('earner_accounts').selectAll().where('email_hash', '=', emailHash).executeTakeFirst(),

    /** The accounts of these address hashes (a batch's lookup; at most a chunk of hashes at a time). */
    accountsByEmailHashes: (emailHashes: string[]) =>
      db.selectFrom('earner_accounts').select(['id', 'email_hash']).where('email_hash', 'in', emailHashes).execute(),

    async anyAccount(): Promise<boolean> {
      return (await db.selectFrom('earner_accounts').select('id').limit(1).executeTakeFirst()) !== undefined;
    },

    findAccount: (id: string) => db.selectFrom('earner_accounts').selectAll().where('id', '=', id).executeTakeFirst(),

    async insertAccountIfNew(row: { id: string; email_hash: string; created_at: string; last_sign_in_at: string }) {
      await db
        .insertInto('earner_accounts')
        .values(row)
        .onConflict((oc) => oc.column('email_hash').doNothing())
        .execute();
    },

    async touchSignIn(id: string, at: string) {
      await db.updateTable('earner_accounts').set({ last_sign_in_at: at }).where('id', '=', id).execute();
    },

    async insertLink(row: { token_hash: string; email_hash: string; created_at: string; expires_at: string }) {
      await db
        .insertInto('earner_sign_in_links')
        .values({ ...row, used_at: null })
        .execute();
    },

    async linksSince(emailHash: string, since: string): Promise<number> {
      const row = await db
        .selectFrom('earner_sign_in_links')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('email_hash', '=', emailHash)
        .where('created_at', '>', since)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    /** Marks an unused, unexpired link used and returns it; a second use (or a race) gets nothing. */
    consumeLink: (tokenHash: string, now: string) =>
      db
        .updateTable('earner_sign_in_links')
        .set({ used_at: now })
        .where('token_hash', '=', tokenHash)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .returning(['email_hash'])
        .executeTakeFirst(),

    async deleteLinksBefore(before: string) {
      await db.deleteFrom('earner_sign_in_links').where('expires_at', '<', before).execute();
    },

    async insertSession(row: {
      token_hash: string;
      account_id: string;
      csrf_token: string;
      created_at: string;
      expires_at: string;
    }) {
      await db.insertInto('earner_sessions').values(row).execute();
    },

    findSession: (tokenHash: string, now: string) =>
      db
        .selectFrom('earner_sessions')
        .select(['account_id', 'csrf_token', 'token_hash'])
        .where('token_hash', '=', tokenHash)
        .where('expires_at', '>', now)
        .executeTakeFirst(),

    /** Expired sessions, expired sign-in links and import checks older than `attemptsBefore`: none is ever read again. */
    async pruneExpired(now: string, attemptsBefore: string) {
      await db.deleteFrom('earner_sessions').where('expires_at', '<=', now).execute();
      await db.deleteFrom('earner_sign_in_links').where('expires_at', '<=', now).execute();
      await db.deleteFrom('earner_import_attempts').where('attempted_at', '<=', attemptsBefore).execute();
    },

    async deleteSession(tokenHash: string) {
      await db.deleteFrom('earner_sessions').where('token_hash', '=', tokenHash).execute();
    },

    /** Issuers in id order after `afterId`: the sign-in lookup walks them a page at a time. */
    issuerSalts: (afterId: string, limit: number) =>
      db
        .selectFrom('issuers')
        .select(['id', 'recipient_salt'])
        .where('id', '>', afterId)
        .orderBy('id')
        .limit(limit)
        .execute(),

    /**
     * Credentials whose (issuer, recipient hash) is one of `pairs`, by the (issuer_id, recipient_hash)
     * index. PostgreSQL joins the pairs as two array parameters: a row-value IN list of 500 tuples
     * was planned anew at every statement (about 18 ms each, 368 ms a sign-in across 10,000
     * issuers); SQLite's IN list is compiled by the same code every time and stays.
     */
    async credentialsOf(dialect: Dialect, pairs: readonly { issuerId: string; hash: string }[]) {
      if (pairs.length === 0) return [];
      if (dialect === 'postgres') {
        const found = await sql<{ id: string; issuer_id: string }>`select c.id, c.issuer_id from credentials c
          join unnest(${pairs.map((p) => p.issuerId)}::text[], ${pairs.map((p) => p.hash)}::text[])
            as p(issuer_id, recipient_hash)
          on c.issuer_id = p.issuer_id and c.recipient_hash = p.recipient_hash`.execute(db);
        return found.rows;
      }
      return db
        .selectFrom('credentials')
        .select(['id', 'issuer_id'])
        .where((eb) =>
          eb(
            eb.refTuple('issuer_id', 'recipient_hash'),
            'in',
            pairs.map((p) => eb.tuple(p.issuerId, p.hash)),
          ),
        )
        .execute();
    },

    async linkCredentials(rows: { credential_id: string; account_id: string; issuer_id: string; linked_at: string }[]) {
      if (rows.length === 0) return 0;
      const result = await db
        .insertInto('earner_credentials')
        .values(rows)
        .onConflict((oc) => oc.column('credential_id').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0);
    },

    /** The account's credentials with their issuer and definition, newest first. */
    badges: (accountId: string): Promise<BadgeRow[]> =>
      db
        .selectFrom('earner_credentials as e')
        .innerJoin('credentials as c', 'c.id', 'e.credential_id')
        .innerJoin('definitions as d', 'd.id', 'c.definition_id')
        .innerJoin('issuers as i', 'i.id', 'c.issuer_id')
        .select([
          'c.id as credential_id',
          'c.issuer_id',
          'i.slug as issuer_slug',
          'i.name as issuer_name',
          'c.definition_id',
          'd.name as definition_name',
          'd.description as definition_description',
          'd.language as definition_language',
          'd.image_url',
          'c.issued_on',
          'c.expires_on',
          'c.revoked_at',
          'e.linked_at',
        ])
        .where('e.account_id', '=', accountId)
        .orderBy('c.issued_on', 'desc')
        .orderBy('c.id', 'desc')
        .execute(),

    /**
     * The translations of every definition the account holds a credential of, in one statement (the
     * page's badge names in its language, issue 45 §2), whatever the number of badges.
     */
    translations: (accountId: string): Promise<TranslationRow[]> =>
      db
        .selectFrom('definition_translations as t')
        .selectAll('t')
        .where('t.definition_id', 'in', (sub) =>
          sub
            .selectFrom('earner_credentials as e')
            .innerJoin('credentials as c', 'c.id', 'e.credential_id')
            .select('c.definition_id')
            .where('e.account_id', '=', accountId),
        )
        .execute(),

    /** Everything of the account: its sessions, links and the account itself (the issuers' records stay). */
    async deleteAccount(accountId: string, emailHash: string) {
      await db.deleteFrom('earner_credentials').where('account_id', '=', accountId).execute();
      await db.deleteFrom('earner_sessions').where('account_id', '=', accountId).execute();
      await db.deleteFrom('earner_sign_in_links').where('email_hash', '=', emailHash).execute();
      await db.deleteFrom('earner_accounts').where('id', '=', accountId).execute();
    },
  };
}

export type BackpackRepository = ReturnType<typeof createBackpackRepository>;
