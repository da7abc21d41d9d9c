import { isIP } from 'node:net';
import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

const Bool = Type.Union([Type.Literal('true'), Type.Literal('false')]);
const Port = Type.String({ pattern: '^[0-9]{1,5}$' });
const PositiveInt = Type.String({ pattern: '^[1-9][0-9]*$' });
/**
 * MAIL_FROM: an address, or `Name <address>` as mail tools write it (the name may be quoted); no
 * control characters, so nothing can be added to a message's headers through it.
 */
const MAIL_FROM_PATTERN = '^(?:[^\\s@<>]+@[^\\s@<>]+|[^<>\\x00-\\x1f\\x7f]*<[^\\s@<>]+@[^\\s@<>]+>)$';

/** The address of a MAIL_FROM that matched MAIL_FROM_PATTERN (`Name <address>` gives `address`). */
export function mailFromAddress(value: string): string {
  return /<([^<>]+)>$/.exec(value)?.[1] ?? value;
}
/** A wallet-pass service's link, `{assertionUrl}` standing for the (URL-encoded) assertion URL. */
const WalletPassUrl = Type.String({ pattern: '^https?://[^\\s]*\\{assertionUrl\\}[^\\s]*$' });

/** The environment the service reads; every variable is optional and has a default below. */
const EnvSchema = Type.Object({
  PORT: Type.Optional(Port),
  HOST: Type.Optional(Type.String({ minLength: 1 })),
  PUBLIC_BASE_URL: Type.Optional(Type.String({ pattern: '^https?://[^/?#]+$' })),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^(sqlite:.+|postgres(ql)?://.+)$' })),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://.+' })),
  LOG_LEVEL: Type.Optional(
    Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l))),
  ),
  SQLITE_SYNCHRONOUS: Type.Optional(Type.Union([Type.Literal('FULL'), Type.Literal('NORMAL')])),
  SQLITE_CACHE_MB: Type.Optional(PositiveInt),
  BOOTSTRAP_ISSUER: Type.Optional(Bool),
  OPEN_RATE_LIMIT_PER_MINUTE: Type.Optional(PositiveInt),
  WEBHOOK_ALLOW_PRIVATE: Type.Optional(Bool),
  WEBHOOK_BACKOFF_UNIT_MS: Type.Optional(PositiveInt),
  WEBHOOK_DISPATCH: Type.Optional(Type.Union([Type.Literal('inline'), Type.Literal('off')])),
  WEBHOOK_DELIVERY_RETENTION_DAYS: Type.Optional(PositiveInt),
  EXPIRY_SWEEP_INTERVAL_MS: Type.Optional(PositiveInt),
  LTI_SYNC_INTERVAL_MS: Type.Optional(PositiveInt),
  GEO_COUNTRY_HEADER: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9-]+$' })),
  METRICS_TOKEN: Type.Optional(Type.String({ minLength: 16 })),
  TLS_CERT_FILE: Type.Optional(Type.String({ minLength: 1 })),
  TLS_KEY_FILE: Type.Optional(Type.String({ minLength: 1 })),
  TRUST_PROXY: Type.Optional(Type.String({ minLength: 1 })),
  HTTP_REQUEST_TIMEOUT_MS: Type.Optional(PositiveInt),
  HTTP_HEADERS_TIMEOUT_MS: Type.Optional(PositiveInt),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: Type.Optional(PositiveInt),
  TRUST_SUBPROCESSORS_FILE: Type.Optional(Type.String({ minLength: 1 })),
  DATA_RESIDENCY: Type.Optional(Type.String({ minLength: 1 })),
  SMTP_URL: Type.Optional(Type.String({ pattern: '^smtps?://.+' })),
  MAIL_FROM: Type.Optional(Type.String({ pattern: MAIL_FROM_PATTERN })),
  NOTIFY_RATE_PER_MINUTE: Type.Optional(PositiveInt),
  NOTIFY_QUEUE_MAX: Type.Optional(PositiveInt),
  SIGNING_KEY_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  WALLET_APPLE_PASS_URL: Type.Optional(WalletPassUrl),
  WALLET_GOOGLE_PASS_URL: Type.Optional(WalletPassUrl),
  WALLET_OFFER_TTL_DAYS: Type.Optional(PositiveInt),
  CERTIFICATE_FONTS: Type.Optional(Type.String({ minLength: 1 })),
  CONSOLE_SESSION_IDLE_MINUTES: Type.Optional(PositiveInt),
  CONSOLE_SESSION_MAX_HOURS: Type.Optional(PositiveInt),
  READ_CACHE: Type.Optional(Bool),
  READ_CACHE_ENTRIES: Type.Optional(PositiveInt),
});

