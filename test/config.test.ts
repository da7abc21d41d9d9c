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
      bootstrapIssuer: true,
      openRateLimitPerMinute: 300,
      webhookAllowPrivate: false,
      webhookBackoffUnitMs: 60_000,
      webhookDispatch: 'inline',
      expirySweepIntervalMs: 60_000,
      metricsToken: null,
      tls: null,
      trustProxy: false,
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
  ])('refuses %j naming %s', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    try {
      loadConfig(env);
    } catch (err) {
      expect((err as ConfigError).message).toContain(name);
    }
  });
});
