import { isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import { canonicalJson, sha256Hex } from '../../core/hashing.js';
import type { Executor } from '../../db/database.js';
import { type AuditFilter, type AuditRow, createAuditRepository } from './audit.repository.js';
import type { AuditCheckpoint } from './audit.schemas.js';

export interface AuditEntry {
  issuerId: string;
  /**
   * `key:<API key id>`, `user:<console user id>`, `cli` (the operator's command line), `system` (a
   * job of the service), `wallet` (a holder's wallet through OpenID4VCI) or `anonymous` (a link
   * followed without signing in, such as an unsubscribe).
   */
  actor: string;
  action: string;
  targetType: string;
  targetId: string;
  /** Counts and ids only: never personal data. */
  details?: Record<string, unknown>;
}

export interface ChainReport {
  issuerId: string;
  records: number;
  ok: boolean;
  /** The first place the log does not fit its chains, heads or checkpoint; `id` when a record is named. */
  brokenAt?: { stripe: number; seq: number; id?: string; reason: string };
  /** When the issuer's records were held to a checkpoint: the time it was taken. */
  checkpointTakenAt?: string;
}

/**
 * Each issuer's log is kept as AUDIT_STRIPES independent hash chains; a record joins the chain its
 * target id falls in, so one credential's whole history is one chain. Appending locks only that
 * chain's head, so concurrent issuance for one issuer does not queue on a single row.
 */
export const AUDIT_STRIPES = 8;

export function auditStripe(targetId: string): number {
  return Number.parseInt(sha256Hex(targetId).slice(0, 8), 16) % AUDIT_STRIPES;
}

/**
 * The canonical JSON of a record (keys in code-unit order, no whitespace) in the two parts either
 * side of its `seq`: PostgreSQL issuance numbers the record and hashes it in the database
 * (`accolade_issue_credential`, migration 0029), where only the head's seq is known. Written out
 * directly: this runs once per record, and a batch import appends tens of thousands.
 * test/ingest-audit-hash.test.ts holds it equal to `canonicalJson`.
 */
export function recordJsonAroundSeq(row: Omit<AuditRow, 'hash' | 'prev_hash' | 'seq'>): [string, string] {
  const json = JSON.stringify;
  return [
    `{"action":${json(row.action)},"actor":${json(row.actor)},"details":${json(row.details)},` +
      `"id":${json(row.id)},"issuerId":${json(row.issuer_id)},"occurredAt":${json(row.occurred_at)},"seq":`,
    `,"stripe":${json(row.stripe)},"targetId":${json(row.target_id)},"targetType":${json(row.target_type)}}`,
  ];
}

/** sha256(prev_hash + canonical JSON of the record). */
export function recordHash(row: Omit<AuditRow, 'hash'>): string {
  const [beforeSeq, afterSeq] = recordJsonAroundSeq(row);
  return sha256Hex(`${row.prev_hash}${beforeSeq}${row.seq}${afterSeq}`);
}

type ChainHead = { seq: number; hash: string };

const ACTOR_NAMES: Record<string, string> = { cli: 'CLI', system: 'System', wallet: 'Wallet', anonymous: 'Anonymous' };

/** The name of an actor no user or key of the issuer names (any more). */
function actorName(actor: string): string {
  if (actor.startsWith('user:')) return 'A removed console user';
  if (actor.startsWith('key:')) return 'API key';
  return ACTOR_NAMES[actor] ?? actor;
}

/**
 * Who acted, as a subject access request tells the person: the kind of actor, never a staff
 * member's address or a key's label (those are the issuer's staff data, not the person's).
 */
const SUBJECT_ACTORS: Record<string, string> = {
  cli: 'The service operator',
  system: 'The service itself',
  wallet: 'A digital wallet',
  anonymous: 'Anonymous',
};
function subjectActor(actor: string): string {
  if (actor.startsWith('user:')) return 'A staff member of the issuer';
  if (actor.startsWith('key:')) return "The issuer's systems (API)";
  return SUBJECT_ACTORS[actor] ?? 'The service itself';
}

/** Every stripe, ascending: the order heads are locked in. */
const ALL_STRIPES = Array.from({ length: AUDIT_STRIPES }, (_, stripe) => stripe);

/** Entries by the stripe their target falls in, stripes ascending, entries in their order. */
function groupByStripe(entries: AuditEntry[]): Map<number, AuditEntry[]> {
  const byStripe = new Map<number, AuditEntry[]>();
  for (const entry of entries) {
    const stripe = auditStripe(entry.targetId);
    const list = byStripe.get(stripe);
    if (list) list.push(entry);
    else byStripe.set(stripe, [entry]);
  }
  return new Map([...byStripe].sort(([a], [b]) => a - b));
}

/** The moved heads of `stripes`, ascending, as `moveHeads` takes them. */
function headsOf(stripes: number[], heads: Map<number, ChainHead>): { stripe: number; seq: number; hash: string }[] {
  return [...stripes]
    .sort((a, b) => a - b)
    .map((stripe) => {
      const head = heads.get(stripe);
      if (!head) throw new Error(`audit head ${stripe} was not returned by its upsert`);
      return { stripe, ...head };
    });
}

/**
 * The append-only audit log with SHA-256 chains per issuer: each record hashes its content with the
 * previous record's hash, so a record altered or removed outside the application breaks its chain.
 */
export function createAuditService(core: Pick<Core, 'db' | 'dialect' | 'clock' | 'ids'>) {
  /**
   * The records of `byStripe`, each chained after its stripe's head in `heads`, which move along
   * (the heads must be locked by the caller's transaction).
   */
  function chainRows(issuerId: string, byStripe: Map<number, AuditEntry[]>, heads: Map<number, ChainHead>): AuditRow[] {
    const occurredAt = isoNow(core.clock);
    const rows: AuditRow[] = [];
    for (const [stripe, entries] of byStripe) {
      const head = heads.get(stripe);
      if (!head) throw new Error(`audit head ${stripe} was not returned by its upsert`);
      let { seq, hash } = head;
      for (const entry of entries) {
        const row: AuditRow = {
          id: core.ids.ordered(),
          issuer_id: issuerId,
          stripe,
          seq: ++seq,
          occurred_at: occurredAt,
          actor: entry.actor,
          action: entry.action,
          target_type: entry.targetType,
          target_id: entry.targetId,
          details: canonicalJson(entry.details ?? {}),
          prev_hash: hash,
          hash: '',
        };
        // recordHash reads every column but `hash`, so the row is hashed in place.
        row.hash = recordHash(row);
        hash = row.hash;
        rows.push(row);
      }
      heads.set(stripe, { seq, hash });
    }
    return rows;
  }

  return {
    /**
     * A record of `entry` but for its place in the chain (seq, prev_hash, hash), with its canonical
     * JSON either side of seq: for a statement that numbers and hashes it where it locks the head.
     */
    unchained(entry: AuditEntry): { row: Omit<AuditRow, 'seq' | 'prev_hash' | 'hash'>; aroundSeq: [string, string] } {
      const row = {
        id: core.ids.ordered(),
        issuer_id: entry.issuerId,
        stripe: auditStripe(entry.targetId),
        occurred_at: isoNow(core.clock),
        actor: entry.actor,
        action: entry.action,
        target_type: entry.targetType,
        target_id: entry.targetId,
        details: canonicalJson(entry.details ?? {}),
      };
      return { row, aroundSeq: recordJsonAroundSeq(row) };
    },

    /** Appends a record inside the caller's transaction (`trx`), so it commits with the change. */
    async append(trx: Executor, entry: AuditEntry): Promise<void> {
      await this.appendMany(trx, entry.issuerId, [entry]);
    },

    /**
     * Appends several records of one issuer in order, with a fixed number of statements whatever
     * their count: the chain heads are locked together in ascending stripe order (so concurrent
     * batches never deadlock), the rows go in as multi-row inserts, and the heads move together.
     */
    async appendMany(trx: Executor, issuerId: string, entries: AuditEntry[]): Promise<void> {
      if (entries.length === 0) return;
      const repo = createAuditRepository(trx, core.dialect);
      const byStripe = groupByStripe(entries);
      const heads = await repo.lockHeads(issuerId, [...byStripe.keys()]);
      await repo.insertMany(chainRows(issuerId, byStripe, heads));
      await repo.moveHeads(issuerId, headsOf([...byStripe.keys()], heads));
    },

    /**
     * A writer of one issuer's records across several appends in the caller's transaction, for batch
     * issuance. The first append locks every stripe's head at once, in ascending order, as a batch
     * of a hundred records or more locks all of them anyway; later appends continue the chains from
     * the heads kept here, so each append is only its inserts (one statement on PostgreSQL, one per
     * 500 records on SQLite) instead of three statements, and `close` moves the heads that moved,
     * once. `close` must run before the transaction commits; a rollback discards everything.
     */
    chainsOf(trx: Executor, issuerId: string) {
      const repo = createAuditRepository(trx, core.dialect);
      // Shared by appends made while the first one still waits for the lock.
      let locked: Promise<Map<number, ChainHead>> | undefined;
      let heads: Map<number, ChainHead> | undefined;
      const moved = new Set<number>();
      return {
        async append(entries: AuditEntry[]): Promise<void> {
          if (entries.length === 0) return;
          locked ??= repo.lockHeads(issuerId, ALL_STRIPES);
          heads = await locked;
          const byStripe = groupByStripe(entries);
          for (const stripe of byStripe.keys()) moved.add(stripe);
          await repo.insertMany(chainRows(issuerId, byStripe, heads));
        },
        async close(): Promise<void> {
          if (!heads || moved.size === 0) return;
          await repo.moveHeads(issuerId, headsOf([...moved], heads));
          moved.clear();
        },
      };
    },

    /**
     * A page of records, each with `actorName`, the actor as the console shows it: a console user's
     * email (staff data, shown to the staff of the same issuer), `API key <label>`, `CLI`, ...
     */
    async list(issuerId: string, limit: number, offset: number, filter: AuditFilter = {}) {
      const repo = createAuditRepository(core.db, core.dialect);
      const { total, rows } = await repo.list(issuerId, limit, offset, filter);
      const idsOf = (prefix: string) => [
        ...new Set(rows.filter((r) => r.actor.startsWith(prefix)).map((r) => r.actor.slice(prefix.length))),
      ];
      const [users, keys] = await Promise.all([
        repo.userEmails(issuerId, idsOf('user:')),
        repo.keyLabels(issuerId, idsOf('key:')),
      ]);
      const names = new Map<string, string>([
        ...users.map((u): [string, string] => [`user:${u.id}`, u.email]),
        ...keys.map((k): [string, string] => [`key:${k.id}`, `API key ${k.label ?? `${k.prefix}…`}`]),
      ]);
      return {
        total,
        limit,
        offset,
        items: rows.map((r) => ({
          id: r.id,
          issuerId: r.issuer_id,
          stripe: r.stripe,
          seq: r.seq,
          occurredAt: r.occurred_at,
          actor: r.actor,
          actorName: names.get(r.actor) ?? actorName(r.actor),
          action: r.action,
          targetType: r.target_type,
          targetId: r.target_id,
          details: JSON.parse(r.details) as Record<string, unknown>,
          prevHash: r.prev_hash,
          hash: r.hash,
        })),
      };
    },

    /** The records about `targetIds` (a person's credentials), oldest first, as a subject access request shows them. */
    async aboutTargets(issuerId: string, targetIds: readonly string[]) {
      const rows = await createAuditRepository(core.db, core.dialect).aboutTargets(issuerId, targetIds);
      return rows.map((r) => ({
        occurredAt: r.occurred_at,
        action: r.action,
        actor: subjectActor(r.actor),
        targetType: r.target_type,
        targetId: r.target_id,
        details: JSON.parse(r.details) as Record<string, unknown>,
      }));
    },

    /**
     * Checkpoints of the log as it stands: per issuer, each stripe's record count and newest hash.
     * Kept elsewhere, a checkpoint lets `verify` prove the log still extends it, which a rewrite
     * that recomputed every hash and head consistently cannot fake.
     */
    async checkpoints(issuerId?: string): Promise<AuditCheckpoint[]> {
      const heads = await createAuditRepository(core.db, core.dialect).heads(issuerId);
      const takenAt = isoNow(core.clock);
      const byIssuer = new Map<string, AuditCheckpoint>();
      if (issuerId) byIssuer.set(issuerId, { issuerId, takenAt, stripes: [] });
      for (const head of heads) {
        const checkpoint = byIssuer.get(head.issuer_id) ?? { issuerId: head.issuer_id, takenAt, stripes: [] };
        byIssuer.set(head.issuer_id, checkpoint);
        checkpoint.stripes.push({ stripe: head.stripe, count: head.seq, hash: head.hash });
      }
      return [...byIssuer.values()];
    },

    /** One issuer's checkpoint (`GET /api/v1/audit/head`). */
    async checkpoint(issuerId: string): Promise<AuditCheckpoint> {
      const [checkpoint = { issuerId, takenAt: isoNow(core.clock), stripes: [] }] = await this.checkpoints(issuerId);
      return checkpoint;
    },

    /**
     * Recomputes every chain of every issuer (or of one) from its first record, holds each chain's
     * end to its head (so records deleted from the end, or whole chains, are found), and, given
     * checkpoints, proves each checkpointed record is still there with the same hash.
     */
    async verify(issuerId?: string, checkpoints: AuditCheckpoint[] = []): Promise<ChainReport[]> {
      const repo = createAuditRepository(core.db, core.dialect);
      const reports = new Map<string, ChainReport>();
      const reportOf = (id: string) => {
        const report = reports.get(id) ?? { issuerId: id, records: 0, ok: true };
        reports.set(id, report);
        return report;
      };
      const breakAt = (report: ChainReport, brokenAt: NonNullable<ChainReport['brokenAt']>) => {
        if (!report.ok) return;
        report.ok = false;
        report.brokenAt = brokenAt;
      };
      const heads = new Map<string, { seq: number; hash: string }>();
      const chains = new Map<string, { issuer_id: string; stripe: number }>();
      for (const head of await repo.heads(issuerId)) {
        heads.set(`${head.issuer_id}/${head.stripe}`, head);
        chains.set(`${head.issuer_id}/${head.stripe}`, head);
      }
      for (const chain of await repo.chains(issuerId)) chains.set(`${chain.issuer_id}/${chain.stripe}`, chain);
      const ordered = [...chains.entries()].sort(([, a], [, b]) =>
        a.issuer_id === b.issuer_id ? a.stripe - b.stripe : a.issuer_id < b.issuer_id ? -1 : 1,
      );
      for (const [key, chain] of ordered) {
        const report = reportOf(chain.issuer_id);
        // The heads were read first: records they count were committed before, so a chain ending
        // short of its head lost records, while records past it may be appends made meanwhile.
        const head = heads.get(key);
        let prevHash = '';
        let hashAtHead: string | undefined;
        let expectedSeq = 1;
        for (;;) {
          const page = await repo.chainPage(chain.issuer_id, chain.stripe, expectedSeq - 1, 1000);
          for (const row of page) {
            report.records++;
            const reason =
              row.seq !== expectedSeq
                ? `expected seq ${expectedSeq}, found ${row.seq} (a record is missing)`
                : row.prev_hash !== prevHash
                  ? 'prev_hash does not match the previous record'
                  : recordHash(row) !== row.hash
                    ? 'content does not match its hash (the record was altered)'
                    : null;
            if (reason) breakAt(report, { stripe: chain.stripe, seq: row.seq, id: row.id, reason });
            if (row.seq === head?.seq) hashAtHead = row.hash;
            prevHash = row.hash;
            expectedSeq = row.seq + 1;
          }
          if (page.length < 1000) break;
        }
        const last = expectedSeq - 1;
        const current = !head || head.seq < last ? await repo.headOf(chain.issuer_id, chain.stripe) : head;
        const stripe = chain.stripe;
        const end = !current
          ? { seq: 1, reason: `stripe ${stripe} has records up to seq ${last} but no head (the head was removed)` }
          : head && head.seq > last
            ? {
                seq: last + 1,
                reason: `stripe ${stripe} ends at seq ${last} but its head is at seq ${head.seq} (the newest records are missing)`,
              }
            : head && hashAtHead !== head.hash
              ? {
                  seq: head.seq,
                  reason: `stripe ${stripe}: its head's hash is not the hash of its record at seq ${head.seq}`,
                }
              : current.seq < last
                ? {
                    seq: current.seq + 1,
                    reason: `stripe ${stripe} runs to seq ${last} past its head at seq ${current.seq} (records were added outside the service)`,
                  }
                : null;
        if (end) breakAt(report, { stripe, ...end });
      }
      for (const checkpoint of checkpoints) {
        if (issuerId && checkpoint.issuerId !== issuerId) continue;
        const report = reportOf(checkpoint.issuerId);
        report.checkpointTakenAt = checkpoint.takenAt;
        for (const kept of checkpoint.stripes) {
          const record = await repo.recordAt(checkpoint.issuerId, kept.stripe, kept.count);
          const reason = !record
            ? `the record at stripe ${kept.stripe} seq ${kept.count} named by the checkpoint of ${checkpoint.takenAt} is missing`
            : record.hash !== kept.hash
              ? `stripe ${kept.stripe} seq ${kept.count} differs from the checkpoint of ${checkpoint.takenAt} (the log was rewritten)`
              : null;
          if (reason)
            breakAt(report, { stripe: kept.stripe, seq: kept.count, ...(record ? { id: record.id } : {}), reason });
        }
      }
      return [...reports.values()];
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
