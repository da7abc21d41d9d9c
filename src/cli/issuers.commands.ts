import { parseArgs } from 'node:util';
import { curlExample } from '../modules/issuers/bootstrap.js';
import { type CliCommand, requireOption, UsageError } from './context.js';

export const issuersCommand: CliCommand = async (args, ctx) => {
  const [action, ...rest] = args;
  const { issuers } = ctx.services;
  if (action === 'create') {
    const { values } = parseArgs({
      args: rest,
      options: {
        name: { type: 'string' },
        slug: { type: 'string' },
        email: { type: 'string' },
        url: { type: 'string' },
        plan: { type: 'string' },
        description: { type: 'string' },
        'brand-color': { type: 'string' },
        'logo-url': { type: 'string' },
        'image-url': { type: 'string' },
      },
    });
    const { issuer, key } = await issuers.createIssuer({
      name: requireOption(values, 'name'),
      slug: requireOption(values, 'slug'),
      email: requireOption(values, 'email'),
      url: requireOption(values, 'url'),
      plan: values.plan ?? 'free',
      description: values.description ?? null,
      brandPrimaryColor: values['brand-color'] ?? null,
      brandLogoUrl: values['logo-url'] ?? null,
      imageUrl: values['image-url'] ?? null,
    });
    ctx.out(`Created issuer ${issuer.slug} (${issuer.id}) on plan ${issuer.plan_code}.`);
    ctx.out(`API key (shown only this once): ${key.key}`);
    ctx.out(`Try it: ${curlExample(ctx.config, key.key)}`);
    return 0;
  }
  if (action === 'list') {
    for (const i of await issuers.listIssuers()) {
      ctx.out(`${i.slug}\t${i.id}\t${i.plan_code}\t${i.name}`);
    }
    return 0;
  }
  throw new UsageError('issuers create --name --slug --email --url [--plan] | issuers list');
};

export const keysCommand: CliCommand = async (args, ctx) => {
  const [action, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: {
      issuer: { type: 'string' },
      key: { type: 'string' },
      label: { type: 'string' },
      grace: { type: 'string' },
    },
  });
  const { issuers } = ctx.services;
  const slug = requireOption(values, 'issuer');
  switch (action) {
    case 'create': {
      const key = await issuers.createKey(slug, values.label ?? null);
      ctx.out(`API key ${key.prefix}… (id ${key.id}), shown only this once: ${key.key}`);
      return 0;
    }
    case 'list':
      for (const k of await issuers.listKeys(slug)) {
        ctx.out(`${k.id}\t${k.prefix}…\t${k.active ? 'active' : 'revoked'}\t${k.createdAt}\t${k.label ?? ''}`);
      }
      return 0;
    case 'revoke':
      await issuers.revokeKey(slug, requireOption(values, 'key'));
      ctx.out('Key revoked.');
      return 0;
    case 'rotate': {
      const grace = Number(values.grace ?? '0');
      if (!Number.isInteger(grace) || grace < 0) throw new UsageError('--grace takes whole seconds');
      const key = await issuers.rotateKeys(slug, grace);
      ctx.out(`New API key (shown only this once): ${key.key}`);
      ctx.out(grace > 0 ? `Previous keys stop working in ${grace} s.` : 'Previous keys are revoked.');
      return 0;
    }
    default:
      throw new UsageError('keys create|list|revoke|rotate --issuer <slug> [--key <id|prefix>] [--grace <seconds>]');
  }
};

export const plansCommand: CliCommand = async (args, ctx) => {
  const [action, ...rest] = args;
  const { issuers } = ctx.services;
  if (action === 'list') {
    for (const p of await issuers.listPlans()) {
      ctx.out(
        `${p.code}\tquota ${p.issuance_quota ?? 'unlimited'}/month\tpremium ${p.premium_verification ? 'yes' : 'no'}\t${p.requests_per_minute} req/min`,
      );
    }
    return 0;
  }
  if (action === 'set') {
    const { values } = parseArgs({
      args: rest,
      options: {
        issuer: { type: 'string' },
        plan: { type: 'string' },
        quota: { type: 'string' },
        premium: { type: 'string' },
        rpm: { type: 'string' },
      },
    });
    const plan = requireOption(values, 'plan');
    if (values.issuer) {
      await issuers.setIssuerPlan(values.issuer, plan);
      ctx.out(`Issuer ${values.issuer} is now on plan ${plan}.`);
      return 0;
    }
    const quota =
      values.quota === undefined ? undefined : values.quota === 'unlimited' ? null : Number.parseInt(values.quota, 10);
    if (quota !== undefined && quota !== null && !(quota >= 0))
      throw new UsageError('--quota takes a number or "unlimited"');
    if (values.premium !== undefined && !['true', 'false'].includes(values.premium)) {
      throw new UsageError('--premium takes true or false');
    }
    await issuers.updatePlan(plan, {
      ...(quota !== undefined ? { issuanceQuota: quota } : {}),
      ...(values.premium !== undefined ? { premiumVerification: values.premium === 'true' } : {}),
      ...(values.rpm !== undefined ? { requestsPerMinute: Number.parseInt(values.rpm, 10) } : {}),
    });
    ctx.out(`Plan ${plan} updated.`);
    return 0;
  }
  throw new UsageError(
    'plans list | plans set --issuer <slug> --plan <code> | plans set --plan <code> [--quota N|unlimited] [--premium true|false] [--rpm N]',
  );
};

export const auditCommand: CliCommand = async (args, ctx) => {
  const [action, ...rest] = args;
  if (action !== 'verify') throw new UsageError('audit verify [--issuer <slug>]');
  const { values } = parseArgs({ args: rest, options: { issuer: { type: 'string' } } });
  const issuerId = values.issuer ? (await ctx.services.issuers.getIssuerBySlug(values.issuer)).id : undefined;
  const reports = await ctx.services.audit.verify(issuerId);
  let ok = true;
  for (const r of reports) {
    if (r.ok) ctx.out(`${r.issuerId}: ${r.records} records, chain intact`);
    else {
      ok = false;
      ctx.out(
        `${r.issuerId}: CHAIN BROKEN at seq ${r.brokenAt?.seq} (record ${r.brokenAt?.id}): ${r.brokenAt?.reason}`,
      );
    }
  }
  if (reports.length === 0) ctx.out('No audit records.');
  return ok ? 0 : 2;
};
