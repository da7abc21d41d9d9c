import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactUrl } from '../src/core/log-redaction.js';
import { TOKEN_LENGTH } from '../src/modules/certificates/certificates.links.js';
import { oneLine, readPdf } from './certificates.support.js';
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

const BASE = 'https://badges.test';
const MISSING = '00000000-0000-4000-8000-000000000000';
const OPEN_LIMIT = 300;
/** The price of one earner download, as the route's description states it. */
const COST = 30;
const TIMEOUT = 180_000;

let address = 0;
/** A fresh client address, so each check has the open limit to itself. */
const nextAddress = () => `10.44.${Math.floor(++address / 250)}.${address % 250}`;

describe.each(dialects)('Earner certificate links on %s', { timeout: TIMEOUT }, (dialect) => {
  let t: TestApp;
  let a: TestIssuer;
  let b: TestIssuer;
  let definitionId: string;

  async function call(key: string, method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, payload?: object) {
    return t.app.inject({ method, url, headers: auth(key), ...(payload ? { payload } : {}) });
  }
  async function issue(name: string, completionKey: string) {
    const res = await call(a.key, 'POST', '/api/v1/credentials', {
      definitionId,
      recipientEmail: `${completionKey}@example.org`,
      recipientName: name,
      completionKey,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().credentialId as string;
  }
  async function linkOf(id: string): Promise<string | null> {
    const res = await call(a.key, 'GET', `/api/v1/credentials/${id}/certificate-link`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().url;
  }
  /** An earner's download: no key, no cookie, from an address of its own. */
  const open = (url: string, remoteAddress = nextAddress()) =>
    t.app.inject({ method: 'GET', url: url.replace(BASE, ''), remoteAddress });

  beforeAll(async () => {
    t = await createTestApp(dialect, { env: { OPEN_RATE_LIMIT_PER_MINUTE: String(OPEN_LIMIT) } });
    a = await t.issuer({ name: 'Northwind Academy' });
    b = await t.issuer();
    const definition = await call(a.key, 'POST', '/api/v1/definitions', {
      name: 'Welding Level 2',
      description: 'Completed the course',
    });
    definitionId = definition.json().id;
  }, TIMEOUT);
  afterAll(async () => {
    await t.close();
  });

  it('opens the certificate with the full name, without a key; no public page shows that name', async () => {
    const id = await issue('Ada Augusta Lovelace', 'link-open');
    const url = await linkOf(id);
    expect(url).toMatch(new RegExp(`^${BASE}/certificate/[A-Za-z0-9_-]{${TOKEN_LENGTH}}$`));
    // The same link each time, and the one the module gives the award email and the wallet page.
    expect(await linkOf(id)).toBe(url);
    expect(await t.app.services.certificates.earnerLink(a.id, id)).toBe(url);

    const res = await open(url as string);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(oneLine((await readPdf(res.rawPayload)).text)).toContain('Ada Augusta Lovelace');
    // Priced before anything is read: the address's open limit went down by the cost.
    expect(Number(res.headers['x-ratelimit-remaining'])).toBe(OPEN_LIMIT - COST);

    // The verification page and the hosted documents keep the partial name.
    const credential = (await call(a.key, 'GET', `/api/v1/credentials/${id}`)).json();
    const pages = [
      new URL(credential.verifyUrl).pathname,
      `/v1/issuers/${a.slug}/credentials/${id}`,
      `/v1/issuers/${a.slug}/assertions/${id}`,
    ];
    for (const page of pages) {
      const publicPage = await t.app.inject({ method: 'GET', url: page });
      expect(publicPage.statusCode, page).toBe(200);
      expect(publicPage.body, page).not.toContain('Lovelace');
      expect(publicPage.body, page).not.toContain('/certificate/');
    }
    // The token never reaches the logs.
    expect(redactUrl(new URL(url as string).pathname)).toBe('/certificate/[redacted]');
  });

  it('a token that is not ours is 404 (altered, made up), a malformed one 400, and each is charged', async () => {
    const id = await issue('Mary Seacole', 'link-forged');
    const url = (await linkOf(id)) as string;
    const token = url.slice(url.lastIndexOf('/') + 1);
    const last = token.at(-1) === 'A' ? 'B' : 'A';
    const altered = `${token.slice(0, -1)}${last}`;
    for (const forged of [altered, 'A'.repeat(TOKEN_LENGTH), `${token.slice(0, 40)}${'_'.repeat(40)}`]) {
      const res = await open(`/certificate/${forged}`);
      const body = expectErrorBody(res, 404, 'not_found');
      expect(JSON.stringify(body)).not.toContain('Seacole');
      expect(Number(res.headers['x-ratelimit-remaining'])).toBe(OPEN_LIMIT - COST);
    }
    expectErrorBody(await open(`/certificate/${token.slice(1)}`), 400, 'validation_failed');
    expectErrorBody(await open('/certificate/not-a-token'), 400, 'validation_failed');
  });

  it('an address runs out after a few downloads: 429 before anything is rendered', async () => {
    const id = await issue('Florence Nightingale', 'link-limit');
    const url = (await linkOf(id)) as string;
    const from = nextAddress();
    const allowed = Math.floor(OPEN_LIMIT / COST);
    for (let i = 0; i < allowed; i++) expect((await open(url, from)).statusCode).toBe(200);
    const refused = expectErrorBody(await open(url, from), 429, 'rate_limited');
    expect(JSON.stringify(refused)).not.toContain('Nightingale');
    // Another address is not affected.
    expect((await open(url)).statusCode).toBe(200);
  });

  it('staff can withdraw a link: it answers 410, the new one works, and the change is audited', async () => {
    const id = await issue('Rosalind Franklin', 'link-revoke');
    const old = (await linkOf(id)) as string;
    const revoked = await call(a.key, 'POST', `/api/v1/credentials/${id}/certificate-link/revoke`);
    expect(revoked.statusCode, revoked.body).toBe(200);
    const fresh = revoked.json().url as string;
    expect(fresh).not.toBe(old);
    expect(await linkOf(id)).toBe(fresh);
    expectErrorBody(await open(old), 410, 'gone');
    expect((await open(fresh)).statusCode).toBe(200);
    // Twice: the second link is withdrawn too, the third one works.
    const third = (await call(a.key, 'POST', `/api/v1/credentials/${id}/certificate-link/revoke`)).json().url;
    expectErrorBody(await open(fresh), 410, 'gone');
    expectErrorBody(await open(old), 410, 'gone');
    expect((await open(third)).statusCode).toBe(200);

    const audit = await call(a.key, 'GET', '/api/v1/audit?limit=200');
    const records = (audit.json().items as { action: string; actor: string; targetId: string; details: unknown }[])
      .filter((r) => r.action === 'certificate_link.revoked' && r.targetId === id)
      .map((r) => r.details);
    expect(records).toEqual(expect.arrayContaining([{ generation: 1 }, { generation: 2 }]));
  });

  it('a revoked or erased credential answers 410 through its link; a reissue has its own link', async () => {
    const id = await issue('Grace Brewster Hopper', 'link-reissue');
    const old = (await linkOf(id)) as string;
    const reissue = await call(a.key, 'POST', `/api/v1/credentials/${id}/reissue`, {});
    expect(reissue.statusCode, reissue.body).toBe(201);
    const newId = reissue.json().credentialId as string;
    expectErrorBody(await open(old), 410, 'gone');
    expectErrorBody(await call(a.key, 'GET', `/api/v1/credentials/${id}/certificate-link`), 410, 'gone');
    expectErrorBody(await call(a.key, 'POST', `/api/v1/credentials/${id}/certificate-link/revoke`), 410, 'gone');
    expect(await t.app.services.certificates.earnerLink(a.id, id)).toBeNull();
    const renewed = (await linkOf(newId)) as string;
    expect(renewed).not.toBe(old);
    const fresh = await open(renewed);
    expect(fresh.statusCode).toBe(200);
    expect(oneLine((await readPdf(fresh.rawPayload)).text)).toContain('Grace Brewster Hopper');

    const erasedId = await issue('Katherine Coleman Johnson', 'link-erased');
    const erasedLink = (await linkOf(erasedId)) as string;
    expect((await open(erasedLink)).statusCode).toBe(200);
    const erase = await call(a.key, 'POST', '/api/v1/gdpr/erase', { recipientEmail: 'link-erased@example.org' });
    expect(erase.statusCode, erase.body).toBe(200);
    const gone = expectErrorBody(await open(erasedLink), 410, 'gone');
    expect(JSON.stringify(gone)).not.toContain('Katherine');
  });

  it('certificates turned off: no link (null), and an earlier link answers 404', async () => {
    const id = await issue('Dorothy Vaughan', 'link-off');
    const url = (await linkOf(id)) as string;
    await call(a.key, 'PUT', `/api/v1/definitions/${definitionId}/certificate`, { enabled: false });
    try {
      expect(await linkOf(id)).toBeNull();
      expect(await t.app.services.certificates.earnerLink(a.id, id)).toBeNull();
      expectErrorBody(await open(url), 404, 'not_found');
    } finally {
      await call(a.key, 'DELETE', `/api/v1/definitions/${definitionId}/certificate`);
    }
    expect(await linkOf(id)).toBe(url);
  });

  it('needs a key for staff routes, and another issuer’s credential is not found', async () => {
    const id = await issue('Mae Jemison', 'link-tenancy');
    await expectKeyRequired(t.app, { method: 'GET', url: `/api/v1/credentials/${id}/certificate-link` });
    await expectKeyRequired(t.app, { method: 'POST', url: `/api/v1/credentials/${id}/certificate-link/revoke` });
    await expectHiddenFromOtherIssuer(
      t.app,
      b.key,
      { method: 'GET', url: `/api/v1/credentials/${id}/certificate-link` },
      { method: 'GET', url: `/api/v1/credentials/${MISSING}/certificate-link` },
    );
    await expectHiddenFromOtherIssuer(
      t.app,
      b.key,
      { method: 'POST', url: `/api/v1/credentials/${id}/certificate-link/revoke` },
      { method: 'POST', url: `/api/v1/credentials/${MISSING}/certificate-link/revoke` },
    );
    expect(await t.app.services.certificates.earnerLink(b.id, id)).toBeNull();
    // B's attempt withdrew nothing.
    const url = (await linkOf(id)) as string;
    expect((await open(url)).statusCode).toBe(200);
  });
});
