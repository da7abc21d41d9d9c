import type { Dialect, Executor } from '../../db/database.js';
import { forUpdateSkipLocked } from '../../db/dialect.js';
import type { CredentialEventRow } from './webhooks.events.js';

export type ExpiringCredential = CredentialEventRow & { issuer_id: string };

/**
 * The expiry sweeper's reads and writes on credentials. It only ever touches expiry_announced_at,
 * the column that exists for it; everything else about credentials belongs to that module.
 */
export function createExpiryRepository(db: Executor, dialect: Dialect) {
  return {
    /**
     * Inside a transaction: locks up to `limit` credentials that expired by `now`, are not revoked and
     * were never announced, and marks them announced. Concurrent sweepers on PostgreSQL skip each
     * other's rows, so each credential is announced by exactly one of them.
     */
    async claimExpired(now: string, limit: number): Promise<ExpiringCredential[]> {
      const locked = await forUpdateSkipLocked(
        dialect,
        db
          .selectFrom('credentials')
          .select('id')
          .where('expires_on', '<=', now)
          .where('revoked_at', 'is', null)
          .where('expiry_announced_at', 'is', null)
          .orderBy('expires_on')
          .limit(limit),
      ).execute();
      if (locked.length === 0) return [];
      const ids = locked.map((r) => r.id);
      await db.updateTable('credentials').set({ expiry_announced_at: now }).where('id', 'in', ids).execute();
      return db
        .selectFrom('credentials as c')
        .innerJoin('issuers as i', 'i.id', 'c.issuer_id')
        .innerJoin('definitions as d', 'd.id', 'c.definition_id')
        .select([
          'c.id',
          'c.issuer_id',
          'c.definition_id',
          'c.issued_on',
          'c.expires_on',
          'c.revoked_at',
          'c.revoked_reason',
          'c.source',
          'c.reissued_from',
          'i.slug as issuer_slug',
          'd.slug as definition_slug',
        ])
        .where('c.id', 'in', ids)
        .orderBy('c.expires_on')
        .execute();
    },
  };
}
