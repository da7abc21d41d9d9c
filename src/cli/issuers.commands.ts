import { readFile } from 'node:fs/promises';
import { isoNow } from '../core/clock.js';
import { checkpointsOf } from '../modules/audit/checkpoint.js';
import { curlExample } from '../modules/issuers/bootstrap.js';
import { type CliCommand, integerOption, parseOptions, printTable, requireOption, UsageError } from './context.js';

/** The actor the console's changes are audited under. */
const CLI = 'cli';

export const issuersCommand: CliCommand = async (args, ctx) => {
  const [action, ...rest] = args;
  const { issuers } = ctx.services;
  if (action === 'create') {
    const values = parseOptions(rest, {
      name: { type: 'string' },
      slug: { type: 'string' },
      email: { type: 'string' },
      url: { type: 'string' },
      plan: { type: 'string' },
      description: { type: 'string' },
      'brand-color': { type: 'string' },
      'logo-url': { type: 'string' },
      'image-url': { type: 'string' },
    });
    const { issuer, key } = await issuers.createIssuer(
      {
        name: requireOption(values, 'name'),
        slug: requireOption(values, 'slug'),
        email: requireOption(values, 'email'),
        url: requireOption(values, 'url'),
        plan: values.plan ?? 'free',
        description: values.description ?? null,
        brandPrimaryColor: values['brand-color'] ?? null,
        brandLogoUrl: values['logo-url'] ?? null,
        imageUrl: values['image-url'] ?? null,
      },
      CLI,
    );
    ctx.out(`Created issuer ${issuer.slug} (${issuer.id}) on plan ${issuer.plan_code}.`);
    ctx.out(`API key (shown only this once): ${key.key}`);
    ctx.out(`Try it: ${curlExample(ctx.config.publicBaseUrl, key.key)}`);
    return 0;
  }
  if (action === 'list') {
    parseOptions(rest, {});
    const rows = (await issuers.listIssuers()).map((i) => [i.slug, i.id, i.plan_code, i.name]);
    printTable(ctx.out, ['SLUG', 'ID', 'PLAN', 'NAME'], rows, 'No issuers.');
    return 0;
  }
  throw new UsageError('issuers create --name --slug --email --url [--plan] | issuers list');
};

const KEYS_USAGE =
  'keys create [--label <text>] | list | revoke --key <id|prefix> | rotate (--key <id|prefix> | --all) [--grace <seconds>], each with --issuer <slug>';

/** Prints what became of a key a rotation replaced. */
function printEnding(out: (line: string) => void, now: string, k: { id: string; prefix: string; stopsAt: string }) {
  out(
    k.stopsAt <= now
      ? `Previous key ${k.prefix}… (id ${k.id}) is revoked.`
      : `Previous key ${k.prefix}… (id ${k.id}) stops working at ${k.stopsAt}.`,
  );
}

export const keysCommand: CliCommand = async (args, ctx) => {
  const [action, ...options] = args;
  // `--all` takes no value; every other option does.
  const all = options.includes('--all');
  const rest = options.filter((arg) => arg !== '--all');
  if (all && action !== 'rotate') throw new UsageError(KEYS_USAGE);
  const values = parseOptions(rest, {
    issuer: { type: 'string' },
    key: { type: 'string' },
    label: { type: 'string' },
    grace: { type: 'string' },
  });
  const { issuers } = ctx.services;
  const slug = requireOption(values, 'issuer');
  switch (action) {
    case 'create': {
      const key = await issuers.createKey(slug, values.label ?? null, CLI);
      ctx.out(`API key ${key.prefix}… (id ${key.id}), shown only this once: ${key.key}`);
      return 0;
    }
    case 'list': {
      const now = isoNow(ctx.core.clock);
      const rows = (await issuers.listKeys(slug)).map((k) => [
        k.id,
        `${k.prefix}…`,
        k.revokedAt === null ? 'active' : k.revokedAt > now ? 'grace' : 'revoked',
        k.createdAt,
        k.revokedAt ?? '-',
        k.label ?? '',
      ]);
      printTable(ctx.out, ['ID', 'PREFIX', 'STATUS', 'CREATED', 'STOPS', 'LABEL'], rows, 'No keys.');
      return 0;
    }
    case 'revoke':
      await issuers.revokeKey(slug, requireOption(values, 'key'), CLI);
      ctx.out('Key revoked.');
      return 0;
    case 'rotate': {
      const grace = integerOption(values, 'grace') ?? 0;
      // Rotating one key never touches the others; all of them at once must be asked for by name.
      if (all === (values.key !== undefined)) {
        throw new UsageError('keys rotate needs --key <id|prefix> (that key alone) or --all (every key)');
      }
      if (values.key !== undefined) {
        const { key, label, previous } = await issuers.rotateKey(slug, values.key, grace, CLI);
        ctx.out(
          `New API key ${key.prefix}… (id ${key.id}${label ? `, label "${label}"` : ''}), shown only this once: ${key.key}`,
        );
        printEnding(ctx.out, isoNow(ctx.core.clock), previous);
        return 0;
      }
      const { key, previous } = await issuers.rotateKeys(slug, grace, CLI);
      ctx.out(`New API key (shown only this once): ${key.key}`);
      const now = isoNow(ctx.core.clock);
      for (const k of previous) printEnding(ctx.out, now, k);
      if (previous.length === 0) ctx.out('No previous key was still working.');
      return 0;
    }
    default:
      throw new UsageError(KEYS_USAGE);
  }
};

