import { CompiledQuery } from 'kysely';
import { errors } from '../../core/errors.js';
import type { Executor } from '../../db/database.js';
import { prepared } from '../../db/dialect.js';
import type { AuditRow } from '../audit/audit.repository.js';
import type { DefinitionRow } from '../definitions/definitions.repository.js';
import type { DeliveryRow } from '../webhooks/webhooks.repository.js';
import type { CredentialRow, CredentialWithSlugs } from './credentials.repository.js';

/**
 * What an issuance reads first while the app does not know the definition yet, in one statement:
 * the credential already stored under the completion key (with its slugs: a replay is answered
 * from it) and the definition to issue.
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

/**
 * Migration 0052: the replay lookup, the definition's check and every write of a new credential,
 * as one autocommit statement.
 */
const ISSUE = prepared(
  CompiledQuery.raw(
    'select accolade_issue_credential($1::jsonb, $2::jsonb, $3, $4::integer, $5::jsonb, $6, $7, $8, $9::jsonb) as outcome',
  ) as CompiledQuery<{ outcome: IssueAnswer | null }>,
);

/** What the function answers when it wrote nothing: the credential already stored, or the definition as it is now. */
type IssueAnswer = { existing: CredentialWithSlugs } | { definition: DefinitionRow | null };

/** The outcome of one issuance statement. */
export type PostgresIssueOutcome =
  | { kind: 'created' }
  | { kind: 'existing'; row: CredentialWithSlugs }
  /** The definition changed, was archived or is gone since the app read it: nothing was written. */
  | { kind: 'definition'; definition: DefinitionRow | undefined };

export interface PostgresIssue {
  /** The definition the credential was built from; the statement writes only while it still reads the same. */
  definition: Pick<DefinitionRow, 'slug' | 'expires_after_days' | 'expires_after_months'>;
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
 * PostgreSQL issuance in one round trip: one statement that answers a replay, checks the definition
 * and writes the credential, its quota unit, its audit record and its webhook deliveries atomically
 * (autocommit), or nothing. `readBeforeIssue` reads the definition the first time the app needs it.
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

    async issue(input: PostgresIssue): Promise<PostgresIssueOutcome> {
      let answer: IssueAnswer | null | undefined;
      try {
        const { rows } = await db.executeQuery<{ outcome: IssueAnswer | null }>({
          ...ISSUE,
          parameters: [
            JSON.stringify({
              slug: input.definition.slug,
              expires_after_days: input.definition.expires_after_days,
              expires_after_months: input.definition.expires_after_months,
            }),
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
        answer = rows[0]?.outcome;
      } catch (err) {
        throw appError(err);
      }
      if (!answer) return { kind: 'created' };
      if ('existing' in answer) return { kind: 'existing', row: answer.existing };
      return { kind: 'definition', definition: answer.definition ?? undefined };
    },
  };
}
