import { CompiledQuery } from 'kysely';
import { errors } from '../../core/errors.js';
import type { Executor } from '../../db/database.js';
import { prepared } from '../../db/dialect.js';
import type { AuditRow } from '../audit/audit.repository.js';
import type { DefinitionRow } from '../definitions/definitions.repository.js';
import type { DeliveryRow } from '../webhooks/webhooks.repository.js';
import type { CredentialRow, CredentialWithSlugs } from './credentials.repository.js';

/**
 * What an issuance reads before it writes, in one statement: the credential already stored under
 * the completion key (with its slugs: a replay is answered from it) and the definition to issue.
 */
type ReadBeforeIssue = { existing: CredentialWithSlugs | null; definition: DefinitionRow | null };
const READ_BEFORE_ISSUE = prepared(
  CompiledQuery.raw(
    `select
      (select to_json(c) from (
        select credentials.*, issuers.slug as issuer_slug, definitions.slug as definition_slug
        from credentials
        join issuers on issuers.id = credentials.issuer_id
        join definitions on definitions.id = credentials.definition_id
        where credentials.issuer_id = $1 and credentials.completion_key = $2) c) as existing,
      (select to_json(d) from definitions d where d.issuer_id = $1 and d.id = $3) as definition`,
  ) as CompiledQuery<ReadBeforeIssue>,
);

/** Migration 0029: every write of a new credential, as one autocommit statement. */
const ISSUE = prepared(
  CompiledQuery.raw(
    'select accolade_issue_credential($1::jsonb, $2, $3::integer, $4::jsonb, $5, $6, $7, $8::jsonb) as existing_id',
  ) as CompiledQuery<{ existing_id: string | null }>,
);

export interface PostgresIssue {
  credential: CredentialRow;
  usage: { period: string; stripe: number };
  audit: { row: Omit<AuditRow, 'seq' | 'prev_hash' | 'hash'>; aroundSeq: [string, string] };
  event: string;
  delivery: DeliveryRow;
}

/** The error accolade_issue_credential raises, as the API's. */
function appError(err: unknown): unknown {
  const e = err as { code?: unknown; detail?: unknown };
  if (e.code === 'AQ402' && typeof e.detail === 'string') {
    const { plan, quota, used } = JSON.parse(e.detail) as { plan: string; quota: number; used: number };
    return errors.quotaExceeded(plan, quota, used);
  }
  if (e.code === 'AQ404') return errors.notFound('Issuer');
  return err;
}

/**
 * PostgreSQL issuance in two round trips: one read, then one statement that writes the credential,
 * its quota unit, its audit record and its webhook deliveries atomically (autocommit), or nothing.
 */
export function createPostgresIssuance(db: Executor) {
  return {
    async readBeforeIssue(issuerId: string, completionKey: string, definitionId: string) {
      const { rows } = await db.executeQuery<ReadBeforeIssue>({
        ...READ_BEFORE_ISSUE,
        parameters: [issuerId, completionKey, definitionId],
      });
      return { existing: rows[0]?.existing ?? undefined, definition: rows[0]?.definition ?? undefined };
    },

    /** Undefined when the credential was stored; else the id stored under its completion key meanwhile. */
    async issue(input: PostgresIssue): Promise<string | undefined> {
      try {
        const { rows } = await db.executeQuery<{ existing_id: string | null }>({
          ...ISSUE,
          parameters: [
            JSON.stringify(input.credential),
            input.usage.period,
            input.usage.stripe,
            JSON.stringify(input.audit.row),
            input.audit.aroundSeq[0],
            input.audit.aroundSeq[1],
            input.event,
            JSON.stringify(input.delivery),
          ],
        });
        return rows[0]?.existing_id ?? undefined;
      } catch (err) {
        throw appError(err);
      }
    },
  };
}
