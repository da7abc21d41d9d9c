import { type CliCommand, parseOptions, printTable, requireOption, UsageError } from './context.js';

const USAGE =
  'webhooks add --issuer <slug> --url <https url> --events a,b | webhooks list --issuer <slug> | webhooks remove --issuer <slug> --id <id>';

export const webhooksCommand: CliCommand = async (args, ctx) => {
  const [action, ...rest] = args;
  const values = parseOptions(rest, {
    issuer: { type: 'string' },
    url: { type: 'string' },
    events: { type: 'string' },
    id: { type: 'string' },
  });
  const { subscriptions } = ctx.services.webhooks;
  switch (action) {
    case 'add': {
      const issuer = await ctx.services.issuers.getIssuerBySlug(requireOption(values, 'issuer'));
      const events = requireOption(values, 'events')
        .split(',')
        .map((e) => e.trim())
        .filter((e) => e !== '');
      const created = await subscriptions.create(issuer.id, 'cli', { url: requireOption(values, 'url'), events });
      ctx.out(`Created webhook ${created.id} -> ${created.url} for ${created.events.join(', ')}.`);
      ctx.out(`Signing secret (shown only this once): ${created.secret}`);
      return 0;
    }
    case 'list': {
      const issuer = await ctx.services.issuers.getIssuerBySlug(requireOption(values, 'issuer'));
      const rows = (await subscriptions.list(issuer.id)).map((w) => [w.id, w.url, w.events.join(','), w.createdAt]);
      printTable(ctx.out, ['ID', 'URL', 'EVENTS', 'CREATED'], rows, 'No webhooks.');
      return 0;
    }
    case 'remove': {
      const issuer = await ctx.services.issuers.getIssuerBySlug(requireOption(values, 'issuer'));
      const id = requireOption(values, 'id');
      await subscriptions.remove(issuer.id, 'cli', id);
      ctx.out(`Webhook ${id} removed; its undelivered events are cancelled.`);
      return 0;
    }
    default:
      throw new UsageError(USAGE);
  }
};

/**
 * `accolade worker`: delivers webhooks and announces expiries in a process of its own (run any
 * number of them on PostgreSQL, one on SQLite) until SIGTERM or SIGINT, then finishes the deliveries
 * in flight before exiting.
 */
export const workerCommand: CliCommand = async (args, ctx) => {
  if (args.length > 0) throw new UsageError('worker takes no arguments');
  const { dispatcher, expirySweeper } = ctx.services.webhooks;
  const signal = await new Promise<string>((resolve) => {
    const onSignal = (name: string) => () => {
      process.off('SIGTERM', onTerm);
      process.off('SIGINT', onInt);
      resolve(name);
    };
    const onTerm = onSignal('SIGTERM');
    const onInt = onSignal('SIGINT');
    process.on('SIGTERM', onTerm);
    process.on('SIGINT', onInt);
    dispatcher.start();
    expirySweeper.start();
    ctx.out(`Worker ${process.pid} delivering webhooks and announcing expiries (${ctx.database.dialect}).`);
  });
  ctx.out(`${signal} received: finishing deliveries in flight.`);
  await Promise.all([dispatcher.stop(), expirySweeper.stop()]);
  ctx.out('Worker stopped.');
  return 0;
};
