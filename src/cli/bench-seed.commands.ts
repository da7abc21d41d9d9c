import { parseArgs } from 'node:util';
import { createBenchSeeder } from '../modules/reports/bench-seed.js';
import { type CliCommand, requireOption, UsageError } from './context.js';

const USAGE =
  'bench-seed --issuer <slug> --credentials N --verifications N [--engagements N] [--definitions N (default 20)]';

function count(value: string | undefined, name: string, fallback?: number): number {
  if (value === undefined && fallback !== undefined) return fallback;
  const parsed = Number(value);
  if (value === undefined || !Number.isSafeInteger(parsed) || parsed < 0) {
    throw new UsageError(`--${name} takes a whole number; ${USAGE}`);
  }
  return parsed;
}

/**
 * `accolade bench-seed`: fills an existing issuer with synthetic credentials and events for the
 * benchmark harness (set-based inserts), then prints what it wrote and how long it took.
 */
export const benchSeedCommand: CliCommand = async (args, ctx) => {
  const { values } = parseArgs({
    args,
    options: {
      issuer: { type: 'string' },
      credentials: { type: 'string' },
      verifications: { type: 'string' },
      engagements: { type: 'string' },
      definitions: { type: 'string' },
    },
  });
  const issuer = await ctx.services.issuers.getIssuerBySlug(requireOption(values, 'issuer'));
  const verifications = count(values.verifications, 'verifications');
  const definitions = count(values.definitions, 'definitions', 20);
  if (definitions < 1) throw new UsageError('--definitions must be at least 1');
  const result = await createBenchSeeder(ctx.core).seed({
    issuerId: issuer.id,
    credentials: count(values.credentials, 'credentials'),
    verifications,
    engagements: count(values.engagements, 'engagements', Math.floor(verifications / 10)),
    definitions,
  });
  ctx.out(
    `Seeded issuer ${issuer.slug}: ${result.definitions} definitions, ${result.pathways} pathways, ` +
      `${result.credentials} credentials, ${result.verifications} verifications, ` +
      `${result.engagements} engagements in ${result.seconds} s.`,
  );
  return 0;
};
