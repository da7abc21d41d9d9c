import { readFileSync } from 'node:fs';
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import { cryptosuite } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import multikeyContext from '@digitalbazaar/multikey-context';
import { type DocumentLoader, verifyCredential } from '@digitalbazaar/vc';
import { Ajv2019 } from 'ajv/dist/2019.js';
import formats from 'ajv-formats';
import didContext from 'did-context';
import jsonld from 'jsonld';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentLoader } from '../src/modules/vc/contexts.js';
import { earnerSession } from './backpack.support.js';
import {
  auth,
  createTestApp,
  dialects,
  expectErrorBody,
  expectHiddenFromOtherIssuer,
  manualClock,
  type TestApp,
  type TestIssuer,
} from './helpers.js';
import { storedText } from './ingest.support.js';
import { verifier } from './vc.support.js';

/*
 * CLR 2.0 (issue 47 §3). The CLR is checked by an independent verifier (Digital Bazaar vc over the
 * publishers' context packages, this service's did:web documents and status lists) given the CLR
 * 2.0.1 context as vendored from 1EdTech, which the first block proves equal to 1EdTech's own by
 * 1EdTech's CLR signing test vector.
 */

const BASE = 'https://badges.test';
const LEARNER = 'Clr.Learner+Canary@Example.TEST';
const SECRET = { SIGNING_KEY_SECRET: 'test-signing-key-secret-0123456789abcdef' };
const CLR_CONTEXT_URL = 'https://purl.imsglobal.org/spec/clr/v2p0/context-2.0.1.json';
const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');
const clrContext = JSON.parse(read('../src/modules/vc/vendor/clr-v2p0/context-2.0.1.json'));
const fixture = (name: string) => read(`./fixtures/clr/${name}`);

const ajv = new Ajv2019({ strict: false, allErrors: true });
(formats as unknown as typeof formats.default)(ajv);
const validateAchievementCredential = ajv.compile(
  JSON.parse(read('./fixtures/vc/ob_v3p0_achievementcredential_schema.json')),
);
// 1EdTech's ClrCredential JSON Schema, the one every CLR names in credentialSchema (fixtures/clr/README.md).
const validateClrCredential = ajv.compile(JSON.parse(fixture('clr_v2p0_clrcredential_schema.json')));
const schemaErrors = (validate: { errors?: unknown }) => JSON.stringify(validate.errors);

type Json = Record<string, unknown>;
interface Clr {
  '@context': string[];
  id: string;
  type: string[];
  issuer: { id: string };
  name: string;
  validFrom: string;
  validUntil?: string;
  partial: boolean;
  credentialSubject: {
    type: string[];
    identifier: { identityHash: string; salt: string; hashed: boolean }[];
    achievement: { id: string; name: string }[];
    verifiableCredential: (Json & { id: string; credentialSubject: { achievement: { id: string } } })[];
    association: { type: string; associationType: string; sourceId: string; targetId: string }[];
  };
  credentialSchema: { id: string; type: string }[];
  proof: Json[];
}

describe('the vendored CLR 2.0.1 context against 1EdTech’s CLR signing test vector', () => {
  const signed = JSON.parse(fixture('signed-clr.json')) as Json;

  it('canonicalises 1EdTech’s example ClrCredential to 1EdTech’s N-Quads (URDNA2015, safe mode)', async () => {
    const { proof: _proof, ...document } = signed;
    const nquads = await jsonld.canonize(document, {
      algorithm: 'URDNA2015',
      format: 'application/n-quads',
      documentLoader: documentLoader(),
      safe: true,
    });
    expect(nquads).toBe(fixture('document-canon.txt'));
  });

  it('verifies 1EdTech’s signed ClrCredential with Digital Bazaar vc and its published key, and refuses an altered one', async () => {
    const controller = 'https://example.edu/issuers/565049';
    const method = {
      '@context': multikeyContext.CONTEXT_URL,
      id: `${controller}#z6MkjZRZv3aez3r18pB1RBFJR1kwUVJ5jHt92JmQwXbd5hwi`,
      type: 'Multikey',
      controller,
      publicKeyMultibase: 'z6MkjZRZv3aez3r18pB1RBFJR1kwUVJ5jHt92JmQwXbd5hwi',
    };
    const base = documentLoader();
    const loader: DocumentLoader = async (url) => {
      if (url === method.id) return { document: method, documentUrl: url, contextUrl: null };
      if (url === controller) {
        const document = {
          '@context': [didContext.CONTEXT_URL, multikeyContext.CONTEXT_URL],
          id: controller,
          assertionMethod: [method],
        };
        return { document, documentUrl: url, contextUrl: null };
      }
      return base(url);
    };
    const suite = new DataIntegrityProof({ cryptosuite });
    const ok = await verifyCredential({ credential: signed, suite, documentLoader: loader, checkStatus: undefined });
    expect(ok.verified, JSON.stringify(ok.error)).toBe(true);
    const altered = await verifyCredential({
      credential: { ...signed, name: 'Another Transcript' },
      suite,
      documentLoader: loader,
    });
    expect(altered.verified).toBe(false);
  });
});

