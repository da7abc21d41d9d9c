import { addDays, isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import { errors } from '../../core/errors.js';
import { hashRecipientEmail } from '../../core/hashing.js';
import { containsEmail, refuseEmailIn } from '../../core/personal-data.js';
import { publicUrls } from '../../core/urls.js';
import type { Executor } from '../../db/database.js';
import type { AuditEntry, AuditService } from '../audit/audit.service.js';
import type { DefinitionRow } from '../definitions/definitions.repository.js';
import type { DefinitionService } from '../definitions/definitions.service.js';
import type { IssuerService } from '../issuers/issuers.service.js';
import type { NotificationOutcome, NotificationService } from '../notifications/notifications.service.js';
import type { UsageService } from '../usage/usage.service.js';
import type { OutboxService } from '../webhooks/outbox.service.js';
import { credentialEventData } from '../webhooks/webhooks.events.js';
import { type CredentialRow, type CredentialWithSlugs, createCredentialRepository } from './credentials.repository.js';
import { toIssued } from './credentials.views.js';
import { createHeldCredentialRepository } from './held-credentials.repository.js';
import { createPostgresIssuance } from './issuance.postgres.js';

export { heldKey } from './held-credentials.repository.js';

export interface IssueRequest {
  definitionId: string;
  /** Hashed here with the issuer's salt; never stored. */
  recipientEmail: string;
  completionKey: string;
  recipientName?: string | null;
  evidenceUrl?: string | null;
  /** ISO date-time; defaults to now and may not lie in the future. */
  issuedOn?: string | null;
  /** Channel that created it: api, ingest, csv, connector:<provider>, reissue. */
  source: string;
  /** Tell the earner by email; absent means the issuer's default. */
  notify?: boolean;
}

export interface IssueOutcome {
  row: CredentialWithSlugs;
  created: boolean;
  /** True when the request's recipientName was not stored because it holds an email address. */
  nameDropped?: boolean;
  /** Set when a new credential's earner is to be told: queued, or off (no SMTP server). */
  notification?: NotificationOutcome;
}

/** How an import row or connector record says its name was not stored. */
export const NAME_DROPPED_MESSAGE = 'recipientName was not stored: it contains an email address';

/**
 * The display name to store: trimmed, and none when it holds an email address (a Canvas
 * `user.name` is often the login email), so no public page, document or backup ever carries one.
 */
export function storableName(name: string | null | undefined): { name: string | null; dropped: boolean } {
  const trimmed = name?.trim() || null;
  if (trimmed !== null && containsEmail(trimmed)) return { name: null, dropped: true };
  return { name: trimmed, dropped: false };
}

export type IssuanceDeps = {
  issuers: Pick<IssuerService, 'identity'>;
  definitions: Pick<DefinitionService, 'findRow'>;
  usage: Pick<UsageService, 'consumeIssuance' | 'issuanceCounter'>;
  audit: Pick<AuditService, 'append' | 'unchained'>;
  outbox: Pick<OutboxService, 'enqueue' | 'deliveryTemplate'>;
  notifications: Pick<NotificationService, 'wanted' | 'notify'>;
};

/** A clean error when a supplied issue date is unusable; undefined when it is fine. */
export function issuedOnProblem(issuedOn: string, now: Date): string | undefined {
  const at = Date.parse(issuedOn);
  if (Number.isNaN(at)) return 'issuedOn is not a valid date-time.';
  if (at > now.getTime()) return 'issuedOn may not be in the future.';
  return undefined;
}

/**
 * The one way a credential comes into being, for every channel: idempotent on the completion key,
 * quota-counted, audited and announced in the same transaction.
 */
export function createIssuanceService(
  core: Pick<Core, 'db' | 'dialect' | 'clock' | 'ids' | 'config' | 'metrics'>,
  deps: IssuanceDeps,
) {
  const urls = publicUrls(core.config.publicBaseUrl);

  /** The definition to issue against: it must exist and not be archived. */
  function issuable(definition: DefinitionRow | undefined): DefinitionRow {
    if (!definition) throw errors.notFound('Definition');
    if (definition.status === 'archived') throw errors.definitionArchived();
    return definition;
  }

  async function definitionFor(issuerId: string, definitionId: string): Promise<DefinitionRow> {
    return issuable(await deps.definitions.findRow(issuerId, definitionId));
  }

  /** The audit record of a new credential. */
  const auditEntry = (
    actor: string,
    row: CredentialRow,
    audit: { action: string; details: Record<string, unknown> },
  ): AuditEntry => ({
    issuerId: row.issuer_id,
    actor,
    action: audit.action,
    targetType: 'credential',
    targetId: row.id,
    details: audit.details,
  });

  /**
   * Inserts a credential row inside `trx` unless its completion key exists. When new: counts it
   * against the quota (throws 402 and so rolls the insert back), audits and enqueues the webhook.
   * `slugs` are the issuer's and definition's, so a new row needs no read-back.
   */
  async function insertInTransaction(
    trx: Executor,
    actor: string,
    row: CredentialRow,
    slugs: { issuer: string; definition: string },
    audit: { action: string; details: Record<string, unknown> },
  ): Promise<IssueOutcome> {
    const repo = createCredentialRepository(trx, core.dialect);
    if (!(await repo.insertIfNew(row))) {
      const existing = await repo.getByCompletionKey(row.issuer_id, row.completion_key);
      if (!existing) throw new Error('credential vanished after a conflicting insert');
      return { row: existing, created: false };
    }
    const stored: CredentialWithSlugs = { ...row, issuer_slug: slugs.issuer, definition_slug: slugs.definition };
    await deps.usage.consumeIssuance(trx, row.issuer_id);
    await deps.audit.append(trx, auditEntry(actor, row, audit));
    await deps.outbox.enqueue(
      trx,
      row.issuer_id,
      'credential.issued',
      credentialEventData(urls, stored, core.clock.now()),
    );
    return { row: stored, created: true };
  }

  /**
   * Queues the earner's notification for a credential this call created, when the call (or the
   * issuer's default) asks for one; replays never notify. The address goes to memory only.
   */
  async function notifyIfWanted(
    outcome: IssueOutcome,
    email: string,
    requested: boolean | undefined,
  ): Promise<NotificationOutcome | undefined> {
    if (!outcome.created) return undefined;
    const { row } = outcome;
    if (!(await deps.notifications.wanted(row.issuer_id, requested))) return undefined;
    return deps.notifications.notify({
      issuerId: row.issuer_id,
      credentialId: row.id,
      definitionId: row.definition_id,
      issuedOn: row.issued_on,
      recipientHash: row.recipient_hash,
      email,
    });
  }

  const postgres = createPostgresIssuance(core.db);

  /**
   * A single issuance's writes as one statement on PostgreSQL (migration 0029), where every
   * statement is a round trip; SQLite's run in-process, inside one transaction.
   */
  async function insertOnPostgres(
    actor: string,
    row: CredentialRow,
    slugs: { issuer: string; definition: string },
    audit: { action: string; details: Record<string, unknown> },
  ): Promise<IssueOutcome> {
    const stored: CredentialWithSlugs = { ...row, issuer_slug: slugs.issuer, definition_slug: slugs.definition };
    const event = 'credential.issued';
    const existingId = await postgres.issue({
      credential: row,
      usage: deps.usage.issuanceCounter(),
      audit: deps.audit.unchained(auditEntry(actor, row, audit)),
      event,
      delivery: deps.outbox.deliveryTemplate(row.issuer_id, event, credentialEventData(urls, stored, core.clock.now())),
    });
    if (existingId === undefined) return { row: stored, created: true };
    const existing = await createCredentialRepository(core.db, core.dialect).getById(row.issuer_id, existingId);
    if (!existing) throw new Error('credential vanished after a conflicting insert');
    return { row: existing, created: false };
  }

  const held = createHeldCredentialRepository(core.db);

  return {
    urls,
    notifyIfWanted,

    /**
     * Valid credentials the recipients already hold, whatever key or channel issued them: what an
     * entry without its own key must not duplicate. `between` runs between the batched queries.
     */
    heldCredentials: (
      issuerId: string,
      pairs: { definitionId: string; recipientHash: string }[],
      between: () => Promise<void>,
    ) => held.held(issuerId, pairs, isoNow(core.clock), between),

    /** The oldest valid credential of the definition the recipient holds, if any. */
    heldCredential: (issuerId: string, definitionId: string, recipientHash: string) =>
      held.heldOne(issuerId, definitionId, recipientHash, isoNow(core.clock)),

    async recipientHash(issuerId: string, email: string): Promise<string> {
      const identity = await deps.issuers.identity(issuerId);
      return hashRecipientEmail(email, identity.salt);
    },

    definitionFor,
    insertInTransaction,

    /** The credential row a request would create (not yet stored). */
    buildRow(
      issuerId: string,
      definition: DefinitionRow,
      input: Omit<IssueRequest, 'definitionId' | 'recipientEmail'> & { recipientHash: string },
    ): CredentialRow {
      const now = isoNow(core.clock);
      const issuedOn = input.issuedOn ? new Date(input.issuedOn).toISOString() : now;
      return {
        id: core.ids.ordered(),
        issuer_id: issuerId,
        definition_id: definition.id,
        recipient_hash: input.recipientHash,
        display_name: storableName(input.recipientName).name,
        completion_key: input.completionKey,
        issued_on: issuedOn,
        expires_on: definition.expires_after_days ? addDays(issuedOn, definition.expires_after_days) : null,
        revoked_at: null,
        revoked_reason: null,
        evidence_url: input.evidenceUrl ?? null,
        reissued_from: null,
        source: input.source,
        expiry_announced_at: null,
        created_at: now,
      };
    },

    /** Issues one credential (or returns the existing one for a known completion key). */
    async issue(issuerId: string, actor: string, input: IssueRequest): Promise<IssueOutcome> {
      refuseEmailIn('completionKey', input.completionKey);
      const nameDropped = storableName(input.recipientName).dropped;
      if (input.issuedOn) {
        const problem = issuedOnProblem(input.issuedOn, core.clock.now());
        if (problem) throw errors.validation(problem, [{ path: '/issuedOn', message: problem, code: 'issuedOn' }]);
      }
      let definition: DefinitionRow;
      if (core.dialect === 'postgres') {
        const read = await postgres.readBeforeIssue(issuerId, input.completionKey, input.definitionId);
        if (read.existing) return { row: read.existing, created: false, nameDropped };
        definition = issuable(read.definition);
      } else {
        const existing = await createCredentialRepository(core.db, core.dialect).getByCompletionKey(
          issuerId,
          input.completionKey,
        );
        if (existing) return { row: existing, created: false, nameDropped };
        definition = await definitionFor(issuerId, input.definitionId);
      }
      const identity = await deps.issuers.identity(issuerId);
      const recipientHash = hashRecipientEmail(input.recipientEmail, identity.salt);
      const row = this.buildRow(issuerId, definition, { ...input, recipientHash });
      const slugs = { issuer: identity.slug, definition: definition.slug };
      const audit = {
        action: 'credential.issued',
        details: { definitionId: definition.id, completionKey: row.completion_key, source: row.source },
      };
      const outcome =
        core.dialect === 'postgres'
          ? await insertOnPostgres(actor, row, slugs, audit)
          : await core.db.transaction().execute((trx) => insertInTransaction(trx, actor, row, slugs, audit));
      if (outcome.created) core.metrics.credentialsIssued.inc();
      const notification = await notifyIfWanted(outcome, input.recipientEmail, input.notify);
      return { ...outcome, nameDropped, ...(notification ? { notification } : {}) };
    },

    toIssued: (outcome: IssueOutcome) => ({
      ...toIssued(urls, outcome.row, outcome.created, core.clock.now(), outcome.nameDropped),
      ...(outcome.notification ? { notification: outcome.notification } : {}),
    }),
  };
}

export type IssuanceService = ReturnType<typeof createIssuanceService>;
