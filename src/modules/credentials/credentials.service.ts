import { addDays, isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import { errors } from '../../core/errors.js';
import { refuseEmailIn } from '../../core/personal-data.js';
import type { AuditService } from '../audit/audit.service.js';
import type { NotificationKind } from '../notifications/notifications.render.js';
import type { NotificationService } from '../notifications/notifications.service.js';
import { attachment, spreadsheetTime, toCsv } from '../reports/csv.js';
import type { OutboxService } from '../webhooks/outbox.service.js';
import { credentialEventData } from '../webhooks/webhooks.events.js';
import { COMPACT_AFTER_DELTA_ROWS, type CountCompaction } from './counts.compaction.js';
import {
  type CredentialRepository,
  type CredentialWithSlugs,
  createCredentialRepository,
} from './credentials.repository.js';
import type {
  CredentialExportQuery,
  CredentialSearch,
  CredentialStatus,
  ExpiringCredentialsQuery,
  ExportExpiringQuery,
  RenewalsInput,
} from './credentials.schemas.js';
import { effectiveStatus, toDetail, toSummary } from './credentials.views.js';
import { type IssuanceService, type IssueOutcome, storableName } from './issuance.service.js';
import { createRenewals } from './renewals.js';

export const REISSUED_REASON = 'reissued';

/** The most lines one export holds (about 10 MB); narrower filters export the rest. */
export const EXPORT_MAX_ROWS = 50_000;
const EXPORT_COLUMNS = ['name', 'definition', 'status', 'issued', 'expires', 'verificationUrl'] as const;
/** The expiring export also names each completion key, so the file can go back as a renewals CSV. */
const EXPIRING_COLUMNS = ['name', 'definition', 'completionKey', 'issued', 'expires', 'verificationUrl'] as const;

type CsvColumn = (typeof EXPORT_COLUMNS)[number] | (typeof EXPIRING_COLUMNS)[number];
type CsvRow = Awaited<ReturnType<CredentialRepository['exportRows']>>[number];

/** Reading, revoking and reissuing an issuer's credentials. */
export function createCredentialService(
  core: Pick<Core, 'db' | 'database' | 'dialect' | 'clock' | 'ids' | 'metrics'>,
  deps: {
    issuance: IssuanceService;
    audit: Pick<AuditService, 'append'>;
    outbox: Pick<OutboxService, 'enqueue'>;
    countCompaction: Pick<CountCompaction, 'request'>;
    notifications: Pick<NotificationService, 'statusOf' | 'wanted'>;
  },
) {
  const repo = createCredentialRepository(core.db, core.dialect, core.database.reader);
  const urls = deps.issuance.urls;

  /**
   * The address a reissue notifies: only when asked, and only an address that is the credential's
   * own recipient (the service does not know it, so the caller must, and it is checked by hash).
   */
  async function notificationAddress(
    issuerId: string,
    recipientHash: string,
    input: { notify?: boolean; recipientEmail?: string },
  ): Promise<string | null> {
    if (input.notify !== true) return null;
    const problem = !input.recipientEmail
      ? 'notify needs recipientEmail: the earner address is not stored.'
      : (await deps.issuance.recipientHash(issuerId, input.recipientEmail)) !== recipientHash
        ? "recipientEmail is not this credential's recipient."
        : null;
    if (problem) throw errors.validation(problem, [{ path: '/recipientEmail', message: problem, code: 'recipient' }]);
    return input.recipientEmail ?? null;
  }

  async function requireRow(issuerId: string, id: string): Promise<CredentialWithSlugs> {
    const row = await repo.getById(issuerId, id);
    if (!row) throw errors.notFound('Credential');
    return row;
  }

  /** One line of either export: every column either writes; each picks its own. */
  const csvLine = (row: CsvRow, now: Date): Record<CsvColumn, string> => ({
    name: row.display_name ?? '',
    definition: row.definition_name,
    status: effectiveStatus(row, now),
    completionKey: row.completion_key,
    issued: spreadsheetTime(row.issued_on),
    expires: spreadsheetTime(row.expires_on),
    verificationUrl: urls.verifyPage(row.issuer_slug, row.id),
  });

  /** From now to `withinDays` days on. */
  const expiringWindow = (withinDays: number) => {
    const from = isoNow(core.clock);
    return { from, to: addDays(from, withinDays) };
  };

  /**
   * The replacement of `original`, in one transaction under the original's row lock: the new row
   * (audited as `how.action`), the original revoked as `reissued`, the webhooks. A replacement made
   * meanwhile is a replay when `how.replayWhenReplaced` takes it, else 409 credential_replaced.
   */
  async function replace(
    issuerId: string,
    actor: string,
    original: CredentialWithSlugs,
    input: { completionKey?: string; evidenceUrl?: string; recipientName?: string },
    notifyTo: string | null,
    how: {
      action: string;
      keySuffix: string;
      replayWhenReplaced: (row: CredentialWithSlugs) => boolean;
      keepDates?: boolean;
      /** What the earner's email says happened (issue 46). */
      kind: NotificationKind;
    },
  ): Promise<IssueOutcome> {
    const id = original.id;
    const definition = await deps.issuance.definitionFor(issuerId, original.definition_id);
    const outcome = await core.db.transaction().execute(async (trx) => {
      const txRepo = createCredentialRepository(trx, core.dialect);
      const locked = await txRepo.lockById(issuerId, id);
      if (!locked) throw errors.notFound('Credential');
      if (input.completionKey === undefined) {
        const replacement = await txRepo.latestReplacement(issuerId, id);
        if (replacement) {
          if (how.replayWhenReplaced(replacement)) return { row: replacement, created: false };
          throw errors.credentialReplaced(replacement.id);
        }
      }
      const completionKey = input.completionKey ?? `${locked.completion_key}#${how.keySuffix}-1`;
      const built = deps.issuance.buildRow(issuerId, definition, {
        recipientHash: locked.recipient_hash,
        recipientName: input.recipientName ?? locked.display_name,
        completionKey,
        evidenceUrl: input.evidenceUrl ?? locked.evidence_url,
        language: locked.language,
        source: 'reissue',
      });
      const row = {
        ...built,
        ...(how.keepDates ? { issued_on: locked.issued_on, expires_on: locked.expires_on } : {}),
        reissued_from: locked.id,
      };
      const slugs = { issuer: original.issuer_slug, definition: definition.slug };
      const result = await deps.issuance.insertInTransaction(trx, actor, row, slugs, {
        action: how.action,
        details: { originalCredentialId: locked.id, completionKey },
      });
      if (!result.created) return result;
      if (locked.revoked_at === null) {
        await txRepo.revoke(issuerId, locked.id, isoNow(core.clock), REISSUED_REASON);
        const revoked = await txRepo.getById(issuerId, locked.id);
        if (revoked) {
          await deps.outbox.enqueue(
            trx,
            issuerId,
            'credential.revoked',
            credentialEventData(urls, revoked, core.clock.now()),
          );
        }
      }
      await deps.outbox.enqueue(
        trx,
        issuerId,
        'credential.reissued',
        credentialEventData(urls, result.row, core.clock.now()),
      );
      return result;
    });
    if (outcome.created) core.metrics.credentialsIssued.inc();
    if (notifyTo === null) return outcome;
    const notification = await deps.issuance.notifyIfWanted(outcome, notifyTo, true, how.kind);
    return notification ? { ...outcome, notification } : outcome;
  }

  const service = {
    async list(
      issuerId: string,
      query: { limit: number; offset: number; status?: CredentialStatus; definitionId?: string },
    ) {
      const now = core.clock.now();
      const { total, deltaRows, rows } = await repo.page(
        issuerId,
        { status: query.status, definitionId: query.definitionId, now: now.toISOString() },
        query.limit,
        query.offset,
      );
      // Not awaited: this answer is exact already, and the fold keeps the next ones cheap.
      if (deltaRows >= COMPACT_AFTER_DELTA_ROWS) deps.countCompaction.request(issuerId);
      return { total, limit: query.limit, offset: query.offset, items: rows.map((r) => toSummary(urls, r, now)) };
    },

    /**
     * The list narrowed by recipient email (hashed with the issuer's salt here and used for the
     * lookup only: never stored, logged or returned), completion key, definition, status and the
     * time of issue.
     */
    async search(issuerId: string, query: CredentialSearch) {
      const now = core.clock.now();
      const { total, rows } = await repo.page(
        issuerId,
        {
          status: query.status,
          definitionId: query.definitionId,
          now: now.toISOString(),
          recipientHash:
            query.recipientEmail === undefined
              ? undefined
              : await deps.issuance.recipientHash(issuerId, query.recipientEmail),
          completionKey: query.completionKey,
          recipientName: query.recipientName,
          issuedFrom: query.issuedFrom === undefined ? undefined : new Date(query.issuedFrom).toISOString(),
          issuedTo: query.issuedTo === undefined ? undefined : new Date(query.issuedTo).toISOString(),
        },
        query.limit,
        query.offset,
      );
      return { total, limit: query.limit, offset: query.offset, items: rows.map((r) => toSummary(urls, r, now)) };
    },

    /**
     * The credentials export (issue 39 §3): one line per credential, newest first, at most
     * EXPORT_MAX_ROWS, every cell formula-safe. Names only, never an email (none is stored).
     */
    async exportCsv(issuerId: string, query: CredentialExportQuery): Promise<{ body: string; disposition: string }> {
      const now = core.clock.now();
      const rows = await repo.exportRows(
        issuerId,
        {
          status: query.status,
          definitionId: query.definitionId,
          recipientName: query.recipientName,
          now: now.toISOString(),
        },
        EXPORT_MAX_ROWS,
      );
      const body = toCsv(
        EXPORT_COLUMNS,
        rows.map((row) => csvLine(row, now)),
      );
      return { body, disposition: attachment('credentials', now) };
    },

    /** The "Expiring soon" view (issue 39 §5): unrevoked credentials expiring within the days asked, soonest first. */
    async expiring(issuerId: string, query: ExpiringCredentialsQuery) {
      const now = core.clock.now();
      const { total, rows } = await repo.expiringPage(
        issuerId,
        expiringWindow(query.withinDays),
        query.limit,
        query.offset,
      );
      return { total, limit: query.limit, offset: query.offset, items: rows.map((r) => toSummary(urls, r, now)) };
    },

    /** The same view as CSV, every cell formula-safe; names and completion keys, never an email. */
    async exportExpiringCsv(issuerId: string, query: ExportExpiringQuery) {
      const now = core.clock.now();
      const rows = await repo.expiringRows(issuerId, expiringWindow(query.withinDays), EXPORT_MAX_ROWS);
      const body = toCsv(
        EXPIRING_COLUMNS,
        rows.map((row) => csvLine(row, now)),
      );
      return { body, disposition: attachment('expiring-credentials', now) };
    },

    async get(issuerId: string, id: string) {
      const row = await requireRow(issuerId, id);
      const [notification, replacement] = await Promise.all([
        deps.notifications.statusOf(issuerId, row.id),
        repo.latestReplacement(issuerId, row.id),
      ]);
      return {
        ...toDetail(urls, row, core.clock.now()),
        replacedBy: replacement?.id ?? null,
        replaces: row.reissued_from,
        ...(notification ? { notification } : {}),
      };
    },

    /** The stored row with its slugs, or undefined (another issuer's credential is undefined too). */
    async findRow(issuerId: string, id: string): Promise<CredentialWithSlugs | undefined> {
      return repo.getById(issuerId, id);
    },

    /**
     * Revokes once; revoking again answers with the original time and reason and changes nothing.
     * A reason holding an email address is refused: it would outlive an erasure in the audit log.
     */
    async revoke(issuerId: string, actor: string, id: string, reason: string | null) {
      refuseEmailIn('reason', reason);
      const row = await core.db.transaction().execute(async (trx) => {
        const txRepo = createCredentialRepository(trx, core.dialect);
        const locked = await txRepo.lockById(issuerId, id);
        if (!locked) throw errors.notFound('Credential');
        if (locked.revoked_at === null) {
          await txRepo.revoke(issuerId, id, isoNow(core.clock), reason);
          const revoked = await txRepo.getById(issuerId, id);
          if (!revoked) throw errors.notFound('Credential');
          await deps.audit.append(trx, {
            issuerId,
            actor,
            action: 'credential.revoked',
            targetType: 'credential',
            targetId: id,
            details: { reason },
          });
          await deps.outbox.enqueue(
            trx,
            issuerId,
            'credential.revoked',
            credentialEventData(urls, revoked, core.clock.now()),
          );
          return revoked;
        }
        return txRepo.getById(issuerId, id);
      });
      if (!row?.revoked_at) throw errors.notFound('Credential');
      return {
        credentialId: row.id,
        status: 'revoked' as const,
        revokedAt: row.revoked_at,
        revokedReason: row.revoked_reason,
      };
    },

    /**
     * Issues a fresh credential (new id and assertion) for the same recipient and definition and
     * revokes the original with reason `reissued`. Replays when the completion key already exists,
     * and, without a completion key, when the original was already replaced: a double click or
     * concurrent retries get the one replacement (the original's row lock orders them).
     */
    async reissue(
      issuerId: string,
      actor: string,
      id: string,
      input: { completionKey?: string; evidenceUrl?: string; notify?: boolean; recipientEmail?: string },
    ): Promise<IssueOutcome> {
      refuseEmailIn('completionKey', input.completionKey);
      const original = await requireRow(issuerId, id);
      const notifyTo = await notificationAddress(issuerId, original.recipient_hash, input);
      const known = input.completionKey
        ? await repo.getByCompletionKey(issuerId, input.completionKey)
        : await repo.latestReplacement(issuerId, id);
      if (known) return { row: known, created: false };
      return replace(issuerId, actor, original, input, notifyTo, {
        action: 'credential.reissued',
        keySuffix: 'reissue',
        replayWhenReplaced: () => true,
        // A live credential with an expiry gets a new one: that is a renewal (renewals.ts).
        kind: original.revoked_at === null && original.expires_on !== null ? 'renewal' : 'reissue',
      });
    },

    /**
     * "Correct the name" (issue 46 §3): a replacement like a reissue's, carrying the new name and
     * the original's dates (a correction is no new award), the original revoked as `reissued` and
     * linked. Replays when the credential was already replaced by one with this name (a double
     * click); another replacement is 409 credential_replaced naming it, and a revoked credential is
     * 409 credential_revoked (a correction never revives it).
     */
    async correctName(
      issuerId: string,
      actor: string,
      id: string,
      input: { recipientName: string; completionKey?: string; notify?: boolean; recipientEmail?: string },
    ): Promise<IssueOutcome> {
      refuseEmailIn('completionKey', input.completionKey);
      const name = input.recipientName.trim();
      if (name === '' || storableName(name).dropped) {
        const message = 'recipientName must be a name: not blank, and no email address in it.';
        throw errors.validation(message, [{ path: '/recipientName', message, code: 'recipientName' }]);
      }
      const original = await requireRow(issuerId, id);
      const known = input.completionKey ? await repo.getByCompletionKey(issuerId, input.completionKey) : undefined;
      if (known) return { row: known, created: false };
      const replacement = await repo.latestReplacement(issuerId, id);
      if (replacement) {
        if (replacement.display_name === name) return { row: replacement, created: false };
        throw errors.credentialReplaced(replacement.id);
      }
      if (original.revoked_at !== null) throw errors.credentialRevoked(original.id);
      if (original.display_name === name) {
        const message = 'recipientName is the name the credential already carries.';
        throw errors.validation(message, [{ path: '/recipientName', message, code: 'recipientName' }]);
      }
      const notifyTo = await notificationAddress(issuerId, original.recipient_hash, input);
      return replace(issuerId, actor, original, { ...input, recipientName: name }, notifyTo, {
        action: 'credential.name_corrected',
        keySuffix: 'name',
        replayWhenReplaced: (row) => row.display_name === name,
        keepDates: true,
        kind: 'correction',
      });
    },

    toIssued: (outcome: IssueOutcome) => deps.issuance.toIssued(outcome),
  };

  const renewals = createRenewals({
    findByCompletionKey: (issuerId, completionKey) => repo.getByCompletionKey(issuerId, completionKey),
    latestReplacement: (issuerId, id) => repo.latestReplacement(issuerId, id),
    reissue: service.reissue,
    notifies: (issuerId) => deps.notifications.wanted(issuerId, undefined),
    reissuedReason: REISSUED_REASON,
    now: () => core.clock.now(),
  });

  return {
    ...service,
    /** Renews (reissues) the credentials of the completion keys given, one report row each. */
    renew: (issuerId: string, actor: string, input: RenewalsInput) => renewals.renew(issuerId, actor, input),
  };
}

export type CredentialService = ReturnType<typeof createCredentialService>;
