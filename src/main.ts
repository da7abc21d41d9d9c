/** The server itself: config, database, app, listen, and a graceful close. Started by server.ts. */
import { readFileSync } from 'node:fs';
import { buildApp, logOptions } from './app.js';
import { requireSigningSecret } from './core/kek.js';
import { logDestination } from './core/log-destination.js';
import { bootstrapDemoIssuer } from './modules/issuers/bootstrap.js';
import { configOrExit, openDatabase, openRedis } from './runtime.js';

const SHUTDOWN_GRACE_MS = 10_000;
/** How long an exit waits for buffered log lines to reach stdout: stdout may be closed or unread. */
const LOG_FLUSH_BOUND_MS = 2_000;

async function main(): Promise<void> {
  const config = configOrExit();
  // The issuers' signing keys need a key-encryption key: on PostgreSQL only SIGNING_KEY_SECRET gives one.
  requireSigningSecret(config);
  const database = await openDatabase(config);
  const redis = await openRedis(config);
  // Listen at once: ioredis reports an unreachable Redis before the app (and its logger) exists.
  // The rate limiter counts per replica meanwhile, so nothing is lost by logging from then on.
  let logRedisError: (err: Error) => void = () => {};
  redis?.on('error', (err) => logRedisError(err));
  const log = logDestination();
  const app = await buildApp({
    config,
    database,
    redis,
    logger: { ...logOptions(config.logLevel), stream: log.stream },
    https: config.tls ? { key: readFileSync(config.tls.keyFile), cert: readFileSync(config.tls.certFile) } : null,
  });
  logRedisError = (err) => app.log.warn({ err }, 'redis error');

  const address = await app.listen({ port: config.port, host: config.host });
  const banner =
    (await bootstrapDemoIssuer(config, app.services.issuers, app.services.accounts, address)) ??
    (await app.services.setup.open());
  if (banner) process.stdout.write(`${banner}\n`);

  let closing = false;
  const exit = (code: number) => log.endWithin(LOG_FLUSH_BOUND_MS).then(() => process.exit(code));
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    const timer = setTimeout(() => {
      app.log.error('shutdown grace period elapsed; exiting');
      void exit(1);
    }, SHUTDOWN_GRACE_MS);
    timer.unref();
    // The app's own onClose hooks flush buffered events and finish deliveries, so the database and
    // Redis close only after app.close() has resolved.
    app
      .close()
      .then(async () => {
        redis?.disconnect();
        await database.close();
      })
      .then(
        () => exit(0),
        (err) => {
          app.log.error({ err }, 'error during shutdown');
          return exit(1);
        },
      );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(`accolade failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
