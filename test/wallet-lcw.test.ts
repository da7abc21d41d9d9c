import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logOptions } from '../src/app.js';
import { auth, createTestApp, dialects, manualClock, type TestApp, type TestIssuer } from './helpers.js';
import { didAuth, didKeyWallet } from './lcw.support.js';
import { verifier } from './vc.support.js';

const BASE = 'https://badges.test';

const EMAIL = 'Lcw.Learner+Canary@Example.TEST';
const NAME = 'Lovelace Canary Learner';

describe.each(dialects)('the Learner Credential Wallet exchange on %s', (dialect) => {
  const clock = manualClock('2026-03-02T09:00:00.000Z');
  const logs: string[] = [];
  const challenges: string[] = [];
  let t: TestApp;
  let a: TestIssuer;
  let definitionId: string;

  async function offerFor(completionKey: string) {
    const issued = await t.app.inject({
      method: 'POST',
      url: '/api/v1/credentials',
      headers: auth(a.key),
      payload: { definitionId, recipientEmail: EMAIL, recipientName: NAME, completionKey },
    });
    const id = issued.json().credentialId as string;
    const res = await t.app.inject({ method: 'POST', url: `/api/v1/credentials/${id}/offers`, headers: auth(a.key) });
    expect(res.statusCode, res.body).toBe(201);
    const link = new URL(res.json().learnerCredentialWallet.url);
    expect(`${link.origin}${link.pathname}`).toBe('https://lcw.app/request.html');
    expect(res.json().learnerCredentialWallet.deepLink).toBe(`dccrequest://request?${link.searchParams.toString()}`);
    expect(link.searchParams.get('auth_type')).toBe('bearer');
    expect(link.searchParams.get('issuer')).toBe(`${BASE}/v1/issuers/${a.slug}`);
    challenges.push(link.searchParams.get('challenge') as string);
    return {
      id,
      challenge: link.searchParams.get('challenge') as string,
      requestUrl: link.searchParams.get('vc_request_url') as string,
    };
  }
  const post = (url: string, payload: object) =>
    t.app.inject({
      method: 'POST',
      url: url.replace(BASE, ''),
      payload,
      headers: { 'content-type': 'application/json' },
    });

  beforeAll(async () => {
    const stream = new Writable({
      write(chunk, _encoding, done) {
        logs.push(chunk.toString());
        done();
      },
    });
    t = await createTestApp(dialect, {
      clock,
      env: { SIGNING_KEY_SECRET: 'test-signing-key-secret-0123456789abcdef' },
      logger: { ...logOptions('trace'), stream },
    });
    a = await t.issuer({ slug: `wallet-lcw-${dialect}` });
    const definition = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(a.key),
      payload: { name: 'Learner wallets', description: 'Keeping credentials' },
    });
    definitionId = definition.json().id;
  });
  afterAll(async () => t.close());

  it('answers a DIDAuthentication by its holder with the credential bound to that did:key, once', async () => {
    const { id, challenge, requestUrl } = await offerFor('lcw:1');
    const wallet = await didKeyWallet();
    const presentation = await didAuth(wallet.did, wallet.key, challenge);
    const res = await post(requestUrl, presentation);
    expect(res.statusCode, res.body).toBe(200);
    const credential = res.json();
    expect(credential.credentialSubject.id).toBe(wallet.did);
    expect(credential.id).toBe(`${BASE}/v1/issuers/${a.slug}/credentials/${id}`);
    const checked = await verifier(t.app, BASE).verify(credential, clock.now());
    expect(checked.verified, String(checked.error)).toBe(true);
    const again = await post(requestUrl, presentation);
    expect(again.statusCode).toBe(404);
  });

  it('refuses a presentation signed by a key that is not its holder’s, another challenge, or a holder swapped after signing', async () => {
    const { challenge, requestUrl } = await offerFor('lcw:2');
    const holder = await didKeyWallet();
    const intruder = await didKeyWallet();
    const foreign = await didAuth(holder.did, intruder.key, challenge);
    expect((await post(requestUrl, foreign)).statusCode).toBe(400);
    const otherChallenge = await didAuth(holder.did, holder.key, `${challenge}x`);
    expect((await post(requestUrl, otherChallenge)).statusCode).toBe(400);
    const good = await didAuth(holder.did, holder.key, challenge);
    const tampered = { ...good, holder: intruder.did };
    expect((await post(requestUrl, tampered)).statusCode).toBe(400);
    // The three refusals spent three of the challenge's attempts (LCW_ATTEMPTS): the holder's own
    // presentation, within them, still gets the credential.
    expect((await post(requestUrl, good)).statusCode).toBe(200);
    const issued = await t.database.db
      .selectFrom('audit_log')
      .select('details')
      .where('issuer_id', '=', a.id)
      .where('action', '=', 'wallet_credential.issued')
      .execute();
    expect(issued).toHaveLength(2);
  });

  it('refuses an expired exchange', async () => {
    const { challenge, requestUrl } = await offerFor('lcw:3');
    clock.advance(31 * 86_400_000);
    const wallet = await didKeyWallet();
    expect((await post(requestUrl, await didAuth(wallet.did, wallet.key, challenge))).statusCode).toBe(404);
  });

  it('never writes the email, the name or a challenge to a log line', () => {
    const text = logs.join('');
    expect(text).toContain('/lcw/exchanges/');
    expect(challenges.length).toBeGreaterThan(0);
    for (const secret of [EMAIL, EMAIL.toLowerCase(), NAME, ...challenges]) expect(text).not.toContain(secret);
  });
});
