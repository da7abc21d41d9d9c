import type { FastifyInstance } from 'fastify';
import { type CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { createDatabase, type Database, migrateToLatest } from '../src/db/database.js';
import { createVerificationRepository } from '../src/modules/verification/verification.repository.js';
import { auth, dialects, freshDatabase, type TestDatabase, testConfig } from './helpers.js';
import { statementCounter } from './statement-count.support.js';

/**
 * Round trips per public read: every statement a request runs is counted (a Kysely plugin sees each
 * result, prepared statements included), within that request's async context only (entered by an
 * onRequest hook), so the background jobs' statements never count.
 */
const { context: request, plugin: counting } = statementCounter<{ statements: number }>();
const scopes = new Map<string, { statements: number }>();

describe.each(dialects)('public reads on %s', (dialect) => {
  let testDb: TestDatabase;
  let database: Database;
  let app: FastifyInstance;
  let slug: string;
  let definitionSlug: string;
  let badgeEndorsement: string;
  let live: string;
  let revoked: string;
  let reissued: string;
  let replacement: string;
  const endorsementIds: string[] = [];

  /** The answer to GET `url` and how many statements it ran. */
  async function read(url: string) {
    const scope = { statements: 0 };
    scopes.set(url, scope);
    const res = await app.inject({ method: 'GET', url });
    scopes.delete(url);
    return { res, statements: scope.statements };
  }

  beforeAll(async () => {
    testDb = await freshDatabase(dialect);
    // The statements of a read that reaches the database: PostgreSQL's read cache (test/read-cache.test.ts) off.
    const config = testConfig(testDb.url, { READ_CACHE: 'false' });
    database = createDatabase(config.database);
    await migrateToLatest(database);
    const counted = { ...database, db: database.db.withPlugin(counting), reader: database.reader.withPlugin(counting) };
    app = await buildApp({ config, database: counted, logger: false, redis: null });
    app.addHook('onRequest', (req, _reply, done) => {
      const scope = scopes.get(req.url);
      if (scope) request.run(scope, done);
      else done();
    });
    await app.ready();
    const { issuer, key } = await app.services.issuers.createIssuer({
      name: 'Read Institute',
      slug: `reads-${dialect}`,
      email: 'contact@reads.example',
      url: 'https://reads.example',
      plan: 'enterprise',
    });
    slug = issuer.slug;
    const post = async (url: string, payload: object) => {
      const res = await app.inject({ method: 'POST', url, headers: auth(key.key), payload });
      expect(res.statusCode, res.body).toBeLessThan(300);
      return res.json();
    };
    const definition = await post('/api/v1/definitions', { name: 'Reading', description: 'Reads in one query.' });
    const issue = async (n: number) =>
      (
        await post('/api/v1/credentials', {
          definitionId: definition.id,
          recipientEmail: `reader${n}@reads.example`,
          completionKey: `read-${n}`,
        })
      ).credentialId as string;
    live = await issue(1);
    revoked = await issue(2);
    reissued = await issue(3);
    for (const claim of ['First endorsement', 'Second endorsement']) {
      endorsementIds.push(
        (await post(`/api/v1/credentials/${live}/endorsements`, { endorserName: 'Reviewer', claim })).id,
      );
    }
    definitionSlug = definition.slug;
    badgeEndorsement = (
      await post(`/api/v1/definitions/${definition.id}/endorsements`, { endorserName: 'Guild', claim: 'Badge claim' })
    ).id;
    for (const targetName of ['First skill', 'Second skill']) {
      await post(`/api/v1/definitions/${definition.id}/alignments`, {
        targetName,
        targetUrl: `https://framework.example/${targetName.split(' ')[0]}`,
      });
    }
    await post(`/api/v1/credentials/${revoked}/revoke`, { reason: 'Issued in error' });
    replacement = (await post(`/api/v1/credentials/${reissued}/reissue`, {})).credentialId;
  });

  afterAll(async () => {
    await app.close();
    await database.close();
    await testDb.drop();
  });

  it('answers a hosted assertion with its endorsements, oldest first, in one statement', async () => {
    const { res, statements } = await read(`/v1/issuers/${slug}/assertions/${live}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().endorsement).toEqual(
      endorsementIds.map((id) => `https://badges.test/v1/issuers/${slug}/endorsements/${id}`),
    );
    expect(statements).toBe(1);
  });

  it('reads concurrent hosted assertions together, each answer its own', async () => {
    const ids = [live, revoked, reissued, replacement];
    const urls = Array.from({ length: 16 }, (_, n) => `/v1/issuers/${slug}/assertions/${ids[n % 4]}?n=${n}`);
    const answers = await Promise.all(urls.map((url) => read(url)));
    answers.forEach(({ res }, n) => {
      expect(res.statusCode).toBe(ids[n % 4] === revoked || ids[n % 4] === reissued ? 410 : 200);
      expect(res.json().id).toBe(`https://badges.test/v1/issuers/${slug}/assertions/${ids[n % 4]}`);
    });
    const statements = answers.reduce((sum, a) => sum + a.statements, 0);
    // A reissue revokes the original, so two of the four answer 410. Reads asked while others are out go together.
    expect(statements).toBeLessThan(urls.length);
  });

  it('answers a revoked assertion (410) and a baked assertion image in one statement each', async () => {
    const gone = await read(`/v1/issuers/${slug}/assertions/${revoked}`);
    expect(gone.res.statusCode).toBe(410);
    expect(gone.statements).toBe(1);
    const image = await read(`/v1/issuers/${slug}/assertions/${live}/image.svg`);
    expect(image.res.statusCode).toBe(200);
    expect(image.res.body).toContain(`/v1/issuers/${slug}/assertions/${live}`);
    expect(image.statements).toBe(1);
  });

  it('answers a BadgeClass with its alignments and endorsements, and its image, in one statement each', async () => {
    const { res, statements } = await read(`/v1/issuers/${slug}/badges/${definitionSlug}`);
    expect(res.statusCode, res.body).toBe(200);
    const badge = res.json();
    expect(badge.alignment).toEqual([
      { targetName: 'First skill', targetUrl: 'https://framework.example/First' },
      { targetName: 'Second skill', targetUrl: 'https://framework.example/Second' },
    ]);
    expect(badge.endorsement).toEqual([`https://badges.test/v1/issuers/${slug}/endorsements/${badgeEndorsement}`]);
    expect(statements).toBe(1);
    const image = await read(`/v1/issuers/${slug}/badges/${definitionSlug}/image.svg`);
    expect(image.res.statusCode).toBe(200);
    expect(image.res.body).toContain('Read Institute');
    expect(image.statements).toBe(1);
    const missing = await read(`/v1/issuers/${slug}/badges/no-such-badge`);
    expect(missing.res.statusCode).toBe(404);
    expect(missing.statements).toBe(1);
  });

  it('answers an unknown assertion, or one under another slug, 404 in one statement', async () => {
    for (const url of [`/v1/issuers/${slug}/assertions/nope`, `/v1/issuers/other-${slug}/assertions/${live}`]) {
      const { res, statements } = await read(url);
      expect(res.statusCode).toBe(404);
      expect(statements).toBe(1);
    }
  });

  it('renders the verification page with alignments, endorsements of badge then credential, in one statement', async () => {
    const { res, statements } = await read(`/verify/${slug}/${live}`);
    expect(res.statusCode).toBe(200);
    const at = (text: string) => res.body.indexOf(text);
    for (const text of ['First skill', 'Second skill', 'Badge claim', 'First endorsement', 'Second endorsement']) {
      expect(at(text), text).toBeGreaterThan(0);
    }
    expect(at('First skill')).toBeLessThan(at('Second skill'));
    expect(at('Badge claim')).toBeLessThan(at('First endorsement'));
    expect(at('First endorsement')).toBeLessThan(at('Second endorsement'));
    expect(statements).toBe(1);
  });

  it("links a reissued credential's page to its replacement, in one statement", async () => {
    const { res, statements } = await read(`/verify/${slug}/${reissued}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(`href="https://badges.test/verify/${slug}/${replacement}">See the newer credential`);
    expect(statements).toBe(1);
  });

  it("finds a page's replacement through the replacement index, not by walking the issuer's credentials", async () => {
    if (dialect === 'sqlite') {
      // The page's own statement, as the repository compiles it, seen on its way to the database.
      const statements: CompiledQuery[] = [];
      const db = database.db;
      const seeing = new Proxy(db, {
        get(target, property) {
          if (property === 'executeQuery') {
            return (query: CompiledQuery) => {
              statements.push(query);
              return target.executeQuery(query);
            };
          }
          const value = Reflect.get(target, property);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      await createVerificationRepository(seeing, dialect).findForPageByIds([reissued]);
      const [page] = statements;
      expect(page).toBeDefined();
      const plan = await db.executeQuery<{ detail: string }>({
        ...(page as CompiledQuery),
        sql: `explain query plan ${page?.sql}`,
      });
      const details = plan.rows.map((r) => r.detail).join('\n');
      expect(details).toContain('credentials_issuer_reissued_from_created');
      expect(details).not.toContain('credentials_issuer_created');
    } else {
      const { rows } = await sql<{ indexdef: string }>`select indexdef from pg_indexes
        where tablename = 'credentials' and indexname = 'credentials_issuer_reissued_from_created'`.execute(
        database.db,
      );
      expect(rows[0]?.indexdef).toMatch(
        /\(issuer_id, reissued_from, created_at, id\) WHERE \(reissued_from IS NOT NULL\)/,
      );
    }
  });
});
