import { type Insertable, sql } from 'kysely';
import type { Core } from '../../src/core/context.js';
import type { Db, Dialect, Executor } from '../../src/db/database.js';
import type { CredentialsTable, DB, EngagementEventsTable, VerificationEventsTable } from '../../src/db/schema.js';
import { createRollupService } from '../../src/modules/reports/rollup.service.js';

/**
 * Benchmark data, not product code, so it lives under bench/: the analytics workloads and the CLI's
 * `bench-seed` command use it, and `npm run build` compiles it (to dist/bench/lib) through the
 * command's import.
 */
const DAY_MS = 86_400_000;
/** Seeded credentials and events spread over this many days before now. */
const BENCH_SPAN_DAYS = 365;
/** Rows per INSERT statement: 15 credential columns x 500 stays under both engines' parameter limits. */
const ROWS_PER_STATEMENT = 500;
/** Rows per transaction: big enough to amortise the commit, small enough to bound the WAL. */
const ROWS_PER_TRANSACTION = 10_000;
const EXPIRING_DAYS = 180;
const REVOKED_SHARE = 0.05;
const CHANNELS = ['api', 'api', 'api', 'bulk', 'bulk', 'page'] as const;
const ACTIONS = ['linkedin', 'wallet_apple', 'wallet_google', 'share_link'] as const;
const COUNTRIES = ['AU', 'AU', 'AU', 'NZ', 'US', 'GB', 'DE', 'IN', 'SG', 'ZZ'] as const;
const PATHWAY_STAGES = 3;
const PATHWAYS = 2;

export interface BenchSeedOptions {
  issuerId: string;
  credentials: number;
  verifications: number;
  engagements: number;
  definitions: number;
}

export interface BenchSeedResult {
  definitions: number;
  pathways: number;
  credentials: number;
  verifications: number;
  engagements: number;
  seconds: number;
}

/** A seeded, reproducible stream of numbers in [0, 1) (mulberry32), so every run has the same shape. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function pick<T>(values: readonly T[], r: number): T {
  return values[Math.floor(r * values.length)] as T;
}

/**
 * SQLite's default page cache is 2 MB; a million random ids and hashes going into indexes many
 * times that size would re-read pages from the OS on every insert. This console process may use more.
 */
async function prepareBulkLoad(db: Db, dialect: Dialect): Promise<void> {
  if (dialect === 'sqlite') await sql`pragma cache_size = -262144`.execute(db);
}

/**
 * PostgreSQL answers the reports from index-only scans once VACUUM has marked the new pages
 * all-visible; until autovacuum gets there every index entry costs a heap visit, so seeding does it
 * at once, for the rollup's summaries too (built after the raw rows). SQLite has no such map.
 */
async function refreshStatistics(db: Db, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  for (const table of [
    'credentials',
    'verification_events',
    'engagement_events',
    'report_credential_days',
    'report_verified_credentials',
    'report_verified_credential_days',
    'report_pathway_recipients',
  ]) {
    await sql`vacuum analyze ${sql.table(table)}`.execute(db);
  }
}

/** Inserts `count` generated rows, ROWS_PER_STATEMENT per statement, ROWS_PER_TRANSACTION per commit. */
async function insertAll<T extends keyof DB>(
  db: Db,
  table: T,
  count: number,
  row: (index: number) => Insertable<DB[T]>,
): Promise<void> {
  for (let start = 0; start < count; start += ROWS_PER_TRANSACTION) {
    const end = Math.min(count, start + ROWS_PER_TRANSACTION);
    await db.transaction().execute(async (trx: Executor) => {
      for (let first = start; first < end; first += ROWS_PER_STATEMENT) {
        const rows: Insertable<DB[T]>[] = [];
        for (let i = first; i < Math.min(end, first + ROWS_PER_STATEMENT); i++) rows.push(row(i));
        // Kysely cannot type values() for a table picked by a type parameter; `row` is typed for it.
        await trx
          .insertInto(table)
          .values(rows as never)
          .execute();
      }
    });
  }
}

/**
 * Synthetic data for the benchmark harness: definitions (every third one expiring), two pathways,
 * credentials spread over the last year (some revoked, some expired), and verification and
 * engagement events after their credential's issue, with mixed channels, actions and countries.
 * It writes rows directly, without audit records, quota counting or webhooks: it is load, not history.
 * The daily rollup is rebuilt at the end, as a server would have built it day by day.
 */