const PLANS_USAGE =
  'plans list | plans set --issuer <slug> --plan <code> | plans set --plan <code> [--quota N|unlimited] [--premium true|false] [--rpm N]';

export const plansCommand: CliCommand = async (args, ctx) => {
  const [action, ...rest] = args;
  const { issuers } = ctx.services;
  if (action === 'list') {
    parseOptions(rest, {});
    const rows = (await issuers.listPlans()).map((p) => [
      p.code,
      `${p.issuance_quota ?? 'unlimited'}/month`,
      p.premium_verification ? 'yes' : 'no',
      `${p.requests_per_minute}/min`,
    ]);
    printTable(ctx.out, ['PLAN', 'QUOTA', 'PREMIUM', 'REQUESTS'], rows, 'No plans.');
    return 0;
  }
  if (action === 'set') {
    const values = parseOptions(rest, {
      issuer: { type: 'string' },
      plan: { type: 'string' },
      quota: { type: 'string' },
      premium: { type: 'string' },
      rpm: { type: 'string' },
    });
    const plan = requireOption(values, 'plan');
    if (values.issuer) {
      if (values.quota !== undefined || values.premium !== undefined || values.rpm !== undefined) {
        throw new UsageError(`--issuer moves an issuer to a plan; change the plan's limits without it. ${PLANS_USAGE}`);
      }
      await issuers.setIssuerPlan(values.issuer, plan, CLI);
      ctx.out(`Issuer ${values.issuer} is now on plan ${plan}.`);
      return 0;
    }
    const quota = values.quota === 'unlimited' ? null : integerOption(values, 'quota');
    const rpm = integerOption(values, 'rpm', 1);
    if (values.premium !== undefined && !['true', 'false'].includes(values.premium)) {
      throw new UsageError('--premium takes true or false');
    }
    await issuers.updatePlan(
      plan,
      {
        ...(quota !== undefined ? { issuanceQuota: quota } : {}),
        ...(values.premium !== undefined ? { premiumVerification: values.premium === 'true' } : {}),
        ...(rpm !== undefined ? { requestsPerMinute: rpm } : {}),
      },
      CLI,
    );
    ctx.out(`Plan ${plan} updated.`);
    return 0;
  }
  throw new UsageError(PLANS_USAGE);
};

const AUDIT_USAGE = 'audit verify [--issuer <slug>] [--checkpoint <file>] | audit head [--issuer <slug>]';

export const auditCommand: CliCommand = async (args, ctx) => {
  const [action, ...rest] = args;
  if (action !== 'verify' && action !== 'head') throw new UsageError(AUDIT_USAGE);
  const values = parseOptions(rest, { issuer: { type: 'string' }, checkpoint: { type: 'string' } });
  const issuerId = values.issuer ? (await ctx.services.issuers.getIssuerBySlug(values.issuer)).id : undefined;
  if (action === 'head') {
    if (values.checkpoint !== undefined) throw new UsageError(AUDIT_USAGE);
    const issuers = await ctx.services.audit.checkpoints(issuerId);
    const takenAt = issuers[0]?.takenAt ?? isoNow(ctx.core.clock);
    ctx.out(JSON.stringify({ takenAt, issuers }, null, 2));
    return 0;
  }
  const checkpoints = values.checkpoint === undefined ? [] : await readCheckpoints(values.checkpoint);
  const reports = await ctx.services.audit.verify(issuerId, checkpoints);
  let ok = true;
  for (const r of reports) {
    const extends_ = r.checkpointTakenAt ? `, extends the checkpoint of ${r.checkpointTakenAt}` : '';
    if (r.ok) ctx.out(`${r.issuerId}: ${r.records} records, chain intact${extends_}`);
    else {
      ok = false;
      const at = r.brokenAt;
      ctx.out(
        at?.id
          ? `${r.issuerId}: CHAIN BROKEN at seq ${at.seq} (record ${at.id}): ${at.reason}`
          : `${r.issuerId}: CHAIN BROKEN at stripe ${at?.stripe} seq ${at?.seq}: ${at?.reason}`,
      );
    }
  }
  if (reports.length === 0) ctx.out('No audit records.');
  return ok ? 0 : 2;
};

async function readCheckpoints(file: string) {
  let document: unknown;
  try {
    document = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`--checkpoint ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const checkpoints = checkpointsOf(document);
  if (!checkpoints) {
    throw new UsageError(
      `--checkpoint ${file} is not a checkpoint: keep what \`accolade audit head\` prints or what GET /api/v1/audit/head answers`,
    );
  }
  return checkpoints;
}
