import QRCode from 'qrcode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeQr, oneLine, readPdf, structureOf } from './certificates.support.js';
import {
  auth,
  createTestApp,
  dialects,
  expectErrorBody,
  expectHiddenFromOtherIssuer,
  expectKeyRequired,
  manualClock,
  type TestApp,
  type TestIssuer,
} from './helpers.js';
import { verifier } from './vc.support.js';

const BASE = 'https://badges.test';
const MISSING = '00000000-0000-4000-8000-000000000000';
const NAMES = ['Nguyễn Thị Thảo', 'Siân O’Brien', 'Ζωή Παπαδοπούλου', 'Юлия Иванова'];

/** Rendering and reading PDFs takes a second or so each; a loaded machine is given room. */
const TIMEOUT = 180_000;

describe.each(dialects)('Certificates on %s', { timeout: TIMEOUT }, (dialect) => {
  const clock = manualClock('2026-03-02T09:00:00.000Z');
  let t: TestApp;
  let a: TestIssuer;
  let b: TestIssuer;
  let definitionId: string;
  let signatureId: string;

  async function call(key: string, method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, payload?: object) {
    return t.app.inject({ method, url, headers: auth(key), ...(payload ? { payload } : {}) });
  }
  async function issue(name: string, completionKey: string): Promise<{ id: string; verifyUrl: string }> {
    const res = await call(a.key, 'POST', '/api/v1/credentials', {
      definitionId,
      recipientEmail: `${completionKey}@example.org`,
      recipientName: name,
      completionKey,
    });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    return { id: body.credentialId, verifyUrl: body.verifyUrl };
  }
  async function certificate(id: string): Promise<Buffer> {
    const res = await call(a.key, 'GET', `/api/v1/credentials/${id}/certificate.pdf`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    return res.rawPayload;
  }

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock });
    a = await t.issuer({ name: 'Northwind Academy', brandPrimaryColor: '#1f5fbf' });
    b = await t.issuer();
    const definition = await call(a.key, 'POST', '/api/v1/definitions', {
      name: 'Data Science 101',
      description: 'Completed the introductory course',
      expiresAfterDays: 730,
    });
    definitionId = definition.json().id;
    const png = await QRCode.toBuffer('a signature', { type: 'png', width: 240 });
    const upload = await t.app.inject({
      method: 'POST',
      url: '/api/v1/images',
      headers: { ...auth(a.key), 'content-type': 'image/png' },
      payload: png,
    });
    expect(upload.statusCode, upload.body).toBe(201);
    signatureId = upload.json().id;
  }, TIMEOUT);
  afterAll(async () => {
    await t.close();
  });

  it('a definition without a design takes the built-in one; a saved design is versioned and audited', async () => {
    const before = await call(a.key, 'GET', `/api/v1/definitions/${definitionId}/certificate`);
    expect(before.statusCode, before.body).toBe(200);
    expect(before.json()).toMatchObject({ definitionId, source: 'default', enabled: true, version: 0, size: 'auto' });

    const saved = await call(a.key, 'PUT', `/api/v1/definitions/${definitionId}/certificate`, {
      enabled: true,
      title: 'Certificate of Completion',
      wording: 'completed {badgeName} at {issuerName}; certificate {credentialId}, valid until {expiresOn}.',
      signatories: [
        { name: 'Ζωή Καραγιάννη', role: 'Director of Studies', signatureImageId: signatureId },
        { name: 'Юлия Смирнова', role: 'Registrar' },
      ],
      borderStyle: 'double',
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json()).toMatchObject({ source: 'definition', version: 1, orientation: 'landscape' });
    const got = await call(a.key, 'GET', `/api/v1/definitions/${definitionId}/certificate`);
    expect(got.json()).toMatchObject({ source: 'definition', version: 1, title: 'Certificate of Completion' });

    const audit = await call(a.key, 'GET', '/api/v1/audit?limit=200');
    const record = (audit.json().items as { action: string; actor: string; targetId: string }[]).find(
      (r) => r.action === 'certificate_design.updated',
    );
    expect(record).toMatchObject({ targetId: definitionId });
    expect(record?.actor).toMatch(/^key:/);
  });

  it('the PDF prints every field, carries the hosted credential, a QR code of verifyUrl, and the PDF/A and tagging markers', async () => {
    const credential = await issue(NAMES[0] as string, 'cert-fields');
    const pdf = await certificate(credential.id);
    expect(pdf.subarray(0, 8).toString('latin1')).toBe('%PDF-1.7');
    const { text, metadata, attachments, structTree } = await readPdf(pdf);
    const flat = oneLine(text);
    const compact = text.replace(/\s+/g, '');
    for (const field of [
      'Certificate of Completion',
      NAMES[0],
      'Data Science 101',
      'Northwind Academy',
      // English dates as the locale core writes them (en-GB) while the issuer sets no country.
      '2 March 2026',
      '1 March 2028',
      'Ζωή Καραγιάννη',
      'Юлия Смирнова',
    ]) {
      expect(flat).toContain(field);
    }
    expect(compact).toContain(credential.id);
    expect(compact).toContain(`Verifyat${credential.verifyUrl}`);

    // The embedded file is the hosted credential byte for byte, and it verifies.
    const hosted = await t.app.inject({ method: 'GET', url: `/v1/issuers/${a.slug}/credentials/${credential.id}` });
    expect(hosted.statusCode).toBe(200);
    const embedded = attachments?.get('open-badges-credential.json');
    expect(embedded).toBeDefined();
    expect(Buffer.from(embedded?.content ?? []).toString('utf8')).toBe(hosted.body);
    const result = await verifier(t.app, BASE).verify(JSON.parse(hosted.body), clock.now());
    expect(result).toMatchObject({ verified: true, revoked: false });

    // The QR code, rendered by poppler and read back, is the verification page.
    expect(decodeQr(pdf)).toBe(credential.verifyUrl);

    // Title, language, PDF/A-3 identification (XMP) and the file's markers.
    const info = metadata.info as Record<string, unknown>;
    expect(info.Title).toBe('Certificate of Completion: Data Science 101');
    expect(info.Language).toBe('en');
    expect(metadata.metadata?.get('pdfaid:part')).toBe('3');
    expect(metadata.metadata?.get('pdfaid:conformance')).toBe('B');
    const raw = pdf.toString('latin1');
    for (const marker of [
      '/StructTreeRoot',
      '/MarkInfo',
      '/Marked true',
      '/DisplayDocTitle true',
      '/OutputIntents',
      '/GTS_PDFA1',
      '/AFRelationship /Data',
      '/AF [',
      '/FontFile2',
      '/ToUnicode',
    ]) {
      expect(raw).toContain(marker);
    }
    // Every font is embedded as a subset (a six-letter tag before its name); none is a standard font.
    const fonts = [...raw.matchAll(/\/BaseFont \/([^\s/]+)/g)].map((m) => m[1] as string);
    expect(fonts.length).toBeGreaterThan(0);
    for (const font of fonts) expect(font).toMatch(/^[A-Z]{6}\+Noto(Sans|Serif)-/);

    // The structure tree: a Document of headings, paragraphs and figures, each figure with alt text.
    const { roles, alts } = structureOf(structTree);
    expect(roles[0]).toBe('Root');
    expect(roles).toEqual(expect.arrayContaining(['Document', 'H1', 'H2', 'P', 'Figure', 'Sect']));
    expect(alts).toEqual(
      expect.arrayContaining([
        `QR code that opens the verification page ${credential.verifyUrl}`,
        'Signature of Ζωή Καραγιάννη',
      ]),
    );
  });

  it('names in Latin Extended, Vietnamese, Greek and Cyrillic print and copy exactly, next to plain Latin', async () => {
    for (const [i, name] of NAMES.entries()) {
      const credential = await issue(name, `cert-script-${i}`);
      const { text } = await readPdf(await certificate(credential.id));
      expect(oneLine(text)).toContain(name);
      // The same glyphs elsewhere on the page still copy as themselves ("i" never as "ị").
      expect(oneLine(text)).toContain('Data Science 101');
    }
  });

  it('a character no certificate font has is refused with its code point, never printed as a box', async () => {
    const credential = await issue('李小龍', 'cert-cjk');
    const body = expectErrorBody(
      await call(a.key, 'GET', `/api/v1/credentials/${credential.id}/certificate.pdf`),
      422,
      'certificate_unprintable',
    );
    expect(body.message).toContain('U+674E');
    expect(body.message).toContain('CERTIFICATE_FONTS');
  });

  it('a design change shows at the next download; off means 404; the issuer default applies without one', async () => {
    const credential = await issue('Ada Lovelace', 'cert-redesign');
    expect(oneLine((await readPdf(await certificate(credential.id))).text)).toContain('Certificate of Completion');
    await call(a.key, 'PUT', `/api/v1/definitions/${definitionId}/certificate`, {
      enabled: true,
      title: 'Diploma of Data',
    });
    expect(oneLine((await readPdf(await certificate(credential.id))).text)).toContain('Diploma of Data');

    const settings = await call(a.key, 'PUT', '/api/v1/certificates/settings', {
      enabled: true,
      title: 'Issuer Default Title',
      orientation: 'portrait',
      country: 'US',
    });
    expect(settings.statusCode, settings.body).toBe(200);
    expect(settings.json()).toMatchObject({ country: 'US', version: 1, title: 'Issuer Default Title' });
    const removed = await call(a.key, 'DELETE', `/api/v1/definitions/${definitionId}/certificate`);
    expect(removed.statusCode).toBe(204);
    expect((await call(a.key, 'GET', `/api/v1/definitions/${definitionId}/certificate`)).json()).toMatchObject({
      source: 'issuer',
      title: 'Issuer Default Title',
    });
    const portrait = await certificate(credential.id);
    const { text } = await readPdf(portrait);
    expect(oneLine(text)).toContain('Issuer Default Title');
    // US: Letter paper, portrait, and dates as Americans write them.
    expect(oneLine(text)).toContain('March 2, 2026');
    expect(portrait.toString('latin1')).toContain('/MediaBox [0 0 612 792]');

    await call(a.key, 'PUT', `/api/v1/definitions/${definitionId}/certificate`, { enabled: false });
    expectErrorBody(await call(a.key, 'GET', `/api/v1/credentials/${credential.id}/certificate.pdf`), 404, 'not_found');
    await call(a.key, 'DELETE', `/api/v1/definitions/${definitionId}/certificate`);
    await call(a.key, 'PUT', `/api/v1/definitions/${definitionId}/certificate`, {
      enabled: true,
      title: 'Certificate of Completion',
    });
  });

  it('a revoked or erased credential answers 410; its reissue has a certificate of its own', async () => {
    const revoked = await issue('Grace Hopper', 'cert-revoked');
    await certificate(revoked.id);
    const reissue = await call(a.key, 'POST', `/api/v1/credentials/${revoked.id}/reissue`, {});
    expect(reissue.statusCode, reissue.body).toBe(201);
    expectErrorBody(await call(a.key, 'GET', `/api/v1/credentials/${revoked.id}/certificate.pdf`), 410, 'gone');
    const fresh = await certificate(reissue.json().credentialId);
    expect(oneLine((await readPdf(fresh)).text)).toContain('Grace Hopper');

    const erased = await issue('Katherine Johnson', 'cert-erased');
    await certificate(erased.id);
    const erase = await call(a.key, 'POST', '/api/v1/gdpr/erase', { recipientEmail: 'cert-erased@example.org' });
    expect(erase.statusCode, erase.body).toBe(200);
    const gone = expectErrorBody(
      await call(a.key, 'GET', `/api/v1/credentials/${erased.id}/certificate.pdf`),
      410,
      'gone',
    );
    expect(JSON.stringify(gone)).not.toContain('Katherine');
  });

  it('refuses designs it cannot print: unknown placeholders, too many signatories, images not the issuer’s PNGs', async () => {
    const url = `/api/v1/definitions/${definitionId}/certificate`;
    const unknown = expectErrorBody(
      await call(a.key, 'PUT', url, { enabled: true, wording: 'Well done {name}!' }),
      400,
      'validation_failed',
    );
    expect(JSON.stringify(unknown.issues)).toContain('{name}');
    const four = Array.from({ length: 4 }, (_, i) => ({ name: `Signer ${i}`, role: '' }));
    expectErrorBody(await call(a.key, 'PUT', url, { enabled: true, signatories: four }), 400, 'validation_failed');
    const foreign = expectErrorBody(
      await call(b.key, 'PUT', '/api/v1/certificates/settings', { enabled: true, backgroundImageId: signatureId }),
      400,
      'validation_failed',
    );
    expect(JSON.stringify(foreign.issues)).toContain('/backgroundImageId');
    expectErrorBody(
      await call(a.key, 'PUT', '/api/v1/certificates/settings', { enabled: true, country: 'usa' }),
      400,
      'validation_failed',
    );
  });

  it('a preview draws an unsaved design with sample values and stores nothing; its images are checked', async () => {
    const before = (await call(a.key, 'GET', `/api/v1/definitions/${definitionId}/certificate`)).json();
    const res = await call(a.key, 'POST', '/api/v1/certificates/preview', {
      definitionId,
      enabled: true,
      title: 'Preview Title',
      wording: 'Awarded to {earnerName} for {badgeName}.',
      signatories: [{ name: 'Siân O’Brien', role: 'Dean', signatureImageId: signatureId }],
      color: '#8a1538',
      logoImageId: signatureId,
      orientation: 'portrait',
      size: 'Letter',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    const { text, attachments } = await readPdf(res.rawPayload);
    const flat = oneLine(text);
    for (const field of ['Preview Title', 'Alex Sample', 'Data Science 101', 'Siân O’Brien', 'Northwind Academy']) {
      expect(flat).toContain(field);
    }
    expect(res.rawPayload.toString('latin1')).toContain('/MediaBox [0 0 612 792]');
    expect(Buffer.from(attachments.get('open-badges-credential.json')?.content ?? []).toString()).toContain('preview');
    // Nothing was saved.
    expect((await call(a.key, 'GET', `/api/v1/definitions/${definitionId}/certificate`)).json()).toEqual(before);

    // Without a definition: a sample badge.
    const sample = await call(a.key, 'POST', '/api/v1/certificates/preview', { enabled: true });
    expect(sample.statusCode, sample.body).toBe(200);
    expect(oneLine((await readPdf(sample.rawPayload)).text)).toContain('Sample Badge');

    const foreign = expectErrorBody(
      await call(b.key, 'POST', '/api/v1/certificates/preview', { enabled: true, logoImageId: signatureId }),
      400,
      'validation_failed',
    );
    expect(JSON.stringify(foreign.issues)).toContain('/logoImageId');
    expectErrorBody(
      await call(b.key, 'POST', '/api/v1/certificates/preview', { enabled: true, definitionId }),
      404,
      'not_found',
    );
    expectErrorBody(
      await call(a.key, 'POST', '/api/v1/certificates/preview', { enabled: true, color: 'red' }),
      400,
      'validation_failed',
    );
  });

  it('a design may set its own colour and logo; null takes the issuer’s', async () => {
    const saved = await call(a.key, 'PUT', '/api/v1/certificates/settings', {
      enabled: true,
      color: '#8a1538',
      logoImageId: signatureId,
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json()).toMatchObject({ color: '#8a1538', logoImageId: signatureId });
    const cleared = await call(a.key, 'PUT', '/api/v1/certificates/settings', { enabled: true, color: null });
    expect(cleared.json()).toMatchObject({ color: null, logoImageId: null });
  });

  it('needs a key, and another issuer’s definition or credential is not found', async () => {
    const credential = await issue('Mary Somerville', 'cert-tenancy');
    await expectKeyRequired(t.app, { method: 'GET', url: `/api/v1/credentials/${credential.id}/certificate.pdf` });
    await expectKeyRequired(t.app, { method: 'GET', url: `/api/v1/definitions/${definitionId}/certificate` });
    await expectKeyRequired(t.app, {
      method: 'PUT',
      url: `/api/v1/definitions/${definitionId}/certificate`,
      payload: { enabled: true },
    });
    await expectKeyRequired(t.app, { method: 'GET', url: '/api/v1/certificates/settings' });
    await expectHiddenFromOtherIssuer(
      t.app,
      b.key,
      { method: 'GET', url: `/api/v1/credentials/${credential.id}/certificate.pdf` },
      { method: 'GET', url: `/api/v1/credentials/${MISSING}/certificate.pdf` },
    );
    await expectHiddenFromOtherIssuer(
      t.app,
      b.key,
      { method: 'PUT', url: `/api/v1/definitions/${definitionId}/certificate`, payload: { enabled: false } },
      { method: 'PUT', url: `/api/v1/definitions/${MISSING}/certificate`, payload: { enabled: false } },
    );
    // The other issuer's attempt changed nothing.
    expect((await call(a.key, 'GET', `/api/v1/definitions/${definitionId}/certificate`)).json().enabled).toBe(true);
  });
});
