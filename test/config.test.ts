import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, SQLITE_CACHE_MB_DEFAULT } from '../src/config.js';
import { createDatabase } from '../src/db/database.js';

describe('configuration', () => {
  it('defaults to an embedded SQLite file and the documented values', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      publicBaseUrl: 'http://localhost:3000',
      database: {
        dialect: 'sqlite',
        path: './data/accolade.db',
        synchronous: 'FULL',
        cacheMb: SQLITE_CACHE_MB_DEFAULT,
      },
      redisUrl: null,
      bootstrapIssuer: 'setup',
      openRateLimitPerMinute: 300,
      webhookAllowPrivate: false,
      webhookBackoffUnitMs: 60_000,
      webhookDispatch: 'inline',
      expirySweepIntervalMs: 60_000,
      metricsToken: null,
      tls: null,
      trustProxy: false,
      http: { requestTimeoutMs: 30_000, headersTimeoutMs: 10_000, keepAliveTimeoutMs: 72_000 },
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('sizes the SQLite page cache from SQLITE_CACHE_MB', async () => {
    const config = loadConfig({ DATABASE_URL: 'sqlite::memory:', SQLITE_CACHE_MB: '64' });
    expect(config.database).toEqual({ dialect: 'sqlite', path: ':memory:', synchronous: 'FULL', cacheMb: 64 });
    const database = createDatabase(config.database);
    try {
      const { rows } = await sql<{ cache_size: number }>`pragma cache_size`.execute(database.db);
      expect(rows[0]?.cache_size).toBe(-64 * 1024);
    } finally {
      await database.close();
    }
  });

  it('reads PostgreSQL, Redis and the other variables', () => {
    const config = loadConfig({
      PORT: '8080',
      DATABASE_URL: 'postgres://app@db:5432/accolade',
      REDIS_URL: 'redis://cache:6379',
      PUBLIC_BASE_URL: 'https://badges.example.org',
      SQLITE_SYNCHRONOUS: 'NORMAL',
      TLS_CERT_FILE: '/etc/tls/cert.pem',
      TLS_KEY_FILE: '/etc/tls/key.pem',
      GEO_COUNTRY_HEADER: 'CF-IPCountry',
      UNRELATED: 'ignored',
    });
    expect(config.database).toEqual({ dialect: 'postgres', url: 'postgres://app@db:5432/accolade' });
    expect(config.port).toBe(8080);
    expect(config.redisUrl).toBe('redis://cache:6379');
    expect(config.tls).toEqual({ certFile: '/etc/tls/cert.pem', keyFile: '/etc/tls/key.pem' });
    expect(config.geoCountryHeader).toBe('cf-ipcountry');
  });

  it.each([
    [{ DATABASE_URL: 'mysql://root@db/x' }, 'DATABASE_URL'],
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ BOOTSTRAP_ISSUER: 'yes' }, 'BOOTSTRAP_ISSUER'],
    [{ PUBLIC_BASE_URL: 'https://x.example/path/' }, 'PUBLIC_BASE_URL'],
    [{ TLS_CERT_FILE: '/c.pem' }, 'TLS_KEY_FILE'],
    [{ WEBHOOK_DISPATCH: 'sometimes' }, 'WEBHOOK_DISPATCH'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ SQLITE_CACHE_MB: '0' }, 'SQLITE_CACHE_MB'],
    [{ SQLITE_CACHE_MB: '4097' }, 'SQLITE_CACHE_MB'],
    [{ TRUST_PROXY: '0' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: '10.0.0.0/33' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: 'lb.internal' }, 'TRUST_PROXY'],
    [{ HTTP_REQUEST_TIMEOUT_MS: '0' }, 'HTTP_REQUEST_TIMEOUT_MS'],
    [{ HTTP_REQUEST_TIMEOUT_MS: '5000', HTTP_HEADERS_TIMEOUT_MS: '6000' }, 'HTTP_HEADERS_TIMEOUT_MS'],
  ])('refuses %j naming %s', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    try {
      loadConfig(env);
    } catch (err) {
      expect((err as ConfigError).message).toContain(name);
    }
  });

  it('refuses TRUST_PROXY=true, saying what to set instead', () => {
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(
      /TRUST_PROXY.*any client pick its address.*TRUST_PROXY=1.*10\.0\.0\.0\/8/s,
    );
  });

  it('reads TRUST_PROXY as a hop count or a list of proxy addresses and CIDRs', () => {
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.4.7,fd00::/8,loopback' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '192.168.4.7',
      'fd00::/8',
      'loopback',
    ]);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
  });

  it('reads the HTTP timeouts', () => {
    expect(
      loadConfig({
        HTTP_REQUEST_TIMEOUT_MS: '20000',
        HTTP_HEADERS_TIMEOUT_MS: '5000',
        HTTP_KEEP_ALIVE_TIMEOUT_MS: '65000',
      }).http,
    ).toEqual({ requestTimeoutMs: 20_000, headersTimeoutMs: 5_000, keepAliveTimeoutMs: 65_000 });
  });

  it('takes MAIL_FROM as an address or as Name <address>, and sends from the address', () => {
    const from = (value: string) => loadConfig({ SMTP_URL: 'smtp://mail.example:25', MAIL_FROM: value }).mail?.from;
    expect(from('badges@accolade.test')).toBe('badges@accolade.test');
    expect(from('Accolade Badges <badges@accolade.test>')).toBe('badges@accolade.test');
    expect(from('"Accolade, Badges" <badges@accolade.test>')).toBe('badges@accolade.test');
    expect(from('<badges@accolade.test>')).toBe('badges@accolade.test');
  });

  it.each([
    'not-an-address',
    'Accolade <not-an-address>',
    'Accolade <badges@accolade.test',
    'Accolade\r\nBcc: all@example.org <badges@accolade.test>',
    'badges@accolade.test <other@accolade.test> <third@accolade.test>',
  ])('refuses MAIL_FROM %j', (value) => {
    expect(() => loadConfig({ SMTP_URL: 'smtp://mail.example:25', MAIL_FROM: value })).toThrow(/MAIL_FROM/);
  });
});
