import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseText, definitionText } from '../src/modules/definitions/definition-translations.js';
import {
  auth,
  createTestApp,
  dialects,
  expectErrorBody,
  manualClock,
  type TestApp,
  type TestIssuer,
} from './helpers.js';
import { importCsv, postJson } from './ingest.support.js';

/*
 * Issue 45 §1: translated definitions, the language an issuance is made in on every channel, and the
 * text every page, email and certificate shows (definitionText), on both engines.
 */

describe.each(dialects)('definition translations on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let b: TestIssuer;
  let definition: { id: string; slug: string; language: string };
  const clock = manualClock('2026-11-21T10:00:00.000Z');

  const call = (method: 'GET' | 'PUT' | 'DELETE' | 'PATCH' | 'POST', url: string, payload?: object, key = a.key) =>
    t.app.inject({ method, url, headers: auth(key), ...(payload ? { payload } : {}) });
  const translations = (lang = '') => `/api/v1/definitions/${definition.id}/translations${lang ? `/${lang}` : ''}`;
  const credential = (id: string) =>
    t.database.db.selectFrom('credentials').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const auditActions = async (issuerId: string) =>
    (await t.database.db.selectFrom('audit_log').select('action').where('issuer_id', '=', issuerId).execute()).map(
      (r) => r.action,
    );

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock });
    a = await t.issuer({ slug: `tr-a-${dialect}` });
    b = await t.issuer({ slug: `tr-b-${dialect}` });
    const res = await call('POST', '/api/v1/definitions', {
      name: 'Forklift Safety',
      description: 'Operates a forklift safely.',
      criteriaNarrative: 'Passed the practical test.',
      slug: 'forklift',
    });
    expect(res.statusCode, res.body).toBe(201);
    definition = res.json();
  });
  afterAll(async () => t.close());

  it("gives a new definition the issuer's language, which the issuer profile sets", async () => {
    expect(definition.language).toBe('en');
    const me = await call('PATCH', '/api/v1/issuer/me', { language: 'FR-ca', linkedinOrganizationId: '1337' }, b.key);
    expect(me.statusCode, me.body).toBe(200);
    expect(me.json()).toMatchObject({ language: 'fr-CA', linkedinOrganizationId: '1337' });
    const created = await call('POST', '/api/v1/definitions', { name: 'Secourisme', description: 'd' }, b.key);
    expect(created.json().language).toBe('fr-CA');
    const own = await call(
      'POST',
      '/api/v1/definitions',
      { name: 'Erste Hilfe', description: 'd', language: 'de' },
      b.key,
    );
    expect(own.json().language).toBe('de');
    expectErrorBody(await call('PATCH', '/api/v1/issuer/me', { language: 'en_US' }, b.key), 400, 'validation_failed');
    expectErrorBody(
      await call('PATCH', '/api/v1/issuer/me', { linkedinOrganizationId: 'acme' }, b.key),
      400,
      'validation_failed',
    );
  });

  it('stores a translation under its canonical tag, lists, reads and deletes it, audited', async () => {
    const put = await call('PUT', translations('FR'), {
      name: 'Sécurité des chariots élévateurs',
      description: 'Conduit un chariot élévateur en sécurité.',
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toMatchObject({
      language: 'fr',
      name: 'Sécurité des chariots élévateurs',
      criteriaNarrative: null,
    });
    const de = await call('PUT', translations('de-ch'), {
      name: 'Staplersicherheit',
      description: 'Fährt einen Stapler sicher.',
      criteriaNarrative: 'Praktische Prüfung bestanden.',
      certificateTitle: 'Zertifikat',
    });
    expect(de.json().language).toBe('de-CH');
    const list = await call('GET', translations());
    expect(list.json().map((x: { language: string }) => x.language)).toEqual(['de-CH', 'fr']);
    expect((await call('GET', translations('fr'))).json().name).toBe('Sécurité des chariots élévateurs');
    const replaced = await call('PUT', translations('de-CH'), { name: 'Stapler', description: 'Fährt sicher.' });
    expect(replaced.json()).toMatchObject({ name: 'Stapler', certificateTitle: null });
    expect((await call('DELETE', translations('de-CH'))).statusCode).toBe(204);
    expectErrorBody(await call('GET', translations('de-CH')), 404, 'not_found');
    expectErrorBody(await call('DELETE', translations('de-CH')), 404, 'not_found');
    const actions = await auditActions(a.id);
    expect(actions.filter((x) => x === 'definition.translation_saved')).toHaveLength(3);
    expect(actions).toContain('definition.translation_deleted');
  });

  it('refuses a malformed tag and the definition’s own language with a 400', async () => {
    for (const tag of ['en_US', 'x', 'de-CH-1996', 'a'.repeat(65), '%20']) {
      const res = await call('PUT', translations(encodeURIComponent(tag)), { name: 'n', description: 'd' });
      expect(res.statusCode, tag).toBe(400);
      expect(res.json().error, tag).toBe('validation_failed');
    }
    expectErrorBody(await call('GET', translations('en_US')), 400, 'validation_failed');
    expectErrorBody(await call('PUT', translations('EN'), { name: 'n', description: 'd' }), 400, 'validation_failed');
    expectErrorBody(await call('PUT', translations('fr'), { name: '', description: 'd' }), 400, 'validation_failed');
  });

  it("hides another issuer's definition and its translations", async () => {
    expectErrorBody(await call('GET', translations(), undefined, b.key), 404, 'not_found');
    expectErrorBody(await call('GET', translations('fr'), undefined, b.key), 404, 'not_found');
    expectErrorBody(await call('PUT', translations('es'), { name: 'n', description: 'd' }, b.key), 404, 'not_found');
    expectErrorBody(await call('DELETE', translations('fr'), undefined, b.key), 404, 'not_found');
    expect((await call('GET', translations('fr'))).statusCode).toBe(200);
    await expect(
      definitionText(t.database.db, { issuerId: b.id, definitionId: definition.id }, 'fr'),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it('chooses the text by RFC 4647 lookup, field by field, never an empty field', async () => {
    const ref = { issuerId: a.id, definitionId: definition.id };
    const fr = await definitionText(t.database.db, ref, 'fr-CH');
    expect(fr).toEqual({
      language: 'fr',
      name: 'Sécurité des chariots élévateurs',
      description: 'Conduit un chariot élévateur en sécurité.',
      // The French text has no narrative of its own: the default one shows, not an empty field.
      criteriaNarrative: 'Passed the practical test.',
    });
    expect((await definitionText(t.database.db, ref, ['nl', 'de', 'fr'])).language).toBe('fr');
    expect((await definitionText(t.database.db, ref, ['en-GB', 'fr'])).language).toBe('en');
    expect(await definitionText(t.database.db, ref, 'nl')).toMatchObject({ language: 'en', name: 'Forklift Safety' });
    expect((await definitionText(t.database.db, ref, null)).name).toBe('Forklift Safety');
    expect((await definitionText(t.database.db, ref, 'not a tag')).language).toBe('en');
    expect(chooseText({ language: 'en', name: 'N', description: 'D', criteria_narrative: null }, [], 'fr')).toEqual({
      language: 'en',
      name: 'N',
      description: 'D',
      criteriaNarrative: null,
    });
  });

  it('issues in a language on the API and the completions endpoint, stored canonical on the credential', async () => {
    const issued = await postJson(t, a.key, '/api/v1/credentials', {
      definitionId: definition.id,
      recipientEmail: 'ana@example.org',
      completionKey: 'api-fr',
      language: 'FR',
    });
    expect(issued.statusCode, issued.body).toBe(201);
    expect((await credential(issued.json().credentialId)).language).toBe('fr');
    const own = await postJson(t, a.key, '/api/v1/credentials', {
      definitionId: definition.id,
      recipientEmail: 'eve@example.org',
      completionKey: 'api-en',
      language: 'en',
    });
    expect((await credential(own.json().credentialId)).language).toBeNull();
    const bad = await postJson(t, a.key, '/api/v1/credentials', {
      definitionId: definition.id,
      recipientEmail: 'bad@example.org',
      completionKey: 'api-bad',
      language: 'fr_FR',
    });
    expectErrorBody(bad, 400, 'validation_failed');
    const ingested = await postJson(t, a.key, '/api/v1/ingest/completions', {
      definitionId: definition.id,
      recipientEmail: 'ida@example.org',
      language: 'de-ch',
    });
    expect(ingested.statusCode, ingested.body).toBe(201);
    expect((await credential(ingested.json().credentialId)).language).toBe('de-CH');
  });

  it('reads a CSV Language column, and names a bad tag in the row report', async () => {
    const report = await importCsv(
      t,
      a.key,
      [
        'Email,Course,Language',
        'csv1@example.org,forklift,fr',
        'csv2@example.org,forklift,',
        'csv3@example.org,forklift,pt_BR',
      ].join('\n'),
    );
    expect(report.columns.recognised).toContainEqual({ header: 'Language', field: 'language' });
    const [fr, none, bad] = report.rows;
    expect(fr?.outcome).toBe('issued');
    expect((await credential(fr?.credentialId as string)).language).toBe('fr');
    expect((await credential(none?.credentialId as string)).language).toBeNull();
    expect(bad).toMatchObject({ outcome: 'error', credentialId: null });
    expect(bad?.message).toContain('language is not a BCP 47 language tag');
  });

  it("reads a Moodle user's language pack name as the credential's language", async () => {
    const res = await postJson(t, a.key, '/api/v1/connectors/moodle/completions', {
      records: [
        {
          email: 'moodle@example.org',
          firstname: 'Mo',
          lastname: 'Odle',
          idnumber: 'forklift',
          timecompleted: 1_763_000_000,
          courseid: 7,
          relateduserid: 42,
          lang: 'pt_br',
        },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    const [record] = res.json().records;
    expect(record.outcome, JSON.stringify(record)).toBe('issued');
    expect((await credential(record.credentialId)).language).toBe('pt-BR');
  });

  it('cuts a version for an edit after issuance only, and keeps the earlier text for earlier credentials', async () => {
    const created = await call('POST', '/api/v1/definitions', { name: 'Draft', description: 'd', version: '2026.1' });
    const id = created.json().id as string;
    const patch = (body: object) => call('PATCH', `/api/v1/definitions/${id}`, body);
    expect((await patch({ name: 'Welding' })).json().versionNumber).toBe(1);
    await call('PUT', `/api/v1/definitions/${id}/translations/fr`, { name: 'Soudure', description: 'd' });
    clock.advance(1_000);
    const issued = await postJson(t, a.key, '/api/v1/credentials', {
      definitionId: id,
      recipientEmail: 'weld@example.org',
      completionKey: 'weld-1',
      language: 'fr',
    });
    const detail = await call('GET', `/api/v1/credentials/${issued.json().credentialId}`);
    expect(detail.json().language).toBe('fr');
    const first = await credential(issued.json().credentialId);
    clock.advance(1_000);
    // Validity is not shown text: no version for it.
    expect((await patch({ expiresAfterDays: 30 })).json().versionNumber).toBe(1);
    const edited = await patch({ name: 'Welding I', version: '2026.2' });
    expect(edited.json()).toMatchObject({ versionNumber: 2, version: '2026.2', name: 'Welding I' });
    clock.advance(1_000);
    // No credential under version 2 yet: a translation edit changes it in place.
    await call('PUT', `/api/v1/definitions/${id}/translations/fr`, { name: 'Soudure I', description: 'd' });
    expect((await call('GET', `/api/v1/definitions/${id}`)).json().versionNumber).toBe(2);
    const ref = { issuerId: a.id, definitionId: id };
    expect(await definitionText(t.database.db, ref, 'fr', { asOf: first.created_at })).toMatchObject({
      language: 'fr',
      name: 'Soudure',
    });
    expect((await definitionText(t.database.db, ref, null, { asOf: first.created_at })).name).toBe('Welding');
    expect((await definitionText(t.database.db, ref, 'fr')).name).toBe('Soudure I');
    const versions = await t.database.db
      .selectFrom('definition_versions')
      .select(['version_number', 'snapshot'])
      .where('definition_id', '=', id)
      .execute();
    expect(versions.map((v) => v.version_number)).toEqual([1]);
    expect(JSON.parse(versions[0]?.snapshot ?? '{}')).toMatchObject({ name: 'Welding', version: '2026.1' });
    const audit = await t.database.db
      .selectFrom('audit_log')
      .select('details')
      .where('target_id', '=', id)
      .where('action', '=', 'definition.updated')
      .execute();
    expect(audit.map((r) => JSON.parse(r.details).versionNumber).filter(Boolean)).toEqual([2]);
  });
});