describe.each(dialects)('CLR 2.0 of a completed pathway on %s', (dialect) => {
  // In the past: the status list library checks a list's validFrom against the real time.
  const clock = manualClock('2026-11-02T09:00:00.000Z');
  let t: TestApp;
  let a: TestIssuer;
  let b: TestIssuer;
  let v: ReturnType<typeof verifier>;
  let pathwayId: string;
  let stage: Record<'intro' | 'core' | 'elective', { definitionId: string; credentialId?: string }>;

  const post = (key: string, url: string, payload: object) =>
    t.app.inject({ method: 'POST', url, headers: auth(key), payload });
  const path = (url: string) => (url.startsWith(BASE) ? url.slice(BASE.length) : url);

  async function created(key: string, url: string, payload: object): Promise<Json> {
    const res = await post(key, url, payload);
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  }

  /** The verifier's loader, given the CLR 2.0.1 context read straight from the vendored file. */
  function clrVerifier() {
    const loader: DocumentLoader = async (url) =>
      url === CLR_CONTEXT_URL ? { document: clrContext, documentUrl: url, contextUrl: null } : v.documentLoader(url);
    const suite = new DataIntegrityProof({ cryptosuite });
    return (credential: object) =>
      verifyCredential({ credential, suite, documentLoader: loader, now: clock.now() } as never) as Promise<{
        verified: boolean;
        error?: unknown;
      }>;
  }

  async function issueClr(key = a.key, email = LEARNER) {
    return post(key, `/api/v1/pathways/${pathwayId}/clr`, { recipientEmail: email });
  }

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock, env: dialect === 'postgres' ? SECRET : {} });
    v = verifier(t.app, BASE);
    a = await t.issuer({ slug: `clr-a-${dialect}`, name: 'Pathway Polytechnic' });
    b = await t.issuer({ slug: `clr-b-${dialect}` });
    const definition = async (name: string, extra: object = {}) =>
      (await created(a.key, '/api/v1/definitions', { name, description: `${name} course`, ...extra })).id as string;
    stage = {
      intro: { definitionId: await definition('Intro to Data') },
      core: { definitionId: await definition('Core Pipelines', { validForMonths: 24 }) },
      elective: { definitionId: await definition('Elective Visualisation') },
    };
    pathwayId = (await created(a.key, '/api/v1/pathways', { name: 'Data Engineer', description: 'Zero to pipelines' }))
      .id as string;
    await created(a.key, `/api/v1/pathways/${pathwayId}/stages`, {
      definitionId: stage.intro.definitionId,
      stepOrder: 1,
    });
    await created(a.key, `/api/v1/pathways/${pathwayId}/stages`, {
      definitionId: stage.core.definitionId,
      stepOrder: 2,
    });
    await created(a.key, `/api/v1/pathways/${pathwayId}/stages`, {
      definitionId: stage.elective.definitionId,
      stepOrder: 3,
      required: false,
    });
  });
  afterAll(async () => t.close());

  async function earn(which: keyof typeof stage, completionKey: string) {
    const issued = await created(a.key, '/api/v1/credentials', {
      definitionId: stage[which].definitionId,
      recipientEmail: LEARNER,
      completionKey,
    });
    stage[which].credentialId = issued.credentialId as string;
  }

  it('answers 409 pathway_incomplete naming the required stages not earned, and 422 for a pathway without stages', async () => {
    await earn('intro', 'clr-intro');
    const body = expectErrorBody(await issueClr(), 409, 'pathway_incomplete');
    expect(body.missingStages).toEqual([
      expect.objectContaining({ definitionId: stage.core.definitionId, stepOrder: 2 }),
    ]);
    const empty = await created(a.key, '/api/v1/pathways', { name: 'Empty Track', description: 'none yet' });
    const res = await post(a.key, `/api/v1/pathways/${empty.id}/clr`, { recipientEmail: LEARNER });
    expectErrorBody(res, 422, 'pathway_empty');
    // Only optional stages, none earned: complete by the pathway's rule, but a CLR holds at least one credential.
    const optional = await created(a.key, '/api/v1/pathways', { name: 'Electives', description: 'any of them' });
    await created(a.key, `/api/v1/pathways/${optional.id}/stages`, {
      definitionId: stage.elective.definitionId,
      stepOrder: 1,
      required: false,
    });
    const none = expectErrorBody(
      await post(a.key, `/api/v1/pathways/${optional.id}/clr`, { recipientEmail: 'nobody@example.org' }),
      409,
      'pathway_incomplete',
    );
    expect(none.missingStages).toEqual([expect.objectContaining({ definitionId: stage.elective.definitionId })]);
    expectErrorBody(await issueClr(a.key, 'not an address'), 400, 'validation_failed');
  });

  it('issues a ClrCredential holding the signed stage credentials in pathway order, which Digital Bazaar vc verifies', async () => {
    await earn('core', 'clr-core');
    clock.advance(60_000);
    const res = await issueClr();
    expect(res.statusCode, res.body).toBe(201);
    const issued = res.json() as { id: string; credentialUrl: string; validUntil: string | null; credential: Clr };
    const clr = issued.credential;
    expect(clr['@context'].slice(0, 3)).toEqual([
      'https://www.w3.org/ns/credentials/v2',
      CLR_CONTEXT_URL,
      'https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json',
    ]);
    expect(clr.type).toEqual(['VerifiableCredential', 'ClrCredential']);
    expect(clr.id).toBe(issued.credentialUrl);
    expect(clr.issuer.id).toBe(`did:web:badges.test:v1:issuers:${a.slug}`);
    expect(clr.name).toBe('Data Engineer');
    expect(clr.partial).toBe(true);
    expect(clr.credentialSchema).toEqual([
      {
        id: 'https://purl.imsglobal.org/spec/clr/v2p0/schema/json/clr_v2p0_clrcredential_schema.json',
        type: '1EdTechJsonSchemaValidator2019',
      },
    ]);
    expect(validateClrCredential(clr), schemaErrors(validateClrCredential)).toBe(true);
    // The schema is a real check: without the ClrCredential type, or without an issuer, it fails.
    expect(validateClrCredential({ ...clr, type: ['VerifiableCredential'] })).toBe(false);
    const { issuer: _issuer, ...unissued } = clr;
    expect(validateClrCredential(unissued)).toBe(false);
    // The core definition's credentials expire after 24 months: so does the CLR that shows them.
    expect(clr.validUntil).toBe(issued.validUntil);
    expect(clr.validUntil?.startsWith('2028-11-02')).toBe(true);

    const subject = clr.credentialSubject;
    expect(subject.type).toEqual(['ClrSubject']);
    expect(subject.identifier[0]).toMatchObject({ hashed: true, salt: a.salt });
    const members = subject.verifiableCredential;
    expect(members.map((m) => m.id)).toEqual([
      `${BASE}/v1/issuers/${a.slug}/credentials/${stage.intro.credentialId}`,
      `${BASE}/v1/issuers/${a.slug}/credentials/${stage.core.credentialId}`,
    ]);
    const [intro, core] = members.map((m) => m.credentialSubject.achievement.id);
    expect(subject.achievement.map((x) => x.id)).toEqual([intro, core]);
    expect(subject.association).toEqual([
      { type: 'Association', associationType: 'precedes', sourceId: intro, targetId: core },
    ]);

    const verify = clrVerifier();
    const result = await verify(clr);
    expect(result.verified, JSON.stringify(result.error)).toBe(true);
    for (const member of members) {
      const checked = await v.verify(member, clock.now());
      expect(checked.verified, JSON.stringify(checked.error)).toBe(true);
      expect(validateAchievementCredential(member), JSON.stringify(validateAchievementCredential.errors)).toBe(true);
      // Each member is exactly the credential the issuer hosts, byte for byte of its JSON.
      const hosted = await t.app.inject({ method: 'GET', url: path(member.id) });
      expect(hosted.json()).toEqual(member);
    }
    expect((await verify({ ...clr, name: 'Data Scientist' })).verified).toBe(false);
    const swapped = structuredClone(clr);
    swapped.credentialSubject.association = [];
    expect((await verify(swapped)).verified).toBe(false);
  });

  it('serves the CLR at its URL as signed, and answers the same CLR while the same credentials earn it', async () => {
    const again = await issueClr();
    expect(again.statusCode, again.body).toBe(200);
    const first = again.json() as { id: string; credentialUrl: string; credential: Clr };
    const hosted = await t.app.inject({ method: 'GET', url: path(first.credentialUrl) });
    expect(hosted.statusCode).toBe(200);
    expect(hosted.headers['content-type']).toContain('application/ld+json');
    expect(hosted.json()).toEqual(first.credential);
    const elsewhere = path(first.credentialUrl).replace(`/issuers/${a.slug}/`, `/issuers/${b.slug}/`);
    expectErrorBody(await t.app.inject({ method: 'GET', url: elsewhere }), 404, 'not_found');

    await earn('elective', 'clr-elective');
    const wider = await issueClr();
    expect(wider.statusCode, wider.body).toBe(201);
    const clr = (wider.json() as { credential: Clr }).credential;
    expect(clr.credentialSubject.verifiableCredential).toHaveLength(3);
    const [intro, core, elective] = clr.credentialSubject.achievement.map((x) => x.id);
    expect(clr.credentialSubject.association).toEqual([
      { type: 'Association', associationType: 'precedes', sourceId: intro, targetId: core },
      { type: 'Association', associationType: 'precedes', sourceId: core, targetId: elective },
    ]);
    expect((await clrVerifier()(clr)).verified).toBe(true);
    expect(validateClrCredential(clr), schemaErrors(validateClrCredential)).toBe(true);
  });

  it('shows the earner’s CLRs in the backpack and serves them through the Open Badges API as the earner’s credentials', async () => {
    const earner = await earnerSession(t.app, LEARNER);
    const page = await t.app.inject({ method: 'GET', url: '/backpack', headers: { cookie: earner.cookie } });
    expect(page.body).toContain('Your learner records');
    const links = [...page.body.matchAll(/href="([^"]+\/clr\/[^"]+)"/g)].map((m) => m[1]);
    expect(links).toHaveLength(2);
    const hosted = await t.app.inject({ method: 'GET', url: path(links[0] as string) });
    expect(hosted.json().type).toEqual(['VerifiableCredential', 'ClrCredential']);
    // Another earner's backpack lists none of them.
    const other = await earnerSession(t.app, 'other.earner@example.test');
    const otherPage = await t.app.inject({ method: 'GET', url: '/backpack', headers: { cookie: other.cookie } });
    expect(otherPage.body).not.toContain('/clr/');

    const listed = await t.app.services.obapi.credentials(earner.accountId, { limit: 50, offset: 0, since: null });
    const types = listed.credential.map((c) => (c as { type: string[] }).type.at(-1));
    expect(types.filter((type) => type === 'ClrCredential')).toHaveLength(2);
    expect(types.filter((type) => type === 'OpenBadgeCredential')).toHaveLength(3);
    expect(listed.total).toBe(5);
    // Every credential the API returns is valid by the 1EdTech schema of its kind.
    for (const credential of listed.credential) {
      const validate =
        (credential as { type: string[] }).type.at(-1) === 'ClrCredential'
          ? validateClrCredential
          : validateAchievementCredential;
      expect(validate(credential), schemaErrors(validate)).toBe(true);
    }
    const clr = listed.credential.find((c) => links[0]?.endsWith((c as { id: string }).id.split('/').pop() ?? '-'));
    expect((await clrVerifier()(clr as object)).verified).toBe(true);
    const none = await t.app.services.obapi.credentials(other.accountId, { limit: 50, offset: 0, since: null });
    expect(none.total).toBe(0);
  });

  it('keeps the pathway of one issuer from another issuer’s key', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    await expectHiddenFromOtherIssuer(
      t.app,
      b.key,
      { method: 'POST', url: `/api/v1/pathways/${pathwayId}/clr`, payload: { recipientEmail: LEARNER } },
      { method: 'POST', url: `/api/v1/pathways/${missing}/clr`, payload: { recipientEmail: LEARNER } },
    );
    expect((await issueClr(a.key, 'someone.else@example.test')).statusCode).toBe(409);
  });

  it('audits each CLR issued, and stores no raw address', async () => {
    const records = await t.database.db
      .selectFrom('audit_log')
      .select(['action', 'target_id', 'details'])
      .where('issuer_id', '=', a.id)
      .where('action', '=', 'pathway.clr_issued')
      .execute();
    expect(records).toHaveLength(2);
    expect(records.every((r) => r.target_id === pathwayId)).toBe(true);
    expect(await storedText(t)).not.toContain('clr.learner+canary');
  });

  it('refuses a new CLR once a required stage’s credential is revoked; the CLR issued shows the revocation', async () => {
    const revoke = await post(a.key, `/api/v1/credentials/${stage.core.credentialId}/revoke`, { reason: 'error' });
    expect(revoke.statusCode, revoke.body).toBe(200);
    expectErrorBody(await issueClr(), 409, 'pathway_incomplete');
    const latest = await t.database.db
      .selectFrom('clr_credentials' as never)
      .select(['credential' as never])
      .orderBy('created_at' as never, 'desc')
      .executeTakeFirstOrThrow();
    const clr = JSON.parse((latest as { credential: string }).credential) as Clr;
    expect((await clrVerifier()(clr)).verified).toBe(true);
    const core = clr.credentialSubject.verifiableCredential[1] as Json;
    expect(await v.verify(core, clock.now())).toMatchObject({ verified: false, revoked: true });
  });
});
