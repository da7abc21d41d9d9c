import { isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import { errors } from '../../core/errors.js';
import { hashRecipientEmail } from '../../core/hashing.js';
import { requireLanguage } from '../../core/language.js';
import { containsEmail, refuseEmailIn } from '../../core/personal-data.js';
import { publicUrls } from '../../core/urls.js';
import type { Executor } from '../../db/database.js';
import { createGroupCommit } from '../../db/group-commit.js';
import type { AuditEntry, AuditService } from '../audit/audit.service.js';
import type { DefinitionRow } from '../definitions/definitions.repository.js';
import type { DefinitionService } from '../definitions/definitions.service.js';
import { expiryFor } from '../definitions/definitions.validity.js';
import type { IssuerService } from '../issuers/issuers.service.js';
import type { NotificationKind } from '../notifications/notifications.render.js';
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
  /** ISO date-time after issuedOn; defaults to the definition's validity from issuedOn. */
  expiresOn?: string | null;
  /**
   * The language the credential is issued in (BCP 47, canonicalised here): its documents carry that
   * language edition of the definition. Absent or the definition's own language: stored as null.
   */
  language?: string | null;
  /** Channel that created it: api, ingest, csv, connector:<provider>, reissue. */
  source: string;
  /** Tell the earner by email; absent means the issuer's default. */
  notify?: boolean;
  /** refuse: a recipient who holds a valid credential of the definition under another key is a 409. */
  ifAlreadyHeld?: 'issue' | 'refuse';
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
  /** Links a new credential to the earner account of its address, if there is one (the backpack). */
  linkToEarner?: (issuerId: string, credentialId: string, email: string) => Promise<void>;
};

/** A clean error when a supplied issue date is unusable; undefined when it is fine. */
export function issuedOnProblem(issuedOn: string, now: Date): string | undefined {
  const at = Date.parse(issuedOn);
  if (Number.isNaN(at)) return 'issuedOn is not a valid date-time.';
  if (at > now.getTime()) return 'issuedOn may not be in the future.';
  return undefined;
}

/**
 * The language a credential records: the canonical tag asked for, or null when none was asked or it
 * is the definition's own (the credential then follows the definition's language). A malformed tag
 * is a 400 naming /language.
 */
export function issuedLanguage(definition: Pick<DefinitionRow, 'language'>, language: string | null | undefined) {
  if (language == null || language === '') return null;
  const canonical = requireLanguage(language, '/language');
  return canonical === definition.language ? null : canonical;
}

/** Statements one PostgreSQL issuance may send while its definition keeps changing under it. */
const MAX_DEFINITION_ATTEMPTS = 3;
/** Definitions a process keeps for issuing on PostgreSQL; the oldest leaves first. */
const KNOWN_DEFINITIONS_MAX = 1_000;

/**
 * The definitions this process last issued against, by issuer and id. Only a starting point: the
 * issuance statement checks the fields it depends on against the stored definition and answers
 * the current one when they differ, so a stale entry costs a retry, never a wrong credential.
 */
function createDefinitionMemo() {
  const rows = new Map<string, DefinitionRow>();
  const keyOf = (issuerId: string, definitionId: string) => `${issuerId}\n${definitionId}`;
  return {
    get: (issuerId: string, definitionId: string) => rows.get(keyOf(issuerId, definitionId)),
    set(definition: DefinitionRow): DefinitionRow {
      const key = keyOf(definition.issuer_id, definition.id);
      rows.delete(key);
      if (rows.size >= KNOWN_DEFINITIONS_MAX) {
        const oldest = rows.keys().next();
        if (!oldest.done) rows.delete(oldest.value);
      }
      rows.set(key, definition);
      return definition;
    },
    forget: (issuerId: string, definitionId: string) => rows.delete(keyOf(issuerId, definitionId)),
  };
}