export function createBenchSeeder(core: Pick<Core, 'db' | 'database' | 'dialect' | 'clock' | 'ids'>) {
  return {
    async seed(options: BenchSeedOptions): Promise<BenchSeedResult> {
      const started = performance.now();
      await prepareBulkLoad(core.db, core.dialect);
      const now = core.clock.now().getTime();
      const nowIso = new Date(now).toISOString();
      const start = now - BENCH_SPAN_DAYS * DAY_MS;
      const iso = (ms: number) => new Date(ms).toISOString();

      const definitionIds: string[] = [];
      const lifetimeDays = new Map<string, number>();
      for (let d = 0; d < options.definitions; d++) {
        const slug = `bench-${d + 1}`;
        await core.db
          .insertInto('definitions')
          .values({
            id: core.ids.uuid(),
            issuer_id: options.issuerId,
            slug,
            name: `Bench definition ${d + 1}`,
            description: 'Synthetic definition for the benchmark.',
            criteria_narrative: null,
            criteria_url: null,
            image_url: null,
            tags: '[]',
            skills: '[]',
            expires_after_days: d % 3 === 2 ? EXPIRING_DAYS : null,
            status: 'active',
            created_at: nowIso,
            updated_at: nowIso,
          })
          .onConflict((oc) => oc.columns(['issuer_id', 'slug']).doNothing())
          .execute();
        const stored = await core.db
          .selectFrom('definitions')
          .select(['id', 'expires_after_days'])
          .where('issuer_id', '=', options.issuerId)
          .where('slug', '=', slug)
          .executeTakeFirstOrThrow();
        definitionIds.push(stored.id);
        if (stored.expires_after_days !== null) lifetimeDays.set(stored.id, stored.expires_after_days);
      }

      const pathways = Math.min(PATHWAYS, Math.floor(definitionIds.length / PATHWAY_STAGES));
      for (let p = 0; p < pathways; p++) {
        const pathwayId = core.ids.uuid();
        await core.db.transaction().execute(async (trx) => {
          await trx
            .insertInto('pathways')
            .values({
              id: pathwayId,
              issuer_id: options.issuerId,
              slug: `bench-pathway-${core.ids.hex(4)}`,
              name: `Bench pathway ${p + 1}`,
              description: 'Synthetic pathway for the benchmark.',
              status: 'active',
              created_at: nowIso,
              updated_at: nowIso,
            })
            .execute();
          await trx
            .insertInto('pathway_stages')
            .values(
              definitionIds.slice(p * PATHWAY_STAGES, (p + 1) * PATHWAY_STAGES).map((definitionId, s) => ({
                id: core.ids.uuid(),
                issuer_id: options.issuerId,
                pathway_id: pathwayId,
                definition_id: definitionId,
                step_order: s + 1,
                required: 1,
                created_at: nowIso,
              })),
            )
            .execute();
        });
      }

      // Ids derive from the credential's number under a per-run random prefix, so events can point
      // at any seeded credential without holding a million ids in memory.
      const prefix = `${core.ids.hex(4)}-${core.ids.hex(2)}-4${core.ids.hex(2).slice(1)}-8${core.ids.hex(2).slice(1)}`;
      const credentialId = (n: number) => `${prefix}-${n.toString(16).padStart(12, '0')}`;
      const issuedAt = (n: number) => start + Math.floor(((n + 0.5) * BENCH_SPAN_DAYS * DAY_MS) / options.credentials);
      // Completion keys continue after an earlier run's, so seeding twice adds rather than collides.
      const { seeded } = await core.db
        .selectFrom('credentials')
        .select((eb) => eb.fn.countAll<number>().as('seeded'))
        .where('issuer_id', '=', options.issuerId)
        .where('completion_key', 'like', 'bench:%')
        .executeTakeFirstOrThrow();
      const keyOffset = Number(seeded);
      const credentialsRandom = random(1);
      const credentialRow = (n: number): Insertable<CredentialsTable> => {
        const definitionId = definitionIds[n % definitionIds.length] as string;
        const issued = issuedAt(n);
        const days = lifetimeDays.get(definitionId);
        const expires = days === undefined ? null : issued + days * DAY_MS;
        const revoked = credentialsRandom() < REVOKED_SHARE ? issued + credentialsRandom() * (now - issued) : null;
        return {
          id: credentialId(n),
          issuer_id: options.issuerId,
          definition_id: definitionId,
          recipient_hash: core.ids.hex(32),
          display_name: null,
          completion_key: `bench:${keyOffset + n}`,
          issued_on: iso(issued),
          expires_on: expires === null ? null : iso(expires),
          revoked_at: revoked === null ? null : iso(revoked),
          revoked_reason: revoked === null ? null : 'bench',
          evidence_url: null,
          reissued_from: null,
          source: 'bench',
          // Seeded history counts as announced, so the expiry sweeper does not replay a year of expiries.
          expiry_announced_at: expires !== null && expires <= now && revoked === null ? iso(expires) : null,
          created_at: iso(issued),
        };
      };
      await insertAll(core.db, 'credentials', options.credentials, credentialRow);
      // The events land in days that are over: drop their rollup, then rebuild it below.
      const rollup = createRollupService(core);
      await rollup.reset(options.issuerId);

      const event = (r: () => number) => {
        const n = Math.floor(r() * options.credentials);
        const issued = issuedAt(n);
        return {
          issuer_id: options.issuerId,
          credential_id: credentialId(n),
          country: pick(COUNTRIES, r()),
          occurred_at: iso(issued + Math.floor(r() * (now - issued))),
        };
      };
      const hasCredentials = options.credentials > 0;
      const verificationsRandom = random(2);
      const verifications = hasCredentials ? options.verifications : 0;
      await insertAll(
        core.db,
        'verification_events',
        verifications,
        (): Insertable<VerificationEventsTable> => ({
          ...event(verificationsRandom),
          channel: pick(CHANNELS, verificationsRandom()),
        }),
      );
      const engagementRandom = random(3);
      const engagements = hasCredentials ? options.engagements : 0;
      await insertAll(
        core.db,
        'engagement_events',
        engagements,
        (): Insertable<EngagementEventsTable> => ({
          ...event(engagementRandom),
          action: pick(ACTIONS, engagementRandom()),
        }),
      );
      await rollup.refresh(options.issuerId, { from: null, to: null }, new Date(now));
      await refreshStatistics(core.db, core.dialect);

      return {
        definitions: definitionIds.length,
        pathways,
        credentials: options.credentials,
        verifications,
        engagements,
        seconds: Math.round((performance.now() - started) / 100) / 10,
      };
    },
  };
}
