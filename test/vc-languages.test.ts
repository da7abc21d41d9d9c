import { readFileSync } from 'node:fs';
import { Ajv2019 } from 'ajv/dist/2019.js';
import formats from 'ajv-formats';
import jsonld from 'jsonld';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureJsonLd } from '../src/core/jsonld-budget.js';
import { MAX_RELATED_EDITIONS } from '../src/modules/vc/credential.builder.js';
import { linkedInUrl } from '../src/modules/verification/share.js';
import { auth, createTestApp, dialects, manualClock, type TestApp, type TestIssuer } from './helpers.js';
import { verifier } from './vc.support.js';

/*
 * Issue 45 §1 and §3, OB 3.0: a credential issued in French carries the French edition's text,
 * `inLanguage`, `related` to the other editions, `version` and the definition's §3 properties, and
 * the issuer's LinkedIn organization id; the official JSON Schema, JSON-LD safe mode and the
 * signature judges pass over it, and it stays within the JSON-LD budget.
 */

const BASE = 'https://badges.test';
const EMAIL = 'Simone.Veil+Canary@Example.TEST';
const SECRET = { SIGNING_KEY_SECRET: 'test-signing-key-secret-0123456789abcdef' };
const fixture = (name: string) => readFileSync(new URL(`./fixtures/vc/${name}`, import.meta.url), 'utf8');
const ajv = new Ajv2019({ strict: false, allErrors: true });
(formats as unknown as typeof formats.default)(ajv);
const validateSchema = ajv.compile(JSON.parse(fixture('ob_v3p0_achievementcredential_schema.json')));

type Credential = Record<string, unknown> & {
  issuer: { otherIdentifier: unknown[] };
  credentialSubject: { achievement: Record<string, unknown> & { related?: unknown[] } };
};

