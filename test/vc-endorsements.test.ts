import { readFileSync } from 'node:fs';
import { Ajv2019 } from 'ajv/dist/2019.js';
import formats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createTestApp, dialects, type TestApp, type TestIssuer } from './helpers.js';
import { verifier } from './vc.support.js';

const BASE = 'https://badges.test';
const schema = JSON.parse(
  readFileSync(new URL('./fixtures/vc/ob_v3p0_achievementcredential_schema.json', import.meta.url), 'utf8'),
);
const ajv = new Ajv2019({ strict: false, allErrors: true });
// ajv-formats is CommonJS with a default export; under NodeNext it arrives as the module object.
(formats as unknown as typeof formats.default)(ajv);
ajv.addSchema(schema, 'achievement-credential');
const validateCredential = ajv.getSchema('achievement-credential');
/** The official schema's own EndorsementCredential definition. */
const validateEndorsement = ajv.compile({ $ref: 'achievement-credential#/$defs/EndorsementCredential' });

// biome-ignore lint/suspicious/noExplicitAny: documents read back from the service, checked by the assertions
type Json = Record<string, any>;

/** Issue 23 item 7: a definition's endorsements travel in its Achievement as signed EndorsementCredentials. */
describe.each(dialects)('Open Badges 3.0 endorsements and alignments on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let definitionId: string;
  let badgeClassUrl: string;
  let v: ReturnType<typeof verifier>;

  async function post(url: string, payload: object) {
    const res = await t.app.inject({ method: 'POST', url, headers: auth(a.key), payload });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json();
  }
  async function issueAndFetch(completionKey: string): Promise<Json> {
    const issued = await post('/api/v1/credentials', {
      definitionId,
      recipientEmail: 'ada@example.test',
      completionKey,
    });
    const res = await t.app.inject({ method: 'GET', url: `/v1/issuers/${a.slug}/credentials/${issued.credentialId}` });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  }

  beforeAll(async () => {
    t = await createTestApp(dialect);
    v = verifier(t.app, BASE);
    a = await t.issuer({ slug: `vce-a-${dialect}`, name: 'Analytical Academy' });
    const definition = await post('/api/v1/definitions', {
      name: 'Analytical Engines',
      description: 'Programs for the analytical engine.',
      criteriaNarrative: 'Write a program computing Bernoulli numbers.',
    });
    definitionId = definition.id;
    badgeClassUrl = `${BASE}/v1/issuers/${a.slug}/badges/${definition.slug}`;
    await post(`/api/v1/definitions/${definitionId}/alignments`, {
      targetName: 'Algorithmic thinking',
      targetUrl: 'https://frameworks.example/algorithms',
      targetFramework: 'ESCO',
    });
    await post(`/api/v1/definitions/${definitionId}/endorsements`, {
      endorserName: 'Royal Society',
      endorserUrl: 'https://royalsociety.example',
      claim: 'Rigorous and well assessed.',
    });
    await post(`/api/v1/definitions/${definitionId}/endorsements`, {
      endorserName: 'Charles Babbage',
      claim: 'The engine’s best programmers hold it.',
    });
  });
  afterAll(async () => t.close());

  it('carries each endorsement as an EndorsementCredential the issuer signed, valid for the official schema', async () => {
    const credential = await issueAndFetch('e:1');
    expect(validateCredential?.(credential), JSON.stringify(validateCredential?.errors)).toBe(true);
    expect(await v.verify(credential)).toMatchObject({ verified: true });
    const { achievement } = credential.credentialSubject;
    expect(achievement.alignment).toEqual([
      {
        type: ['Alignment'],
        targetName: 'Algorithmic thinking',
        targetUrl: 'https://frameworks.example/algorithms',
        targetFramework: 'ESCO',
      },
    ]);
    const endorsements: Json[] = achievement.endorsement;
    expect(endorsements).toHaveLength(2);
    const [royal, babbage] = endorsements as [Json, Json];
    expect(royal).toMatchObject({
      '@context': [
        'https://www.w3.org/ns/credentials/v2',
        'https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json',
        'https://purl.imsglobal.org/spec/ob/v3p0/extensions.json',
      ],
      type: ['VerifiableCredential', 'EndorsementCredential'],
      name: 'Endorsement by Royal Society',
      issuer: { id: credential.issuer.id, type: ['Profile'], name: 'Analytical Academy' },
      credentialSubject: {
        id: badgeClassUrl,
        type: ['EndorsementSubject'],
        endorsementComment: 'Rigorous and well assessed.',
      },
      proof: [{ type: 'DataIntegrityProof', cryptosuite: 'eddsa-rdfc-2022', proofPurpose: 'assertionMethod' }],
    });
    expect(royal.id).toMatch(/^urn:uuid:/);
    expect(royal.description).toContain('Royal Society (https://royalsociety.example)');
    expect(babbage.credentialSubject.endorsementComment).toBe('The engine’s best programmers hold it.');
    for (const endorsement of endorsements) {
      expect(validateEndorsement(endorsement), JSON.stringify(validateEndorsement.errors)).toBe(true);
      expect(await v.verify(endorsement)).toMatchObject({ verified: true });
    }
  });

  it('signs each endorsement once: later credentials carry the same bytes; a changed comment fails', async () => {
    const first = await issueAndFetch('e:2');
    const second = await issueAndFetch('e:3');
    const endorsementsOf = (c: Json) => c.credentialSubject.achievement.endorsement as Json[];
    expect(JSON.stringify(endorsementsOf(second))).toBe(JSON.stringify(endorsementsOf(first)));
    const stored = await t.database.db.selectFrom('vc_endorsements').select('endorsement_id').execute();
    expect(stored).toHaveLength(2);

    const [royal] = endorsementsOf(first) as [Json];
    const changed = { ...royal, credentialSubject: { ...royal.credentialSubject, endorsementComment: 'Unreliable.' } };
    expect((await v.verify(changed)).verified).toBe(false);
    const achievement = first.credentialSubject.achievement;
    const carried = {
      ...first,
      credentialSubject: { ...first.credentialSubject, achievement: { ...achievement, endorsement: [changed] } },
    };
    expect((await v.verify(carried)).verified).toBe(false);
  });
});