export type Env = Static<typeof EnvSchema>;

/**
 * SQLite's page cache of the main connection, and of the report reader thread's, each in MiB. It
 * fills as the database grows and counts in the process's resident memory; 8 MiB kept bulk imports
 * at their rate (docs/decisions.md).
 */
export const SQLITE_CACHE_MB_DEFAULT = 8;
const SQLITE_CACHE_MB_MAX = 4096;

export type DatabaseConfig =
  | { dialect: 'sqlite'; path: string; synchronous: 'FULL' | 'NORMAL'; cacheMb: number }
  | { dialect: 'postgres'; url: string };

export interface Config {
  port: number;
  host: string;
  publicBaseUrl: string;
  database: DatabaseConfig;
  redisUrl: string | null;
  logLevel: string;
  /**
   * First start on an empty embedded database: `setup` (unset) prints a one-time link to set up
   * the operator's own organisation in the browser; `demo` (BOOTSTRAP_ISSUER=true, for scripts)
   * creates the demo issuer and prints its key; `off` (false) does neither.
   */
  bootstrapIssuer: 'setup' | 'demo' | 'off';
  openRateLimitPerMinute: number;
  webhookAllowPrivate: boolean;
  webhookBackoffUnitMs: number;
  webhookDispatch: 'inline' | 'off';
  /** Finished webhook deliveries (delivered, failed, cancelled) are deleted after this many days. */
  webhookDeliveryRetentionDays: number;
  expirySweepIntervalMs: number;
  /** How often the LTI score sync reads each placed link's grades (AGS) and roster (NRPS). */
  ltiSyncIntervalMs: number;
  geoCountryHeader: string | null;
  metricsToken: string | null;
  tls: { certFile: string; keyFile: string } | null;
  /** The proxies whose X-Forwarded-* are honoured: a hop count, addresses/CIDRs, or none (false). */
  trustProxy: number | string[] | false;
  /** Node's HTTP timeouts: the whole request (headers and body) must arrive within these. */
  http: { requestTimeoutMs: number; headersTimeoutMs: number; keepAliveTimeoutMs: number };
  trustSubprocessorsFile: string | null;
  dataResidency: string;
  /**
   * Earner notifications; null when no SMTP server is configured (nothing is sent). `from` is
   * MAIL_FROM's address. A name MAIL_FROM gives is not used: every message is shown as from its
   * issuer (the sender name in its settings, else its name).
   */
  mail: { smtpUrl: string; from: string; ratePerMinute: number; maxQueued: number } | null;
  /** Key-encryption secret for the issuers' signing keys (Open Badges 3.0); null: see src/core/kek.ts. */
  signingKeySecret: string | null;
  /** Wallet-pass services by share action; a wallet without one is not offered and its action is 404. */
  walletPassUrls: { wallet_apple: string | null; wallet_google: string | null };
  /** Days an OpenID4VCI wallet offer stays redeemable (WALLET_OFFER_TTL_DAYS). */
  walletOfferTtlDays: number;
  /**
   * Font files (TrueType or OpenType) the operator adds for certificates (CERTIFICATE_FONTS, paths
   * separated by commas), tried in order after the bundled Noto fonts for text they cannot print.
   */
  certificateFonts: string[];
  /** Console sessions end after this long unused (idle) or since sign-in (max), whichever is first. */
  consoleSession: { idleMinutes: number; maxHours: number };
  /**
   * PostgreSQL only: verify, the page and the hosted assertion answered from per-replica caches of at
   * most `maxEntries` rows each, invalidated by the database's notifications (src/db/read-cache.ts).
   */
  readCache: { enabled: boolean; maxEntries: number };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const ENV_KEYS = Object.keys(EnvSchema.properties) as (keyof Env)[];

/**
 * Parses the environment once. Unknown variables are ignored (the process environment holds many);
 * a known variable with a bad value is an error naming the variable.
 */
export function loadConfig(source: Record<string, string | undefined> = process.env): Readonly<Config> {
  const env: Record<string, string> = {};
  for (const key of ENV_KEYS) {
    const value = source[key];
    if (value !== undefined && value !== '') env[key] = value;
  }
  const problems = [...Value.Errors(EnvSchema, env)].map(
    (e) => `${e.path.replace(/^\//, '') || 'environment'}: ${e.message} (got ${JSON.stringify(e.value)})`,
  );
  const tlsCert = env.TLS_CERT_FILE;
  const tlsKey = env.TLS_KEY_FILE;
  if ((tlsCert === undefined) !== (tlsKey === undefined)) {
    problems.push('TLS_CERT_FILE and TLS_KEY_FILE must be set together');
  }
  const port = Number(env.PORT ?? '3000');
  if (!Number.isInteger(port) || port < 0 || port > 65535) problems.push(`PORT: must be 0..65535`);
  const sqliteCacheMb = env.SQLITE_CACHE_MB ? Number(env.SQLITE_CACHE_MB) : SQLITE_CACHE_MB_DEFAULT;
  if (sqliteCacheMb > SQLITE_CACHE_MB_MAX) problems.push(`SQLITE_CACHE_MB: must be 1..${SQLITE_CACHE_MB_MAX}`);
  const trustProxy = parseTrustProxy(env.TRUST_PROXY, problems);
  const http = {
    requestTimeoutMs: Number(env.HTTP_REQUEST_TIMEOUT_MS ?? '30000'),
    headersTimeoutMs: Number(env.HTTP_HEADERS_TIMEOUT_MS ?? '10000'),
    keepAliveTimeoutMs: Number(env.HTTP_KEEP_ALIVE_TIMEOUT_MS ?? '72000'),
  };
  if (http.headersTimeoutMs > http.requestTimeoutMs) {
    problems.push('HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS');
  }
  if (env.SMTP_URL !== undefined && env.MAIL_FROM === undefined) {
    problems.push('MAIL_FROM: required with SMTP_URL (the address notifications are sent from)');
  }
  if (problems.length > 0) throw new ConfigError(problems);

  const e = env as Env;
  const database = parseDatabaseUrl(e.DATABASE_URL ?? 'sqlite:./data/accolade.db', {
    synchronous: e.SQLITE_SYNCHRONOUS ?? 'FULL',
    cacheMb: sqliteCacheMb,
  });
  return Object.freeze({
    port,
    host: e.HOST ?? '127.0.0.1',
    publicBaseUrl: e.PUBLIC_BASE_URL ?? `http://localhost:${port}`,
    database,
    redisUrl: e.REDIS_URL ?? null,
    logLevel: e.LOG_LEVEL ?? 'info',
    bootstrapIssuer: e.BOOTSTRAP_ISSUER === undefined ? 'setup' : e.BOOTSTRAP_ISSUER === 'true' ? 'demo' : 'off',
    openRateLimitPerMinute: Number(e.OPEN_RATE_LIMIT_PER_MINUTE ?? '300'),
    webhookAllowPrivate: e.WEBHOOK_ALLOW_PRIVATE === 'true',
    webhookBackoffUnitMs: Number(e.WEBHOOK_BACKOFF_UNIT_MS ?? '60000'),
    webhookDispatch: e.WEBHOOK_DISPATCH ?? 'inline',
    webhookDeliveryRetentionDays: Number(e.WEBHOOK_DELIVERY_RETENTION_DAYS ?? '30'),
    expirySweepIntervalMs: Number(e.EXPIRY_SWEEP_INTERVAL_MS ?? '60000'),
    ltiSyncIntervalMs: Number(e.LTI_SYNC_INTERVAL_MS ?? '900000'),
    geoCountryHeader: e.GEO_COUNTRY_HEADER?.toLowerCase() ?? null,
    metricsToken: e.METRICS_TOKEN ?? null,
    tls: tlsCert && tlsKey ? { certFile: tlsCert, keyFile: tlsKey } : null,
    trustProxy,
    http,
    trustSubprocessorsFile: e.TRUST_SUBPROCESSORS_FILE ?? null,
    dataResidency: e.DATA_RESIDENCY ?? 'Australia, single region',
    mail:
      e.SMTP_URL && e.MAIL_FROM
        ? {
            smtpUrl: e.SMTP_URL,
            from: mailFromAddress(e.MAIL_FROM),
            ratePerMinute: Number(e.NOTIFY_RATE_PER_MINUTE ?? '600'),
            maxQueued: Number(e.NOTIFY_QUEUE_MAX ?? '100000'),
          }
        : null,
    signingKeySecret: e.SIGNING_KEY_SECRET ?? null,
    walletPassUrls: { wallet_apple: e.WALLET_APPLE_PASS_URL ?? null, wallet_google: e.WALLET_GOOGLE_PASS_URL ?? null },
    walletOfferTtlDays: Number(e.WALLET_OFFER_TTL_DAYS ?? '30'),
    certificateFonts: (e.CERTIFICATE_FONTS ?? '')
      .split(',')
      .map((path) => path.trim())
      .filter((path) => path !== ''),
    consoleSession: {
      idleMinutes: Number(e.CONSOLE_SESSION_IDLE_MINUTES ?? '30'),
      maxHours: Number(e.CONSOLE_SESSION_MAX_HOURS ?? '12'),
    },
    readCache: {
      enabled: (e.READ_CACHE ?? 'true') === 'true',
      maxEntries: Number(e.READ_CACHE_ENTRIES ?? '10000'),
    },
  });
}

/** The names proxy-addr (Fastify's trustProxy) gives to whole address ranges. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function validProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  if (!/^[0-9]{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (version === 4 ? 32 : 128);
}

/**
 * TRUST_PROXY: how many proxies stand in front (a hop count), or their addresses and CIDRs (comma
 * list). `true` would trust every hop, so the left-most X-Forwarded-For entry, which the client
 * writes, would become its address: refused, saying what to set instead.
 */
function parseTrustProxy(value: string | undefined, problems: string[]): number | string[] | false {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') {
    problems.push(
      'TRUST_PROXY: "true" would let any client pick its address (and its rate limit) with X-Forwarded-For; ' +
        'set the number of proxies in front of the service (e.g. TRUST_PROXY=1) or their addresses/CIDRs ' +
        '(e.g. TRUST_PROXY=10.0.0.0/8)',
    );
    return false;
  }
  if (/^[0-9]+$/.test(value)) {
    const hops = Number(value);
    if (hops >= 1 && hops <= 16) return hops;
    problems.push(`TRUST_PROXY: a hop count must be 1..16 (got ${JSON.stringify(value)})`);
    return false;
  }
  const entries = value.split(',').map((entry) => entry.trim());
  const invalid = entries.filter((entry) => !validProxyAddress(entry));
  if (invalid.length > 0) {
    problems.push(
      `TRUST_PROXY: must be a hop count or a comma list of proxy addresses/CIDRs (not ${invalid.map((i) => JSON.stringify(i)).join(', ')})`,
    );
    return false;
  }
  return entries;
}

function parseDatabaseUrl(url: string, sqlite: { synchronous: 'FULL' | 'NORMAL'; cacheMb: number }): DatabaseConfig {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    return { dialect: 'sqlite', path, ...sqlite };
  }
  return { dialect: 'postgres', url };
}