describe.each(dialects)('Open Badges 3.0 credentials in a language on %s', (dialect) => {
  const clock = manualClock('2026-03-02T09:00:00.000Z');
  let t: TestApp;
  let a: TestIssuer;
  let definition: { id: string; slug: string };
  let badgeUrl: string;
  let v: ReturnType<typeof verifier>;

  async function call(method: 'POST' | 'PUT' | 'PATCH', url: string, payload: object) {
    const res = await t.app.inject({ method, url, headers: auth(a.key), payload });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json();
  }
  async function credentialOf(id: string): Promise<Credential> {
    const res = await t.app.inject({ method: 'GET', url: `/v1/issuers/${a.slug}/credentials/${id}` });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  }
  async function judge(credential: Credential) {
    expect(validateSchema(credential), JSON.stringify(validateSchema.errors)).toBe(true);
    await jsonld.expand(credential, { documentLoader: v.documentLoader, safe: true });
    const result = await v.verify(credential, clock.now());
    expect(result.error).toBeUndefined();
    expect(result.verified).toBe(true);
    expect('issue' in measureJsonLd(credential)).toBe(false);
  }
  const issue = async (completionKey: string, language?: string) =>
    (
      await call('POST', '/api/v1/credentials', {
        definitionId: definition.id,
        recipientEmail: EMAIL,
        completionKey,
        ...(language ? { language } : {}),
      })
    ).credentialId as string;

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock, env: dialect === 'postgres' ? SECRET : {} });
    v = verifier(t.app, BASE);
    a = await t.issuer({ slug: `vc-lang-${dialect}`, name: 'École Polytechnique' });
    await call('PATCH', '/api/v1/issuer/me', { linkedinOrganizationId: '3141592' });
    definition = await call('POST', '/api/v1/definitions', {
      name: 'Applied Statistics',
      description: 'Statistics for engineers.',
      criteriaNarrative: 'Pass the written exam.',
      achievementType: 'Course',
      creditsAvailable: 5,
      fieldOfStudy: 'Mathematics',
      specialization: 'Statistics',
      humanCode: 'MAT-204',
      version: '2026.1',
    });
    badgeUrl = `${BASE}/v1/issuers/${a.slug}/badges/${definition.slug}`;
    await call('POST', `/api/v1/definitions/${definition.id}/alignments`, {
      targetName: 'Statistical analysis',
      targetUrl: 'https://frameworks.example/stats',
      targetType: 'CFItem',
      targetCode: 'ST-1',
    });
    await call('PUT', `/api/v1/definitions/${definition.id}/translations/fr`, {
      name: 'Statistique appliquée',
      description: 'La statistique pour les ingénieurs.',
      criteriaNarrative: 'Réussir l’examen écrit.',
    });
    await call('PUT', `/api/v1/definitions/${definition.id}/translations/de`, {
      name: 'Angewandte Statistik',
      description: 'Statistik für Ingenieure.',
    });
  });
  afterAll(async () => t.close());

  it('carries the French edition, its relatives, the version, the §3 properties and the LinkedIn id, and passes every judge', async () => {
    const id = await issue('stats:fr', 'fr');
    const credential = await credentialOf(id);
    expect(credential.issuer.otherIdentifier).toEqual([
      { type: 'IdentifierEntry', identifier: `${BASE}/v1/issuers/${a.slug}`, identifierType: 'identifier' },
      { type: 'IdentifierEntry', identifier: '3141592', identifierType: 'ext:LinkedInOrganizationId' },
    ]);
    expect(credential.name).toBe('Statistique appliquée');
    expect(credential.credentialSubject.achievement).toMatchObject({
      id: `${badgeUrl}/versions/1/in/fr`,
      name: 'Statistique appliquée',
      description: 'La statistique pour les ingénieurs.',
      criteria: { narrative: 'Réussir l’examen écrit.' },
      image: { id: `${badgeUrl}/versions/1/in/fr/image.svg`, type: 'Image' },
      inLanguage: 'fr',
      version: '2026.1',
      related: [
        { id: `${badgeUrl}/versions/1`, type: ['Related'], inLanguage: 'en' },
        { id: `${badgeUrl}/versions/1/in/de`, type: ['Related'], inLanguage: 'de' },
      ],
      achievementType: 'Course',
      creditsAvailable: 5,
      fieldOfStudy: 'Mathematics',
      specialization: 'Statistics',
      humanCode: 'MAT-204',
      alignment: [
        {
          type: ['Alignment'],
          targetName: 'Statistical analysis',
          targetUrl: 'https://frameworks.example/stats',
          targetCode: 'ST-1',
          targetType: 'CFItem',
        },
      ],
    });
    await judge(credential);
    // The OB 2.0 assertion of the same credential names the same edition.
    const assertion = await t.app.inject({
      method: 'GET',
      url: `/v1/issuers/${a.slug}/assertions/${id}`,
    });
    expect(assertion.json().badge).toBe(`${badgeUrl}/versions/1/in/fr`);
  });

  it('issued in the own language, lists the translations; in a language without one, shows the default text', async () => {
    const own = await credentialOf(await issue('stats:own'));
    expect(own.credentialSubject.achievement).toMatchObject({
      id: `${badgeUrl}/versions/1`,
      name: 'Applied Statistics',
      inLanguage: 'en',
      related: [
        { id: `${badgeUrl}/versions/1/in/de`, type: ['Related'], inLanguage: 'de' },
        { id: `${badgeUrl}/versions/1/in/fr`, type: ['Related'], inLanguage: 'fr' },
      ],
    });
    await judge(own);
    const spanish = await credentialOf(await issue('stats:es', 'es'));
    expect(spanish.credentialSubject.achievement).toMatchObject({ id: `${badgeUrl}/versions/1`, inLanguage: 'en' });
  });

  it('signed first after an edit, still carries the version and text it was issued under', async () => {
    const early = await issue('stats:early', 'fr');
    clock.advance(60_000);
    await call('PATCH', `/api/v1/definitions/${definition.id}`, { name: 'Applied Statistics II', version: '2026.2' });
    await call('PUT', `/api/v1/definitions/${definition.id}/translations/fr`, {
      name: 'Statistique appliquée II',
      description: 'La statistique pour les ingénieurs, deuxième édition.',
    });
    const credential = await credentialOf(early);
    expect(credential.credentialSubject.achievement).toMatchObject({
      id: `${badgeUrl}/versions/1/in/fr`,
      name: 'Statistique appliquée',
      version: '2026.1',
    });
    await judge(credential);
    const later = await credentialOf(await issue('stats:later', 'fr'));
    expect(later.credentialSubject.achievement).toMatchObject({
      id: `${badgeUrl}/versions/2/in/fr`,
      name: 'Statistique appliquée II',
      version: '2026.2',
    });
    await judge(later);
  });

  it(`lists at most ${MAX_RELATED_EDITIONS} other editions, so a much-translated badge stays within the JSON-LD budget`, async () => {
    const wide = await call('POST', '/api/v1/definitions', {
      name: 'Everywhere',
      description: 'Translated into many languages.',
    });
    const languages = ['ar', 'bg', 'cs', 'da', 'de', 'el', 'es', 'et', 'fi', 'fr', 'ga', 'hr', 'hu', 'it', 'ja'];
    const regions = ['lt', 'lv', 'mt', 'nl', 'pl', 'pt', 'ro', 'sk', 'sl', 'sv', 'zh', 'ko', 'tr', 'uk', 'he'];
    for (const lang of [...languages, ...regions]) {
      await call('PUT', `/api/v1/definitions/${wide.id}/translations/${lang}`, {
        name: `Everywhere (${lang})`,
        description: `Translated (${lang}).`,
      });
    }
    const id = (
      await call('POST', '/api/v1/credentials', {
        definitionId: wide.id,
        recipientEmail: EMAIL,
        completionKey: 'wide:fr',
        language: 'fr',
      })
    ).credentialId as string;
    const credential = await credentialOf(id);
    expect(credential.credentialSubject.achievement.related).toHaveLength(MAX_RELATED_EDITIONS);
    await judge(credential);
  });
});

describe('the LinkedIn add-to-profile link', () => {
  const item = {
    credentialId: 'c1',
    badgeName: 'Statistique appliquée',
    issuerName: 'École Polytechnique',
    issuedOn: '2026-03-02T09:00:00.000Z',
    expiresOn: null,
    verifyPageUrl: 'https://badges.test/verify/x/c1',
    assertionUrl: 'https://badges.test/v1/issuers/x/assertions/c1',
  };

  it("names the issuer's LinkedIn page by its organization id when it has one, else its name", () => {
    const withId = new URL(linkedInUrl({ ...item, linkedInOrganizationId: '3141592' })).searchParams;
    expect(withId.get('organizationId')).toBe('3141592');
    expect(withId.has('organizationName')).toBe(false);
    expect(withId.get('name')).toBe('Statistique appliquée');
    for (const linkedInOrganizationId of [null, undefined, '']) {
      const plain = new URL(linkedInUrl({ ...item, linkedInOrganizationId })).searchParams;
      expect(plain.get('organizationName')).toBe('École Polytechnique');
      expect(plain.has('organizationId')).toBe(false);
    }
  });
});
