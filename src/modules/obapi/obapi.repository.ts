import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { withObApi } from './obapi.tables.js';

/** One entry of an earner's list: an issuer's credential linked to the account, or one a client upserted. */
export interface ListedCredential {
  source: 'issued' | 'upserted';
  key: string;
  issuerSlug: string | null;
  issuedAt: string;
}

/** The OB 3.0 API's SQL: the account's linked credentials (read across issuers) and its upserted ones. */
export function createObApiRepository(root: Kysely<DB>) {
  const db = withObApi(root);
  return {
    /** Every credential of the account issued after `since`, oldest first (issued time, then key). */
    async list(accountId: string, since: string | null): Promise<ListedCredential[]> {
      let issued = db
        .selectFrom('earner_credentials as e')
        .innerJoin('credentials as c', 'c.id', 'e.credential_id')
        .innerJoin('issuers as i', 'i.id', 'c.issuer_id')
        .select(['c.id', 'i.slug', 'c.issued_on'])
        .where('e.account_id', '=', accountId);
      let upserted = db
        .selectFrom('earner_api_credentials')
        .select(['credential_key', 'issued_at'])
        .where('account_id', '=', accountId);
      if (since !== null) {
        issued = issued.where('c.issued_on', '>', since);
        upserted = upserted.where('issued_at', '>', since);
      }
      const [a, b] = await Promise.all([issued.execute(), upserted.execute()]);
      const all: ListedCredential[] = [
        ...a.map((r) => ({ source: 'issued' as const, key: r.id, issuerSlug: r.slug, issuedAt: r.issued_on })),
        ...b.map((r) => ({
          source: 'upserted' as const,
          key: r.credential_key,
          issuerSlug: null,
          issuedAt: r.issued_at,
        })),
      ];
      return all.sort((x, y) =>
        x.issuedAt === y.issuedAt ? (x.key < y.key ? -1 : 1) : x.issuedAt < y.issuedAt ? -1 : 1,
      );
    },

    upsertedBodies: (accountId: string, keys: string[]) =>
      keys.length === 0
        ? Promise.resolve([])
        : db
            .selectFrom('earner_api_credentials')
            .select(['credential_key', 'format', 'body'])
            .where('account_id', '=', accountId)
            .where('credential_key', 'in', keys)
            .execute(),

    findUpserted: (accountId: string, key: string) =>
      db
        .selectFrom('earner_api_credentials')
        .select(['credential_key'])
        .where('account_id', '=', accountId)
        .where('credential_key', '=', key)
        .executeTakeFirst(),

    async saveUpserted(row: {
      account_id: string;
      credential_key: string;
      format: 'json' | 'jws';
      body: string;
      issued_at: string;
      created_at: string;
      updated_at: string;
      client_id: string;
    }) {
      // A replaced credential is a new one to the backpack: its last check no longer holds.
      const unchecked = { status: null, reason: null, checked_at: null };
      await db
        .insertInto('earner_api_credentials')
        .values({ ...row, ...unchecked })
        .onConflict((oc) =>
          oc.columns(['account_id', 'credential_key']).doUpdateSet({
            format: row.format,
            body: row.body,
            issued_at: row.issued_at,
            updated_at: row.updated_at,
            client_id: row.client_id,
            ...unchecked,
          }),
        )
        .execute();
    },

    /** Every credential apps upserted into the account, newest first, as the backpack lists them. */
    upserted: (accountId: string) =>
      db
        .selectFrom('earner_api_credentials')
        .select(['credential_key', 'format', 'body', 'client_id', 'status', 'reason', 'checked_at', 'updated_at'])
        .where('account_id', '=', accountId)
        .orderBy('updated_at', 'desc')
        .orderBy('credential_key')
        .execute(),

    upsertedBody: (accountId: string, key: string) =>
      db
        .selectFrom('earner_api_credentials')
        .select(['body', 'updated_at'])
        .where('account_id', '=', accountId)
        .where('credential_key', '=', key)
        .executeTakeFirst(),

    /** Keeps a check's outcome, unless the credential was replaced while it ran (`updated_at` moved). */
    async saveCheck(
      accountId: string,
      key: string,
      asOf: string,
      check: { status: string; reason: string | null; checked_at: string },
    ) {
      await db
        .updateTable('earner_api_credentials')
        .set(check)
        .where('account_id', '=', accountId)
        .where('credential_key', '=', key)
        .where('updated_at', '=', asOf)
        .execute();
    },

    profile: (accountId: string) =>
      db.selectFrom('earner_profiles').select('profile').where('account_id', '=', accountId).executeTakeFirst(),

    async saveProfile(accountId: string, profile: string, at: string) {
      await db
        .insertInto('earner_profiles')
        .values({ account_id: accountId, profile, updated_at: at })
        .onConflict((oc) => oc.column('account_id').doUpdateSet({ profile, updated_at: at }))
        .execute();
    },

    /** The account's live grants (oidc-provider `Grant` payloads): one per client it allowed. */
    grants: (accountId: string, now: string) =>
      db
        .selectFrom('oauth_payloads')
        .select(['id', 'payload'])
        .where('model', '=', 'Grant')
        .where('account_id', '=', accountId)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
        .orderBy('id')
        .execute(),

    /** The registered clients' metadata (oidc-provider `Client` payloads), by client id. */
    clients: (ids: string[]) =>
      ids.length === 0
        ? Promise.resolve([])
        : db
            .selectFrom('oauth_payloads')
            .select(['id', 'payload'])
            .where('model', '=', 'Client')
            .where('id', 'in', ids)
            .execute(),

    async deleteLoginSessions(accountId: string) {
      await db
        .deleteFrom('oauth_payloads')
        .where('model', '=', 'Session')
        .where('account_id', '=', accountId)
        .execute();
    },

    async deleteAccountData(accountId: string) {
      await db.deleteFrom('earner_api_credentials').where('account_id', '=', accountId).execute();
      await db.deleteFrom('earner_profiles').where('account_id', '=', accountId).execute();
      await db.deleteFrom('oauth_payloads').where('account_id', '=', accountId).execute();
    },
  };
}
