import { createBenchSeeder } from '../../bench/lib/bench-seed.js';
import { type CliCommand, integerOption, parseOptions, requireOption, UsageError } from './context.js';

const USAGE =
  'bench-seed --issuer <slug> --credentials N --verifications N [--engagements N] [--definitions N (default 20)]';

function count(values: Record<string, string | undefined>, name: string, fallback?: number): number {
  const parsed = integerOption(values, name);
  if (parsed !== undefined) return parsed;
  if (fallback !== undefined) return fallback;
  throw new UsageError(`--${name} is required; ${USAGE}`);
}

/**
 * `accolade bench-seed`: fills an existing issuer with synthetic credentials and events for the
 * benchmark harness (set-based inserts), then prints what it wrote and how long it took. The seeding
 * is audited as one `bench.seeded` record (actor `cli`) with its counts.
 */
export const benchSeedCommand: CliCommand = async (args, ctx) => {
  const values = parseOptions(args, {
    issuer: { type: 'string' },
    credentials: { type: 'string' },
    verifications: { type: 'string' },
    engagements: { type: 'string' },
    definitions: { type: 'string' },
  });
  const slug = requireOption(values, 'issuer');
  const verifications = count(values, 'verifications');
  const credentials = count(values, 'credentials');
  const engagements = count(values, 'engagements', Math.floor(verifications / 10));
  const definitions = count(values, 'definitions', 20);
  if (definitions < 1) throw new UsageError('--definitions must be at least 1');
  const issuer = await ctx.services.issuers.getIssuerBySlug(slug);
  const result = await createBenchSeeder(ctx.core).seed({
    issuerId: issuer.id,
    credentials,
    verifications,
    engagements,
    definitions,
  });
  await ctx.core.db.transaction().execute((trx) =>
    ctx.services.audit.append(trx, {
      issuerId: issuer.id,
      actor: 'cli',
      action: 'bench.seeded',
      targetType: 'issuer',
      targetId: issuer.id,
      details: {
        definitions: result.definitions,
        pathways: result.pathways,
        credentials: result.credentials,
        verifications: result.verifications,
        engagements: result.engagements,
      },
    }),
  );
  ctx.out(
    `Seeded issuer ${issuer.slug}: ${result.definitions} definitions, ${result.pathways} pathways, ` +
      `${result.credentials} credentials, ${result.verifications} verifications, ` +
      `${result.engagements} engagements in ${result.seconds} s.`,
  );
  return 0;
};
