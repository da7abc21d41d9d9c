import { addDays } from '../../core/clock.js';
import type { Dialect, Executor } from '../../db/database.js';
import { forUpdateSkipLocked } from '../../db/dialect.js';
import type { CredentialEventRow, ReminderDueEventRow } from './webhooks.events.js';

export type ExpiringCredential = CredentialEventRow & { issuer_id: string };
export type ReminderDueCredential = ReminderDueEventRow & { issuer_id: string };
/** Where a pass over one lead time got to: the last candidate's expiry and id, in candidate order. */
export type ReminderCursor = { expiresOn: string; id: string };

/** The credentials named, with the slugs and completion key their events are made of. */
const eventRows = (db: Executor, ids: string[]) =>
  db
    .selectFrom('credentials as c')
    .innerJoin('issuers as i', 'i.id', 'c.issuer_id')
    .innerJoin('definitions as d', 'd.id', 'c.definition_id')
    .select([
      'c.id',
      'c.issuer_id',
      'c.definition_id',
      'c.completion_key',
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
    .orderBy('c.id');

/**
 * The expiry sweeper's reads and writes. On credentials it only ever touches expiry_announced_at,
 * the column that exists for it; everything else about credentials belongs to that module. It reads
 * the issuers' reminder switch and lead time from notification_settings (owned by notifications) and
 * writes credential_reminder_announcements, the table that exists for it.
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
      return eventRows(db, ids).execute();
    },

    /** The reminder lead times (days) in use by issuers that have expiry reminders on. */
    async reminderLeadTimes(): Promise<number[]> {
      const rows = await db
        .selectFrom('notification_settings')
        .select('expiry_reminder_days')
        .distinct()
        .where('expiry_reminders', '=', 1)
        .orderBy('expiry_reminder_days')
        .execute();
      return rows.map((r) => r.expiry_reminder_days);
    },

    /**
     * Inside a transaction: of the issuers with reminders on and a lead time of `days`, up to `limit`
     * credentials that are live (not revoked, not replaced by a newer credential), expire after `now`
     * and within `days` of it, and were never announced; each is claimed by inserting its
     * announcement row. The insert is the claim on both engines (of two sweepers racing for a
     * credential exactly one inserts its row); on PostgreSQL the candidates are also locked with SKIP
     * LOCKED, so concurrent sweepers mostly take different credentials instead of waiting on each
     * other. Candidates come in (expires_on, id) order, after `after`: a pass goes on from the last
     * candidate of its previous batch instead of reading the credentials announced already again.
     * Answers how many candidates it looked at, the last of them, and the credentials it claimed.
     */
    async claimReminderDue(
      days: number,
      now: string,
      limit: number,
      after: ReminderCursor | null,
    ): Promise<{ scanned: number; last: ReminderCursor | null; claimed: ReminderDueCredential[] }> {
      const candidates = await forUpdateSkipLocked(
        dialect,
        db
          .selectFrom('credentials as c')
          .select(['c.id', 'c.issuer_id', 'c.expires_on'])
          .where('c.issuer_id', 'in', (eb) =>
            eb
              .selectFrom('notification_settings')
              .select('issuer_id')
              .where('expiry_reminders', '=', 1)
              .where('expiry_reminder_days', '=', days),
          )
          .where('c.revoked_at', 'is', null)
          .where('c.expires_on', '>', now)
          .where('c.expires_on', '<=', addDays(now, days))
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('credential_reminder_announcements as a')
                  .select('a.credential_id')
                  .whereRef('a.credential_id', '=', 'c.id'),
              ),
            ),
          )
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('credentials as n')
                  .select('n.id')
                  .whereRef('n.issuer_id', '=', 'c.issuer_id')
                  .whereRef('n.reissued_from', '=', 'c.id'),
              ),
            ),
          )
          .$if(after !== null, (q) =>
            q.where((eb) =>
              eb.or([
                eb('c.expires_on', '>', after?.expiresOn as string),
                eb.and([eb('c.expires_on', '=', after?.expiresOn as string), eb('c.id', '>', after?.id as string)]),
              ]),
            ),
          )
          .orderBy('c.expires_on')
          .orderBy('c.id')
          .limit(limit),
      ).execute();
      if (candidates.length === 0) return { scanned: 0, last: null, claimed: [] };
      const lastCandidate = candidates[candidates.length - 1] as (typeof candidates)[number];
      const last = { expiresOn: lastCandidate.expires_on as string, id: lastCandidate.id };
      const inserted = await db
        .insertInto('credential_reminder_announcements')
        .values(candidates.map((c) => ({ credential_id: c.id, issuer_id: c.issuer_id, announced_at: now })))
        .onConflict((oc) => oc.column('credential_id').doNothing())
        .returning('credential_id')
        .execute();
      if (inserted.length === 0) return { scanned: candidates.length, last, claimed: [] };
      const claimed = await eventRows(
        db,
        inserted.map((r) => r.credential_id),
      ).execute();
      return {
        scanned: candidates.length,
        last,
        claimed: claimed.map((row) => ({ ...row, expires_on: row.expires_on as string })),
      };
    },
  };
}
