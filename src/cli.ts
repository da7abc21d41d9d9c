import { pathToFileURL } from 'node:url';
import pino from 'pino';
import { backupCommand } from './cli/backup.commands.js';
import { benchSeedCommand } from './cli/bench-seed.commands.js';
import { type CliCommand, type CliContext, UsageError } from './cli/context.js';
import { auditCommand, issuersCommand, keysCommand, plansCommand } from './cli/issuers.commands.js';
import { ltiCommand } from './cli/lti.commands.js';
import { signingKeysCommand } from './cli/signing.commands.js';
import { ssoCommand } from './cli/sso.commands.js';
import { usersCommand } from './cli/users.commands.js';
import { webhooksCommand, workerCommand } from './cli/webhooks.commands.js';
import { randomIds, systemClock } from './core/clock.js';
import type { Core } from './core/context.js';
import { AppError } from './core/errors.js';
import { scrubLogLine } from './core/log-redaction.js';
import { createMetrics } from './core/metrics.js';
import { configOrExit, openDatabase } from './runtime.js';
import { createServices } from './services.js';

const commands: Record<string, CliCommand> = {
  issuers: issuersCommand,
  keys: (args, ctx) => (args[0] === 'signing' ? signingKeysCommand(args.slice(1), ctx) : keysCommand(args, ctx)),
  lti: ltiCommand,
  plans: plansCommand,
  audit: auditCommand,
  backup: backupCommand,
  'bench-seed': benchSeedCommand,
  sso: ssoCommand,
  users: usersCommand,
  webhooks: webhooksCommand,
  worker: workerCommand,
  migrate: async (_args, ctx) => {
    ctx.out('Schema is up to date.');
    return 0;
  },
};

const HELP = `accolade: the Accolade operator console

  issuers create --name N --slug S --email E --url U [--plan free|starter|growth|enterprise]
  issuers list
  keys create [--label <text>] | list | revoke --key <id|prefix>   each with --issuer <slug>
  keys rotate --issuer <slug> (--key <id|prefix> | --all) [--grace <seconds>]
                         --key: a new key now with the same label; that key alone stops after
                         the grace (default 0), every other key keeps working
                         --all: one new key now; every key of the issuer stops after the grace
  keys signing rotate|list --issuer <slug>   Open Badges 3.0 signing keys (rotation keeps old keys published)
  lti keys rotate [--issuer <slug> [--force]]   the LTI tool key: without --issuer the service's (signs for
                         issuers without their own), with it that issuer's (an hour between rotations
                         unless --force); the new key signs at once, the old stays in /lti/jwks a week
  lti keys list [--issuer <slug>]
  plans list
  plans set --issuer <slug> --plan <code>
  plans set --plan <code> [--quota N|unlimited] [--premium true|false] [--rpm N]
  audit verify [--issuer <slug>] [--checkpoint <file>]   recompute the chains, hold them to their heads
                         (and to a kept checkpoint); exit 2 when broken
  audit head [--issuer <slug>]   print a checkpoint (JSON) to keep elsewhere
  backup <file>          online copy of the SQLite database (PostgreSQL: prints the pg_dump way, exit 2)
  bench-seed --issuer <slug> --credentials N --verifications N [--engagements N] [--definitions 20]
  sso set --issuer <slug> [--provider <name>] [--issuer-url <url>] [--client-id <id>]
          [--client-secret-file <path>] [--domain <domain>|none] [--password on|off]
                         console sign-in through the issuer's OpenID Connect provider
  sso show|remove --issuer <slug>
  users invite --issuer <slug> --email <address> --role owner|issuer|viewer
                         prints a one-time console invite link (72 h)
  webhooks add --issuer <slug> --url <https url> --events credential.issued,credential.revoked
  webhooks list --issuer <slug>
  webhooks remove --issuer <slug> --id <id>
  worker                 deliver webhooks and announce expiries until SIGTERM/SIGINT
  migrate

Reads the same environment as the server (DATABASE_URL, PUBLIC_BASE_URL, ...).`;

/** Runs one console command against the configured database; returns the exit code. */
export async function runCli(argv: string[], out: (line: string) => void = (l) => process.stdout.write(`${l}\n`)) {
  const [name, ...args] = argv;
  const command = name ? commands[name] : undefined;
  if (!command) {
    out(HELP);
    return name === undefined || name === 'help' || name === '--help' ? 0 : 64;
  }
  const config = configOrExit();
  // Scrubbed as the server's lines are: a service's warning may quote an address or a key.
  const log = pino({
    level: config.logLevel === 'info' ? 'warn' : config.logLevel,
    hooks: { streamWrite: scrubLogLine },
  });
  const database = await openDatabase(config, log);
  const core: Core = {
    config,
    database,
    db: database.db,
    dialect: database.dialect,
    clock: systemClock,
    ids: randomIds,
    metrics: createMetrics(),
    log,
  };
  const ctx: CliContext = { config, database, core, services: createServices(core), out };
  try {
    return await command(args, ctx);
  } catch (err) {
    if (err instanceof UsageError || err instanceof AppError || (err instanceof TypeError && 'code' in err)) {
      process.stderr.write(`error: ${err.message}\n`);
      return err instanceof UsageError || err instanceof TypeError ? 64 : 1;
    }
    throw err;
  } finally {
    await database.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href || process.argv[1]?.endsWith('bin/accolade.js')) {
  runCli(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`accolade: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
