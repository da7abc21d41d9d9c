import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, createTestApp, dialects, type TestApp, type TestIssuer } from './helpers.js';
import { createDefinition, type Issued, issue, revoke } from './verification.support.js';

const BASE = 'https://badges.test';

/**
 * A revocation's reason as the public sees it: an erasure never says so (it reads exactly like a
 * revocation without a reason), the service's own codes are plain words, and only the issuer's API
 * keeps what was stored.
 */
describe.each(dialects)('public wording of revocation reasons on %s', (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let erased: Issued;
  let silent: Issued;
  let stated: Issued;
  let reissued: Issued;
  let replacement: { credentialId: string; verifyUrl: string };

  const path = (url: string) => url.replace(BASE, '');
  const page = async (credential: Issued) => {
    const res = await t.app.inject({ method: 'GET', url: path(credential.verifyUrl) });
    expect(res.statusCode).toBe(200);
    return res.body;
  };
  const verified = async (credential: Issued) => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/verify', payload: { id: credential.assertionUrl } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const stub = async (credential: Issued) => {
    const res = await t.app.inject({ method: 'GET', url: path(credential.assertionUrl) });
    expect(res.statusCode).toBe(410);
    return res.json();
  };
  const detail = async (credential: Issued) =>
    (
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/credentials/${credential.credentialId}`,
        headers: auth(a.key),
      })
    ).json();

  beforeAll(async () => {
    t = await createTestApp(dialect);
    a = await t.issuer({ slug: `wording-${dialect}`, name: 'Northwind Academy' });
    const definition = await createDefinition(t, a, { name: 'Data Literacy' });
    erased = await issue(t, a, definition.id, { email: 'erin@example.test', name: 'Erin Quartermaine' });
    // Issued without a name, as an erased one ends up: the two differ only in what the issuer said.
    silent = await issue(t, a, definition.id, { email: 'sam@example.test' });
    stated = await issue(t, a, definition.id, { email: 'alan@example.test', name: 'Alan Turing' });
    reissued = await issue(t, a, definition.id, { email: 'grace@example.test', name: 'Grace Hopper' });
    const erase = await t.app.inject({
      method: 'POST',
      url: '/api/v1/gdpr/erase',
      headers: auth(a.key),
      payload: { recipientEmail: 'erin@example.test' },
    });
    expect(erase.statusCode, erase.body).toBe(200);
    const bare = await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${silent.credentialId}/revoke`,
      headers: auth(a.key),
    });
    expect(bare.statusCode, bare.body).toBe(200);
    await revoke(t, a, stated.credentialId, 'Assessment withdrawn');
    const fresh = await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${reissued.credentialId}/reissue`,
      headers: auth(a.key),
    });
    expect(fresh.statusCode, fresh.body).toBe(201);
    replacement = fresh.json();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('says "Revoked by the issuer" for an erasure everywhere public, exactly as for a revocation without reason', async () => {
    expect((await verified(erased)).revokedReason).toBe('Revoked by the issuer');
    expect((await verified(silent)).revokedReason).toBe('Revoked by the issuer');
    const bulk = await t.app.inject({
      method: 'POST',
      url: '/api/v1/verify/bulk',
      payload: { ids: [erased.assertionUrl, silent.assertionUrl] },
    });
    expect(bulk.json().results.map((r: { revokedReason: string }) => r.revokedReason)).toEqual([
      'Revoked by the issuer',
      'Revoked by the issuer',
    ]);
    expect((await stub(erased)).revocationReason).toBe('Revoked by the issuer');
    expect((await stub(silent)).revocationReason).toBe('Revoked by the issuer');
    const image = await t.app.inject({ method: 'GET', url: `${path(erased.assertionUrl)}/image.svg` });
    expect(image.json().revocationReason).toBe('Revoked by the issuer');

    const erasedPage = await page(erased);
    expect(erasedPage).toContain('Northwind Academy has revoked this credential.</p>');
    expect(erasedPage).not.toMatch(/gdpr|erasure|erase/i);
    // Apart from its own id, the erased credential's banner and meta tags are the silent one's.
    const banner = (body: string) => /<section class="status[\s\S]*?<\/section>/.exec(body)?.[0];
    const meta = (body: string) => body.match(/<meta (name|property)="(description|og:[a-z]+)"[^>]*>/g)?.join('\n');
    const silentPage = await page(silent);
    expect(banner(erasedPage)).toBe(banner(silentPage));
    expect(meta(erasedPage)?.replaceAll(erased.credentialId, 'ID')).toBe(
      meta(silentPage)?.replaceAll(silent.credentialId, 'ID'),
    );
  });

  it('keeps the stored reason in the issuer API', async () => {
    expect(await detail(erased)).toMatchObject({ status: 'revoked', revokedReason: 'gdpr_erasure' });
    expect(await detail(silent)).toMatchObject({ status: 'revoked', revokedReason: null });
    expect(await detail(reissued)).toMatchObject({ status: 'revoked', revokedReason: 'reissued' });
  });

  it('says "Replaced by a newer credential" for a reissue, and the page links the replacement', async () => {
    expect((await verified(reissued)).revokedReason).toBe('Replaced by a newer credential');
    expect((await stub(reissued)).revocationReason).toBe('Replaced by a newer credential');
    const body = await page(reissued);
    // Issue 46: a replaced credential is not shown as a red "Revoked": its own banner, and the newer one linked.
    expect(body).toContain('<section class="status status-replaced"');
    expect(body).toContain('<p class="label">Replaced by a newer credential</p>');
    expect(body).toContain(`<a class="replacement" href="${replacement.verifyUrl}">See the newer credential</a>`);
    expect(body).toContain('<dt>Replaced on</dt>');
    expect(body).toContain('<span class="stamp replaced" aria-hidden="true">Replaced</span>');
    expect(body).not.toContain('status-revoked');
    expect(body).not.toContain('>Revoked<');
    expect(body).not.toContain('reissued');
    const french = (await t.app.inject({ method: 'GET', url: `${path(reissued.verifyUrl)}?lang=fr` })).body;
    expect(french).toContain('<p class="label">Remplacé par un certificat plus récent</p>');
    expect(french).toContain(
      `<a class="replacement" href="${replacement.verifyUrl}">Voir le certificat plus récent</a>`,
    );
    expect((await verified(replacement as Issued)).status).toBe('valid');
  });

  it('reads a name correction the same way: replaced, and linked to the corrected credential', async () => {
    const definition = await createDefinition(t, a, { name: 'Safety Induction' });
    const misspelt = await issue(t, a, definition.id, { email: 'anh@example.test', name: 'Anh Nguyen' });
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/credentials/${misspelt.credentialId}/correct-name`,
      headers: auth(a.key),
      payload: { recipientName: 'Anh Nguyễn' },
    });
    expect(res.statusCode, res.body).toBe(201);
    const corrected = res.json().credentialId as string;
    const body = await page(misspelt);
    expect(body).toContain('<p class="label">Replaced by a newer credential</p>');
    expect(body).toContain(`href="${BASE}/verify/${a.slug}/${corrected}">See the newer credential</a>`);
    expect(body).not.toContain('status-revoked');
  });

  it("shows the issuer's own stated reason as written", async () => {
    expect((await verified(stated)).revokedReason).toBe('Assessment withdrawn');
    expect((await stub(stated)).revocationReason).toBe('Assessment withdrawn');
    expect(await page(stated)).toContain('has revoked this credential. Reason: Assessment withdrawn.</p>');
  });

  it('gives a standing credential no reason', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/verify',
      payload: { id: replacement.credentialId },
    });
    expect(res.json()).toMatchObject({ status: 'valid', revokedReason: null });
  });
});
