import { readFileSync } from 'node:fs';
import { Ajv2019 } from 'ajv/dist/2019.js';
import formats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auth,
  createTestApp,
  dialects,
  expectErrorBody,
  expectHiddenFromOtherIssuer,
  expectKeyRequired,
  type TestApp,
  type TestIssuer,
} from './helpers.js';
import { verifier } from './vc.support.js';

const BASE = 'https://badges.test';
const MISSING = '00000000-0000-4000-8000-000000000000';
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

/**
 * Issue 38 section 4: an issuer of this service endorses another issuer's definition with its own
 * key; an outside endorser's recorded claim is never signed by the badge's issuer in its name.
 */
describe.each(dialects)('Open Badges 3.0 endorsements on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let e: TestIssuer;
  let o: TestIssuer;
  let definitionId: string;
  let badgeClassUrl: string;
  let ownBadgeClassUrl: string;
  let v: ReturnType<typeof verifier>;
  const didOf = (issuer: TestIssuer) => `did:web:badges.test:v1:issuers:${issuer.slug}`;

  async function call(key: string, method: 'GET' | 'POST', url: string, payload?: object) {
    return t.app.inject({ method, url, headers: auth(key), ...(payload ? { payload } : {}) });
  }
  async function post(key: string, url: string, payload: object) {
    const res = await call(key, 'POST', url, payload);
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json();
  }
  async function issueAndFetch(issuer: TestIssuer, definition: string, completionKey: string): Promise<Json> {
    const issued = await post(issuer.key, '/api/v1/credentials', {
      definitionId: definition,
      recipientEmail: 'ada@example.test',
      completionKey,
    });
    const res = await t.app.inject({
      method: 'GET',
      url: `/v1/issuers/${issuer.slug}/credentials/${issued.credentialId}`,
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  }
  async function auditOf(issuer: TestIssuer, targetId: string) {
    const res = await call(issuer.key, 'GET', '/api/v1/audit?limit=200');
    return (res.json().items as Json[]).filter((i) => i.targetId === targetId);
  }
  const give = (key: string, payload: object) => call(key, 'POST', '/api/v1/endorsements/given', payload);

  beforeAll(async () => {
    t = await createTestApp(dialect);
    v = verifier(t.app, BASE);
    a = await t.issuer({ slug: `vce-a-${dialect}`, name: 'Analytical Academy' });
    e = await t.issuer({ slug: `vce-e-${dialect}`, name: 'Royal Society' });
    o = await t.issuer({ slug: `vce-o-${dialect}`, name: 'Other Office' });
    const definition = await post(a.key, '/api/v1/definitions', {
      name: 'Analytical Engines',
      description: 'Programs for the analytical engine.',
      criteriaNarrative: 'Write a program computing Bernoulli numbers.',
    });
    definitionId = definition.id;
    badgeClassUrl = `${BASE}/v1/issuers/${a.slug}/badges/${definition.slug}`;
    const own = await post(e.key, '/api/v1/definitions', {
      name: 'Fellowship',
      description: 'Fellows of the society.',
      criteriaNarrative: 'Elected by the fellows.',
    });
    ownBadgeClassUrl = `${BASE}/v1/issuers/${e.slug}/badges/${own.slug}`;
  });
  afterAll(async () => t.close());

  it('keeps an outside endorser’s claim unsigned: no EndorsementCredential in its name, the OB 2.0 Endorsement as it was', async () => {
    const recorded = await post(a.key, `/api/v1/definitions/${definitionId}/endorsements`, {
      endorserName: 'Charles Babbage',
      endorserUrl: 'https://babbage.example',
      claim: 'The engine’s best programmers hold it.',
    });
    expect(recorded).toMatchObject({ endorserName: 'Charles Babbage', signed: false });
    const credential = await issueAndFetch(a, definitionId, 'e:outside');
    expect(credential.credentialSubject.achievement.endorsement).toBeUndefined();
    expect(JSON.stringify(credential)).not.toContain('Charles Babbage');
    const hosted = await t.app.inject({ method: 'GET', url: `/v1/issuers/${a.slug}/endorsements/${recorded.id}` });
    expect(hosted.statusCode).toBe(200);
    expect(hosted.json()).toMatchObject({ type: 'Endorsement', claim: { id: badgeClassUrl } });
  });

  it('an issuer endorses another issuer’s definition with its own key: issuer its Profile, a status entry, audited, listed in the Achievement', async () => {
    // The endorser's own credential takes a status position first: both share one sequence.
    const ownDefinition = (await call(e.key, 'GET', '/api/v1/definitions')).json();
    const ownCredential = await issueAndFetch(e, (ownDefinition.items ?? ownDefinition)[0].id, 'e:own');
    const res = await give(e.key, { badgeClass: badgeClassUrl, claim: 'Rigorous and well assessed.' });
    expect(res.statusCode, res.body).toBe(201);
    const given = res.json();
    expect(given).toMatchObject({
      endorserIssuerId: e.id,
      endorsedIssuerId: a.id,
      definitionId,
      badgeClass: badgeClassUrl,
      claim: 'Rigorous and well assessed.',
      revokedAt: null,
    });
    const endorsement: Json = given.credential;
    expect(endorsement).toMatchObject({
      id: `urn:uuid:${given.id}`,
      type: ['VerifiableCredential', 'EndorsementCredential'],
      issuer: { id: didOf(e), type: ['Profile'], name: 'Royal Society' },
      credentialSubject: {
        id: badgeClassUrl,
        type: ['EndorsementSubject'],
        endorsementComment: 'Rigorous and well assessed.',
      },
      credentialStatus: {
        type: 'BitstringStatusListEntry',
        statusPurpose: 'revocation',
        statusListCredential: `${BASE}/v1/issuers/${e.slug}/status/0`,
      },
      proof: [{ type: 'DataIntegrityProof', verificationMethod: `${didOf(e)}#key-1`, proofPurpose: 'assertionMethod' }],
    });
    expect(endorsement.credentialStatus.statusListIndex).not.toBe(ownCredential.credentialStatus.statusListIndex);
    expect(validateEndorsement(endorsement), JSON.stringify(validateEndorsement.errors)).toBe(true);
    expect(await v.verify(endorsement)).toMatchObject({ verified: true, revoked: false });
    // Signed by the endorser: the badge issuer's key appears nowhere in it.
    expect(JSON.stringify(endorsement)).not.toContain(didOf(a));
    const changed = {
      ...endorsement,
      credentialSubject: { ...endorsement.credentialSubject, endorsementComment: 'Unreliable.' },
    };
    expect((await v.verify(changed)).verified).toBe(false);

    expect(await auditOf(e, given.id)).toEqual([
      expect.objectContaining({
        action: 'endorsement.given',
        actor: expect.stringMatching(/^key:/),
        targetType: 'endorsement',
      }),
    ]);
    expect((await call(e.key, 'GET', '/api/v1/endorsements/given')).json().map((g: Json) => g.id)).toEqual([given.id]);
    expect((await call(o.key, 'GET', '/api/v1/endorsements/given')).json()).toEqual([]);

    // Pending until the endorsed issuer accepts it (issue 48 §4): not embedded yet.
    expect(given.status).toBe('pending');
    const unaccepted = await issueAndFetch(a, definitionId, 'e:pending');
    expect(unaccepted.credentialSubject.achievement.endorsement).toBeUndefined();
    const accepted = await call(a.key, 'POST', `/api/v1/endorsements/received/${given.id}/accept`);
    expect(accepted.statusCode, accepted.body).toBe(200);
    const credential = await issueAndFetch(a, definitionId, 'e:endorsed');
    expect(credential.credentialSubject.achievement.endorsement).toEqual([endorsement]);
    expect(validateCredential?.(credential), JSON.stringify(validateCredential?.errors)).toBe(true);
    expect(await v.verify(credential)).toMatchObject({ verified: true, revoked: false });
  });

  it('revoking the endorsement flips its status bit; credentials signed afterwards stop listing it; the endorser’s credentials stay valid', async () => {
    const w = await t.issuer({ slug: `vce-w-${dialect}`, name: 'Withdrawing Society' });
    const given = (await give(w.key, { badgeClass: badgeClassUrl, claim: 'To be withdrawn.' })).json();
    expect((await call(a.key, 'POST', `/api/v1/endorsements/received/${given.id}/accept`)).statusCode).toBe(200);
    const before = await issueAndFetch(a, definitionId, 'e:before-revoke');
    const listed = (before.credentialSubject.achievement.endorsement as Json[]).map((c) => c.id);
    expect(listed).toContain(`urn:uuid:${given.id}`);

    const revoked = await call(w.key, 'POST', `/api/v1/endorsements/given/${given.id}/revoke`);
    expect(revoked.statusCode, revoked.body).toBe(200);
    expect(revoked.json().revokedAt).toEqual(expect.any(String));
    expect(await v.verify(given.credential)).toMatchObject({ verified: false, revoked: true });
    const again = await call(w.key, 'POST', `/api/v1/endorsements/given/${given.id}/revoke`);
    expect(again.json().revokedAt).toBe(revoked.json().revokedAt);
    expect((await auditOf(w, given.id)).map((r) => r.action).sort()).toEqual([
      'endorsement.given',
      'endorsement.revoked',
    ]);

    const after = await issueAndFetch(a, definitionId, 'e:after-revoke');
    const still = ((after.credentialSubject.achievement.endorsement ?? []) as Json[]).map((c) => c.id);
    expect(still).not.toContain(`urn:uuid:${given.id}`);
    expect(still).toHaveLength(listed.length - 1);
    // The one signed before keeps its bytes; its embedded endorsement now reads revoked.
    expect(await v.verify(before)).toMatchObject({ verified: true, revoked: false });
    const ownDefinition = (await call(e.key, 'GET', '/api/v1/definitions')).json();
    const own = await issueAndFetch(e, (ownDefinition.items ?? ownDefinition)[0].id, 'e:own-after');
    expect(await v.verify(own)).toMatchObject({ verified: true, revoked: false });
    // Revoked, it may give that definition another endorsement; one not revoked, it may not.
    expect((await give(w.key, { badgeClass: badgeClassUrl, claim: 'Again.' })).statusCode).toBe(201);
    expectErrorBody(await give(w.key, { badgeClass: badgeClassUrl, claim: 'Thrice.' }), 409, 'already_endorsed');
  });

  it('refuses its own definition, a URL that is no BadgeClass here and an unknown definition; keyed and per-issuer', async () => {
    expectErrorBody(
      await give(e.key, { badgeClass: ownBadgeClassUrl, claim: 'Self-praise.' }),
      400,
      'validation_failed',
    );
    for (const badgeClass of ['https://elsewhere.example/badges/x', `${BASE}/v1/issuers/${a.slug}/assertions/x`]) {
      expectErrorBody(await give(e.key, { badgeClass, claim: 'x' }), 400, 'validation_failed');
    }
    expectErrorBody(
      await give(e.key, { badgeClass: `${BASE}/v1/issuers/${a.slug}/badges/no-such-badge`, claim: 'x' }),
      404,
      'not_found',
    );
    expectErrorBody(await give(e.key, { badgeClass: 'not a url', claim: 'x' }), 400, 'validation_failed');
    const payload = { badgeClass: badgeClassUrl, claim: 'x' };
    await expectKeyRequired(t.app, { method: 'POST', url: '/api/v1/endorsements/given', payload });
    await expectKeyRequired(t.app, { method: 'GET', url: '/api/v1/endorsements/given' });
    await expectKeyRequired(t.app, { method: 'POST', url: `/api/v1/endorsements/given/${MISSING}/revoke` });
    const m = await t.issuer({ slug: `vce-m-${dialect}`, name: 'Mine Society' });
    const given = (await give(m.key, { badgeClass: badgeClassUrl, claim: 'Mine to revoke.' })).json();
    await expectHiddenFromOtherIssuer(
      t.app,
      o.key,
      { method: 'POST', url: `/api/v1/endorsements/given/${given.id}/revoke` },
      { method: 'POST', url: `/api/v1/endorsements/given/${MISSING}/revoke` },
    );
    // The endorsed issuer cannot revoke it either: only the endorser's key can.
    expect((await call(a.key, 'POST', `/api/v1/endorsements/given/${given.id}/revoke`)).statusCode).toBe(404);
    expect(await v.verify(given.credential)).toMatchObject({ verified: true, revoked: false });
  });
});
