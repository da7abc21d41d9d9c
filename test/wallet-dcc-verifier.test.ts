import { readFileSync } from 'node:fs';
import { verifyCredential } from '@digitalcredentials/verifier-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { OB_V3_CREDENTIAL_SCHEMA } from '../src/modules/vc/contexts.js';
import { auth, createTestApp, dialects, type TestApp, type TestIssuer } from './helpers.js';
import { didAuth, didKeyWallet } from './lcw.support.js';

/*
 * The Learner Credential Wallet checks what it stores with DCC's verifier-core. This runs that
 * library, unchanged, over the holder-bound credential the LCW exchange hands out: it resolves the
 * issuer's did:web and reads the status list through fetch, which here reaches the service under
 * test for its own host, and the vendored 1EdTech schema for its purl (test/fixtures/vc/README.md);
 * everything else, the issuer registries included, is offline.
 */

const BASE = 'https://badges.test';
const OB_SCHEMA = readFileSync(new URL('./fixtures/vc/ob_v3p0_achievementcredential_schema.json', import.meta.url));

interface LogEntry {
  id: string;
  valid?: boolean;
}
interface VerifierResult {
  log?: LogEntry[];
  errors?: { name: string; message: string }[];
  additionalInformation?: { id: string; results?: { schema: string; result: { valid: boolean } }[] }[];
}

const step = (result: VerifierResult, id: string) => result.log?.find((entry) => entry.id === id)?.valid;

describe.each(dialects)('DCC verifier-core over the wallet credential on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let definitionId: string;

  /** fetch as the verifier sees the world: this service at its public host, the schema, nothing else. */
  function routeFetchToService() {
    vi.stubGlobal('fetch', async (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (url.href === OB_V3_CREDENTIAL_SCHEMA) {
        return new Response(OB_SCHEMA, { headers: { 'content-type': 'application/json' } });
      }
      if (url.origin !== BASE) throw new TypeError(`fetch failed: ${url.origin} is offline in this test`);
      const res = await t.app.inject({
        method: 'GET',
        url: `${url.pathname}${url.search}`,
        headers: { accept: new Headers(init?.headers).get('accept') ?? 'application/json' },
      });
      return new Response(res.rawPayload, {
        status: res.statusCode,
        headers: { 'content-type': String(res.headers['content-type'] ?? 'application/json') },
      });
    });
  }

  async function walletCredential(completionKey: string) {
    const issued = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(a.key),
      payload: { definitionId, recipientEmail: 'dcc@example.test', completionKey },
    });
    const id = issued.json().credentialId as string;
    const offer = await t.app.inject({ method: 'POST', url: `/api/v1/credentials/${id}/offers`, headers: auth(a.key) });
    const link = new URL(offer.json().learnerCredentialWallet.url);
    const { did, key } = await didKeyWallet();
    const presentation = await didAuth(did, key, link.searchParams.get('challenge') as string);
    const res = await t.app.inject({
      method: 'POST',
      url: (link.searchParams.get('vc_request_url') as string).replace(BASE, ''),
      payload: presentation,
    });
    expect(res.statusCode, res.body).toBe(200);
    return { id, credential: res.json(), holder: did };
  }

  beforeAll(async () => {
    t = await createTestApp(dialect, { env: { SIGNING_KEY_SECRET: 'test-signing-key-secret-0123456789abcdef' } });
    a = await t.issuer({ slug: `wallet-dcc-${dialect}` });
    const definition = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(a.key),
      payload: { name: 'Verified by the wallet', description: 'Checked the way LCW checks it' },
    });
    definitionId = definition.json().id;
  });
  afterEach(() => vi.unstubAllGlobals());
  afterAll(async () => t.close());

  it('finds the signature valid, the credential unexpired and not revoked, then revoked once it is', async () => {
    const { id, credential, holder } = await walletCredential('dcc:1');
    expect(credential.credentialSubject.id).toBe(holder);
    routeFetchToService();

    const fresh = (await verifyCredential({ credential, knownDIDRegistries: [] })) as VerifierResult;
    expect(fresh.errors, JSON.stringify(fresh.errors)).toBeUndefined();
    expect(step(fresh, 'valid_signature')).toBe(true);
    expect(step(fresh, 'expiration')).toBe(true);
    expect(step(fresh, 'revocation_status')).toBe(true);
    const schemas = fresh.additionalInformation?.find((entry) => entry.id === 'schema_check')?.results;
    expect(schemas?.map(({ schema, result }) => [schema, result.valid])).toEqual([[OB_V3_CREDENTIAL_SCHEMA, true]]);

    const revoked = await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${id}/revoke`,
      headers: auth(a.key),
      payload: { reason: 'Issued in error' },
    });
    expect(revoked.statusCode, revoked.body).toBe(200);
    const after = (await verifyCredential({ credential, knownDIDRegistries: [] })) as VerifierResult;
    expect(step(after, 'valid_signature')).toBe(true);
    expect(step(after, 'revocation_status')).toBe(false);
  });

  it('finds a credential changed after signing invalid', async () => {
    const { credential } = await walletCredential('dcc:2');
    routeFetchToService();
    const tampered = {
      ...credential,
      credentialSubject: {
        ...credential.credentialSubject,
        achievement: { ...credential.credentialSubject.achievement, name: 'Something else' },
      },
    };
    const result = (await verifyCredential({ credential: tampered, knownDIDRegistries: [] })) as VerifierResult;
    expect(step(result, 'valid_signature') === true).toBe(false);
  });
});
