import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editionLanguage } from '../src/modules/documents/documents.builders.js';
import { injectFetch, OB_CONTEXT, validateHosted, xmlProblems } from './documents.support.js';
import {
  auth,
  createTestApp,
  dialects,
  expectErrorBody,
  manualClock,
  type TestApp,
  type TestIssuer,
} from './helpers.js';

/*
 * Issue 45 §1 (OB 2.0) and §3: every language edition of a BadgeClass at its own URL, with a
 * top-level `@language`, its translated text and `related` both ways; an assertion names the
 * edition of the version and language it was issued in; a definition edit after issuance leaves
 * the documents of earlier credentials byte for byte as they were.
 */

const BASE = 'https://badges.test';
const EMAIL = 'Marie.Curie+Canary@Example.TEST';

describe.each(dialects)('BadgeClass language editions and versions on %s', (dialect) => {
  const clock = manualClock('2026-03-02T09:00:00.000Z');
  let t: TestApp;
  let a: TestIssuer;
  let definition: { id: string; slug: string };
  let badgeUrl: string;
  let fetch: ReturnType<typeof injectFetch>;

  async function call(method: 'POST' | 'PUT' | 'PATCH', url: string, payload: object) {
    const res = await t.app.inject({ method, url, headers: auth(a.key), payload });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json();
  }
  const get = (url: string) =>
    t.app.inject({ method: 'GET', url: url.startsWith(BASE) ? url.slice(BASE.length) : url });
  const validate = (url: string, recipientEmail?: string) =>
    validateHosted(url, { fetch, now: clock.now(), ...(recipientEmail ? { recipientEmail } : {}) });
  async function expectValid(url: string, recipientEmail?: string) {
    const report = await validate(url, recipientEmail);
    expect(report.errors, url).toEqual([]);
    expect(report.warnings, url).toEqual([]);
    return report;
  }
  const issue = async (completionKey: string, language?: string) =>
    call('POST', '/api/v1/credentials', {
      definitionId: definition.id,
      recipientEmail: EMAIL,
      completionKey,
      ...(language ? { language } : {}),
    });

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock });
    fetch = injectFetch(t.app, BASE);
    a = await t.issuer({ slug: `editions-${dialect}`, name: 'Institut Curie' });
    definition = await call('POST', '/api/v1/definitions', {
      name: 'Radiation Safety',
      description: 'Working safely with sources.',
      criteriaNarrative: 'Pass the practical exam.',
      tags: ['safety'],
    });
    badgeUrl = `${BASE}/v1/issuers/${a.slug}/badges/${definition.slug}`;
    await call('PUT', `/api/v1/definitions/${definition.id}/translations/fr`, {
      name: 'Radioprotection',
      description: 'Travailler en sécurité avec les sources.',
      criteriaNarrative: 'Réussir l’examen pratique.',
    });
    // No narrative: the edition shows the default one rather than none.
    await call('PUT', `/api/v1/definitions/${definition.id}/translations/de-CH`, {
      name: 'Strahlenschutz',
      description: 'Sicher mit Quellen arbeiten.',
    });
  });
  afterAll(async () => t.close());

  it('serves the default edition with its @language and related to every other edition', async () => {
    const res = await get(badgeUrl);
    expect(res.statusCode, res.body).toBe(200);
    const doc = res.json();
    expect(Object.keys(doc).slice(0, 2)).toEqual(['@context', '@language']);
    expect(doc).toMatchObject({
      '@context': OB_CONTEXT,
      '@language': 'en',
      id: badgeUrl,
      name: 'Radiation Safety',
      version: '1',
      related: [
        { id: `${badgeUrl}/in/de-CH`, '@language': 'de-CH' },
        { id: `${badgeUrl}/in/fr`, '@language': 'fr' },
      ],
    });
    await expectValid(badgeUrl);
  });

  it('serves each translation as an edition at its own URL, related back to the default and its siblings', async () => {
    const fr = (await get(`${badgeUrl}/in/fr`)).json();
    expect(fr).toEqual({
      '@context': OB_CONTEXT,
      '@language': 'fr',
      type: 'BadgeClass',
      id: `${badgeUrl}/in/fr`,
      name: 'Radioprotection',
      description: 'Travailler en sécurité avec les sources.',
      image: `${badgeUrl}/in/fr/image.svg`,
      criteria: { narrative: 'Réussir l’examen pratique.' },
      issuer: `${BASE}/v1/issuers/${a.slug}`,
      version: '1',
      tags: ['safety'],
      related: [
        { id: badgeUrl, '@language': 'en' },
        { id: `${badgeUrl}/in/de-CH`, '@language': 'de-CH' },
      ],
    });
    const de = (await get(`${badgeUrl}/in/de-CH`)).json();
    expect(de).toMatchObject({
      '@language': 'de-CH',
      name: 'Strahlenschutz',
      criteria: { narrative: 'Pass the practical exam.' },
      related: [
        { id: badgeUrl, '@language': 'en' },
        { id: `${badgeUrl}/in/fr`, '@language': 'fr' },
      ],
    });
    for (const url of [`${badgeUrl}/in/fr`, `${badgeUrl}/in/de-CH`]) await expectValid(url);
    const image = await get(`${badgeUrl}/in/fr/image.svg`);
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(image.body).toContain('Radioprotection');
    expect(xmlProblems(image.body)).toEqual([]);
  });

  it('names no edition for a language without a translation, the own language or a tag not in canonical form', async () => {
    for (const path of [
      '/in/it',
      '/in/en',
      '/in/FR',
      '/in/de-ch',
      '/in/not%20a%20tag',
      '/versions/7',
      '/versions/7/in/fr',
    ]) {
      expectErrorBody(await get(`${badgeUrl}${path}`), 404, 'not_found');
    }
    expectErrorBody(await get(`${badgeUrl}/versions/0`), 400, 'validation_failed');
    expectErrorBody(await get(`${badgeUrl}/versions/x/in/fr`), 400, 'validation_failed');
  });

  it('points an assertion at the edition of its language (RFC 4647 lookup) in its version', async () => {
    const cases: [string | undefined, string][] = [
      ['fr', `${badgeUrl}/versions/1/in/fr`],
      ['fr-CA', `${badgeUrl}/versions/1/in/fr`],
      ['de-CH', `${badgeUrl}/versions/1/in/de-CH`],
      ['es', `${badgeUrl}/versions/1`],
      [undefined, `${badgeUrl}/versions/1`],
    ];
    for (const [language, badge] of cases) {
      const issued = await issue(`lookup:${language ?? 'own'}`, language);
      const assertion = (await get(issued.assertionUrl)).json();
      expect(assertion.badge, language).toBe(badge);
      const report = await expectValid(issued.assertionUrl, EMAIL);
      expect(report.fetched).toContain(badge);
    }
    const version = (await get(`${badgeUrl}/versions/1/in/fr`)).json();
    expect(version).toMatchObject({
      id: `${badgeUrl}/versions/1/in/fr`,
      '@language': 'fr',
      name: 'Radioprotection',
      related: [
        { id: `${badgeUrl}/versions/1`, '@language': 'en' },
        { id: `${badgeUrl}/versions/1/in/de-CH`, '@language': 'de-CH' },
      ],
    });
  });

  it('keeps what earlier credentials show byte for byte after an edit, and lists the earlier version', async () => {
    const issued = await issue('before-edit', 'fr');
    const own = await issue('before-edit-own');
    const credentialUrl = `${BASE}/v1/issuers/${a.slug}/credentials/${issued.credentialId}`;
    const urls = [
      issued.assertionUrl,
      own.assertionUrl,
      `${badgeUrl}/versions/1`,
      `${badgeUrl}/versions/1/in/fr`,
      `${badgeUrl}/versions/1/in/de-CH`,
      credentialUrl,
      // The assertion's own image draws the badge's name and carries the assertion.
      `${own.assertionUrl}/image.svg`,
    ];
    const before = await Promise.all(urls.map(async (url) => (await get(url)).body));
    const frImageBefore = (await get(`${badgeUrl}/versions/1/in/fr/image.svg`)).body;

    clock.advance(60_000);
    await call('PATCH', `/api/v1/definitions/${definition.id}`, {
      name: 'Radiation Safety II',
      description: 'Working safely with sealed sources.',
      version: '2026.2',
    });
    await call('PUT', `/api/v1/definitions/${definition.id}/translations/fr`, {
      name: 'Radioprotection II',
      description: 'Travailler en sécurité avec les sources scellées.',
    });

    const after = await Promise.all(urls.map(async (url) => (await get(url)).body));
    for (const [i, url] of urls.entries()) expect(after[i], url).toBe(before[i]);
    expect((await get(`${badgeUrl}/versions/1/in/fr/image.svg`)).body).toBe(frImageBefore);

    const current = (await get(badgeUrl)).json();
    expect(current).toMatchObject({ name: 'Radiation Safety II', version: '2026.2' });
    expect(current.related).toEqual([
      { id: `${badgeUrl}/in/de-CH`, '@language': 'de-CH' },
      { id: `${badgeUrl}/in/fr`, '@language': 'fr' },
      { id: `${badgeUrl}/versions/1`, version: '1' },
    ]);
    expect((await get(`${badgeUrl}/in/fr`)).json()).toMatchObject({ name: 'Radioprotection II', version: '2026.2' });
    await expectValid(badgeUrl);

    const later = await issue('after-edit', 'fr');
    const assertion = (await get(later.assertionUrl)).json();
    expect(assertion.badge).toBe(`${badgeUrl}/versions/2/in/fr`);
    await expectValid(later.assertionUrl, EMAIL);
    expect((await get(`${badgeUrl}/versions/2/in/fr`)).json()).toMatchObject({ name: 'Radioprotection II' });
  });

  it('carries version natively and the other badge data as an extension with its hosted context, valid for the validator', async () => {
    const described = await call('POST', '/api/v1/definitions', {
      name: 'Dosimetry',
      description: 'Measuring doses.',
      achievementType: 'Certification',
      creditsAvailable: 2.5,
      fieldOfStudy: 'Physics',
      specialization: 'Radiation protection',
      humanCode: 'PHY-310',
      version: '3.1',
    });
    await call('POST', `/api/v1/definitions/${described.id}/alignments`, {
      targetName: 'Dose assessment',
      targetUrl: 'https://frameworks.example/dose',
      targetType: 'ceasn:Competency',
      targetCode: 'D-7',
    });
    const url = `${BASE}/v1/issuers/${a.slug}/badges/${described.slug}`;
    const context = `${BASE}/v1/extensions/achievement-metadata/context.json`;
    const badge = (await get(url)).json();
    expect(badge).toMatchObject({
      version: '3.1',
      'extensions:AchievementMetadata': {
        '@context': context,
        type: ['Extension', 'extensions:AchievementMetadata'],
        achievementType: 'Certification',
        creditsAvailable: 2.5,
        fieldOfStudy: 'Physics',
        specialization: 'Radiation protection',
        humanCode: 'PHY-310',
      },
      alignment: [
        {
          targetName: 'Dose assessment',
          targetCode: 'D-7',
          'extensions:AlignmentTargetType': {
            '@context': context,
            type: ['Extension', 'extensions:AlignmentTargetType'],
            targetType: 'ceasn:Competency',
          },
        },
      ],
    });
    const report = await expectValid(url);
    expect(report.fetched).toEqual(
      expect.arrayContaining([context, `${BASE}/v1/extensions/achievement-metadata/schema.json`]),
    );
    const served = await get(context);
    expect(served.headers['content-type']).toMatch(/^application\/ld\+json/);
    expect(served.json()['@context'].achievementType).toEqual({
      '@id': 'https://purl.imsglobal.org/spec/vc/ob/vocab.html#achievementType',
    });
    // A definition without the fields has no extension at all.
    expect((await get(badgeUrl)).json()).not.toHaveProperty(['extensions:AchievementMetadata']);
  });

  it('chooses the edition language by RFC 4647 lookup, the own language first', () => {
    expect(editionLanguage('en', ['fr', 'zh-Hant'], 'zh-Hant-TW')).toBe('zh-Hant');
    expect(editionLanguage('en', ['fr'], 'EN-gb')).toBeNull();
    expect(editionLanguage('fr', ['fr-CA'], 'fr-CA')).toBe('fr-CA');
    expect(editionLanguage('en', ['fr'], 'not a tag')).toBeNull();
    expect(editionLanguage('en', ['fr'], null)).toBeNull();
  });
});