/**
 * The one way a credential comes into being, for every channel: idempotent on the completion key,
 * quota-counted, audited and announced in the same transaction.
 *
 * On PostgreSQL a single issuance runs the plpgsql `accolade_issue_credential` (migration 0056),
 * which holds its own copy of the quota check and of the audit and delivery writes; this file builds
 * the rows it writes. The two are held to the same outcomes by the conformance test in
 * test/issuance-round-trips.test.ts ("leaves the same rows whichever path issued", and its quota,
 * duplicate and chain tests), which runs the same expectations on both engines (docs/decisions.md,
 * "Issuance rules in two places"). A change to one path changes the other, or that test fails.
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

  /** The credential row a request would create (not yet stored). */
  function buildRow(
    issuerId: string,
    definition: DefinitionRow,
    input: Omit<IssueRequest, 'definitionId' | 'recipientEmail'> & { recipientHash: string },
  ): CredentialRow {
    const now = isoNow(core.clock);
    const issuedOn = input.issuedOn ? new Date(input.issuedOn).toISOString() : now;
    const expiresOn = input.expiresOn ? new Date(input.expiresOn).toISOString() : expiryFor(definition, issuedOn);
    if (expiresOn !== null && expiresOn <= issuedOn) {
      const message = 'expiresOn must be after the time of issue.';
      throw errors.validation(message, [{ path: '/expiresOn', message, code: 'expiresOn' }]);
    }
    return {
      id: core.ids.ordered(),
      issuer_id: issuerId,
      definition_id: definition.id,
      recipient_hash: input.recipientHash,
      display_name: storableName(input.recipientName).name,
      completion_key: input.completionKey,
      issued_on: issuedOn,
      expires_on: expiresOn,
      revoked_at: null,
      revoked_reason: null,
      evidence_url: input.evidenceUrl ?? null,
      reissued_from: null,
      source: input.source,
      expiry_announced_at: null,
      created_at: now,
      language: issuedLanguage(definition, input.language),
      import_batch_id: null,
    };
  }

  /** What the audit record of a new credential says. */
  const issuedAudit = (row: CredentialRow) => ({
    action: 'credential.issued',
    details: { definitionId: row.definition_id, completionKey: row.completion_key, source: row.source },
  });

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
    kind?: NotificationKind,
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
      // The email is written in the credential's language (issue 45 §2).
      language: row.language,
      ...(kind ? { kind } : {}),
    });
  }

  const postgres = createPostgresIssuance(core.db);
  const knownDefinitions = createDefinitionMemo();

  /**
   * A single issuance on PostgreSQL, where every statement is a round trip: one statement (migration
   * 0052) answers a replay, checks the definition the row was built from and writes everything. The
   * definition is read (with the replay lookup) only the first time this process issues it, or again
   * from the statement's own answer when it changed meanwhile. SQLite's statements run in-process,
   * inside one transaction.
   */
  async function issueOnPostgres(
    issuerId: string,
    actor: string,
    input: IssueRequest,
  ): Promise<{ row: CredentialWithSlugs; created: boolean }> {
    let definition = knownDefinitions.get(issuerId, input.definitionId);
    if (!definition) {
      const read = await postgres.readBeforeIssue(issuerId, input.completionKey, input.definitionId);
      if (read.existing) return { row: read.existing, created: false };
      definition = knownDefinitions.set(issuable(read.definition));
    }
    const identity = await deps.issuers.identity(issuerId);
    const recipientHash = hashRecipientEmail(input.recipientEmail, identity.salt);
    for (let attempt = 1; ; attempt++) {
      const row = buildRow(issuerId, definition, { ...input, recipientHash });
      const stored: CredentialWithSlugs = { ...row, issuer_slug: identity.slug, definition_slug: definition.slug };
      const event = 'credential.issued';
      const outcome = await postgres.issue({
        definition,
        credential: row,
        usage: deps.usage.issuanceCounter(),
        audit: deps.audit.unchained(auditEntry(actor, row, issuedAudit(row))),
        event,
        delivery: deps.outbox.deliveryTemplate(issuerId, event, credentialEventData(urls, stored, core.clock.now())),
      });
      if (outcome.kind === 'created') return { row: stored, created: true };
      if (outcome.kind === 'existing') return { row: outcome.row, created: false };
      knownDefinitions.forget(issuerId, input.definitionId);
      definition = knownDefinitions.set(issuable(outcome.definition));
      if (attempt === MAX_DEFINITION_ATTEMPTS) throw new Error('the definition kept changing during an issuance');
    }
  }

  const sqliteCommits = createGroupCommit(core.db);

  /**
   * A single issuance on SQLite: the replay lookup, the definition, then the writes in a transaction
   * shared with the issuances that arrive meanwhile (one fsync for all of them), each in a savepoint.
   */
  async function issueInTransaction(issuerId: string, actor: string, input: IssueRequest): Promise<IssueOutcome> {
    const existing = await createCredentialRepository(core.db, core.dialect).getByCompletionKey(
      issuerId,
      input.completionKey,
    );
    if (existing) return { row: existing, created: false };
    const definition = await definitionFor(issuerId, input.definitionId);
    const identity = await deps.issuers.identity(issuerId);
    const recipientHash = hashRecipientEmail(input.recipientEmail, identity.salt);
    const row = buildRow(issuerId, definition, { ...input, recipientHash });
    const slugs = { issuer: identity.slug, definition: definition.slug };
    return sqliteCommits.run((trx) => insertInTransaction(trx, actor, row, slugs, issuedAudit(row)));
  }

  const held = createHeldCredentialRepository(core.db);

  /**
   * The same badge to the same person again (issue 46 §3): 409 already_held naming the valid
   * credential they hold under another key. A known completion key is a replay, never refused.
   */
  async function refuseIfHeld(issuerId: string, input: IssueRequest): Promise<void> {
    const repo = createCredentialRepository(core.db, core.dialect);
    if (await repo.getByCompletionKey(issuerId, input.completionKey)) return;
    const identity = await deps.issuers.identity(issuerId);
    const recipientHash = hashRecipientEmail(input.recipientEmail, identity.salt);
    const existing = await held.heldOne(issuerId, input.definitionId, recipientHash, isoNow(core.clock));
    if (existing) throw errors.alreadyHeld(existing.id);
  }

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
    buildRow,

    /** Issues one credential (or returns the existing one for a known completion key). */
    async issue(issuerId: string, actor: string, input: IssueRequest): Promise<IssueOutcome> {
      refuseEmailIn('completionKey', input.completionKey);
      const nameDropped = storableName(input.recipientName).dropped;
      if (input.issuedOn) {
        const problem = issuedOnProblem(input.issuedOn, core.clock.now());
        if (problem) throw errors.validation(problem, [{ path: '/issuedOn', message: problem, code: 'issuedOn' }]);
      }
      if (input.language != null && input.language !== '') requireLanguage(input.language, '/language');
      if (input.ifAlreadyHeld === 'refuse') await refuseIfHeld(issuerId, input);
      const outcome =
        core.dialect === 'postgres'
          ? await issueOnPostgres(issuerId, actor, input)
          : await issueInTransaction(issuerId, actor, input);
      if (outcome.created) {
        core.metrics.credentialsIssued.inc();
        await deps.linkToEarner?.(outcome.row.issuer_id, outcome.row.id, input.recipientEmail);
      }
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
