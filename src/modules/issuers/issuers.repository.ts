import type { CompiledQuery, Selectable } from 'kysely';
import { boundText } from '../../db/bound-text.js';
import type { Executor } from '../../db/database.js';
import { prepared } from '../../db/dialect.js';
import type { ApiKeysTable, IssuersTable, PlansTable } from '../../db/schema.js';

export type IssuerRow = Selectable<IssuersTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type PlanRow = Selectable<PlansTable>;

export interface KeyLookup {
  /** The key's hash, which the lookup is by. */
  id: string;
  keyId: string;
  revokedAt: string | null;
  issuerId: string;
  issuerSlug: string;
  planCode: string;
  requestsPerMinute: number;
}

/**
 * The API key lookup, which every request with a key makes unless the key cache answers it
 * (src/db/read-cache.ts): compiled once, and prepared once per PostgreSQL connection, which took the
 * database's CPU for it from about 100 to 20 µs (docs/decisions.md).
 */
function keyLookup(db: Executor): CompiledQuery<KeyLookup> {
  return prepared(
    db
      .selectFrom('api_keys as k')
      .innerJoin('issuers as i', 'i.id', 'k.issuer_id')
      .innerJoin('plans as p', 'p.code', 'i.plan_code')
      .select([
        'k.key_hash as id',
        'k.id as keyId',
        'k.revoked_at as revokedAt',
        'i.id as issuerId',
        'i.slug as issuerSlug',
        'i.plan_code as planCode',
        'p.requests_per_minute as requestsPerMinute',
      ])
      // `boundText`: a bare parameter makes SQLite plan this join at every lookup.
      .where('k.key_hash', '=', boundText(''))
      .compile(),
  );
}

export function createIssuerRepository(db: Executor) {
  let byKeyHash: CompiledQuery<KeyLookup> | undefined;
  return {
    async findByKeyHash(keyHash: string): Promise<KeyLookup | undefined> {
      byKeyHash ??= keyLookup(db);
      const { rows } = await db.executeQuery<KeyLookup>({ ...byKeyHash, parameters: [keyHash] });
      return rows[0];
    },
    async getById(issuerId: string): Promise<IssuerRow | undefined> {
      return db.selectFrom('issuers').selectAll().where('id', '=', issuerId).executeTakeFirst();
    },
    async getBySlug(slug: string): Promise<IssuerRow | undefined> {
      return db.selectFrom('issuers').selectAll().where('slug', '=', slug).executeTakeFirst();
    },
    async list(): Promise<IssuerRow[]> {
      return db.selectFrom('issuers').selectAll().orderBy('created_at').execute();
    },
    async count(): Promise<number> {
      const row = await db
        .selectFrom('issuers')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async insert(row: IssuerRow): Promise<void> {
      await db.insertInto('issuers').values(row).execute();
    },
    async updateProfile(issuerId: string, changes: Partial<Omit<IssuerRow, 'id' | 'slug'>>): Promise<number> {
      const result = await db.updateTable('issuers').set(changes).where('id', '=', issuerId).executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
    /**
     * What keeps the issuer's slug from changing: a credential it issued, or an endorsement it gave
     * (hosted under its slug, or signed as its did:web); null when nothing carries the slug yet.
     */
    async slugLock(issuerId: string): Promise<'credentials' | 'endorsements' | null> {
      const credential = await db
        .selectFrom('credentials')
        .select('id')
        .where('issuer_id', '=', issuerId)
        .limit(1)
        .executeTakeFirst();
      if (credential) return 'credentials';
      const hosted = await db
        .selectFrom('endorsements')
        .select('id')
        .where('issuer_id', '=', issuerId)
        .limit(1)
        .executeTakeFirst();
      const signed = await db
        .selectFrom('endorsement_credentials')
        .select('id')
        .where('endorser_issuer_id', '=', issuerId)
        .limit(1)
        .executeTakeFirst();
      return hosted || signed ? 'endorsements' : null;
    },
    async setSlug(issuerId: string, slug: string): Promise<void> {
      await db.updateTable('issuers').set({ slug }).where('id', '=', issuerId).execute();
    },
    async setPlan(issuerId: string, planCode: string, at: string): Promise<void> {
      await db.updateTable('issuers').set({ plan_code: planCode, updated_at: at }).where('id', '=', issuerId).execute();
    },
    async insertKey(row: ApiKeyRow): Promise<void> {
      await db.insertInto('api_keys').values(row).execute();
    },
    async listKeys(issuerId: string): Promise<ApiKeyRow[]> {
      return db.selectFrom('api_keys').selectAll().where('issuer_id', '=', issuerId).orderBy('created_at').execute();
    },
    /** Ends one key now, unless it already stops earlier; returns the id of the key ended. */
    async revokeKey(issuerId: string, keyIdOrPrefix: string, at: string): Promise<string[]> {
      const rows = await db
        .updateTable('api_keys')
        .set({ revoked_at: at })
        .where('issuer_id', '=', issuerId)
        .where((eb) => eb.or([eb('id', '=', keyIdOrPrefix), eb('prefix', '=', keyIdOrPrefix)]))
        .where((eb) => eb.or([eb('revoked_at', 'is', null), eb('revoked_at', '>', at)]))
        .returning('id')
        .execute();
      return rows.map((row) => row.id);
    },
    /** Sets one key's stop time (a rotation's end of grace). */
    async endKeyBy(issuerId: string, keyId: string, at: string): Promise<void> {
      await db
        .updateTable('api_keys')
        .set({ revoked_at: at })
        .where('issuer_id', '=', issuerId)
        .where('id', '=', keyId)
        .execute();
    },
    /**
     * Makes every key of the issuer stop at `at` at the latest: keys without a stop time and keys
     * whose grace period runs past `at` are moved to `at`; keys stopping sooner keep their time.
     */
    async endKeysBy(issuerId: string, at: string): Promise<{ id: string; revoked_at: string }[]> {
      const rows = await db
        .updateTable('api_keys')
        .set({ revoked_at: at })
        .where('issuer_id', '=', issuerId)
        .where((eb) => eb.or([eb('revoked_at', 'is', null), eb('revoked_at', '>', at)]))
        .returning(['id', 'revoked_at'])
        .execute();
      return rows.map((row) => ({ id: row.id, revoked_at: row.revoked_at ?? at }));
    },
    /** Ids of the issuers on a plan: the tenants a plan change reaches. */
    async issuerIdsOnPlan(planCode: string): Promise<string[]> {
      const rows = await db
        .selectFrom('issuers')
        .select('id')
        .where('plan_code', '=', planCode)
        .orderBy('id')
        .execute();
      return rows.map((row) => row.id);
    },
    async planOfIssuer(issuerId: string): Promise<PlanRow | undefined> {
      return db
        .selectFrom('plans as p')
        .innerJoin('issuers as i', 'i.plan_code', 'p.code')
        .selectAll('p')
        .where('i.id', '=', issuerId)
        .executeTakeFirst();
    },
    async getPlan(code: string): Promise<PlanRow | undefined> {
      return db.selectFrom('plans').selectAll().where('code', '=', code).executeTakeFirst();
    },
    async listPlans(): Promise<PlanRow[]> {
      return db.selectFrom('plans').selectAll().orderBy('requests_per_minute').execute();
    },
    async updatePlan(code: string, changes: Partial<Omit<PlanRow, 'code'>>): Promise<number> {
      const result = await db.updateTable('plans').set(changes).where('code', '=', code).executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
  };
}

export type IssuerRepository = ReturnType<typeof createIssuerRepository>;
