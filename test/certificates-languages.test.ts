import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPdf, structureOf } from './certificates.support.js';
import {
  auth,
  createTestApp,
  dialects,
  expectErrorBody,
  manualClock,
  type TestApp,
  type TestIssuer,
} from './helpers.js';

/** Rendering and reading PDFs takes a second or so each; a loaded machine is given room. */
const TIMEOUT = 240_000;

/** The page's text as poppler's pdftotext extracts it (Debian poppler-utils), white space folded. */
function pdftotext(pdf: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'accolade-cert-lang-'));
  try {
    writeFileSync(join(dir, 'c.pdf'), pdf);
    return execFileSync('pdftotext', ['-enc', 'UTF-8', join(dir, 'c.pdf'), '-'], { encoding: 'utf8' })
      .replace(/\s+/g, ' ')
      .trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.each(dialects)('Certificates in the credential’s language on %s', { timeout: TIMEOUT }, (dialect) => {
  const clock = manualClock('2026-03-02T09:00:00.000Z');
  let t: TestApp;
  let a: TestIssuer;
  let definitionId: string;

  const call = (method: 'GET' | 'PUT' | 'POST' | 'PATCH', url: string, payload?: object) =>
    t.app.inject({ method, url, headers: auth(a.key), ...(payload ? { payload } : {}) });
  async function issue(completionKey: string, language?: string): Promise<string> {
    const res = await call('POST', '/api/v1/credentials', {
      definitionId,
      recipientEmail: `${completionKey}@example.org`,
      recipientName: 'Siân O’Brien',
      completionKey,
      ...(language ? { language } : {}),
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().credentialId;
  }
  async function certificate(id: string): Promise<Buffer> {
    const res = await call('GET', `/api/v1/credentials/${id}/certificate.pdf`);
    expect(res.statusCode, res.body).toBe(200);
    return res.rawPayload;
  }

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock });
    a = await t.issuer({ name: 'Northwind Academy' });
    const definition = await call('POST', '/api/v1/definitions', {
      name: 'Data Science 101',
      description: 'Completed the introductory course',
      expiresAfterDays: 365,
    });
    definitionId = definition.json().id;
    const translation = await call('PUT', `/api/v1/definitions/${definitionId}/translations/fr`, {
      name: 'Science des données 101',
      description: 'A suivi le cours d’introduction',
      certificateTitle: 'Attestation de réussite',
      certificateWording: 'a réussi {badgeName} auprès de {issuerName} le {issuedOn} (valable jusqu’au {expiresOn}).',
    });
    expect(translation.statusCode, translation.body).toBe(200);
  }, TIMEOUT);
  afterAll(async () => {
    await t.close();
  });

  it('a French credential’s certificate reads in French: fixed words, dates, the translated badge and wording', async () => {
    const id = await issue('fr-1', 'fr');
    const pdf = await certificate(id);
    const text = pdftotext(pdf);
    expect(text).toContain('Attestation de réussite');
    expect(text).toContain('Décerné à');
    expect(text).toContain('Siân O’Brien');
    expect(text).toContain('Science des données 101');
    expect(text).toContain(
      'a réussi Science des données 101 auprès de Northwind Academy le 2 mars 2026 (valable jusqu’au 2 mars 2027).',
    );
    expect(text).toContain('Délivré par Northwind Academy le 2 mars 2026');
    expect(text).toContain('Expire le 2 mars 2027');
    expect(text).toContain(`Identifiant du certificat ${id}`);
    expect(text).toContain('Vérifier sur https://');
    for (const english of ['Awarded to', 'Issued by', 'Verify at', 'Data Science 101', 'Certificate of Achievement']) {
      expect(text).not.toContain(english);
    }
    // The document says so, and its images are described in French too.
    const read = await readPdf(pdf);
    expect(read.metadata.info).toMatchObject({ Language: 'fr' });
    expect(structureOf(read.structTree).alts.join(' | ')).toContain('Code QR qui ouvre la page de vérification');
  });

  it('a language without a translation gets its own fixed words and the built-in wording, with the badge’s own name', async () => {
    const text = pdftotext(await certificate(await issue('de-1', 'de-CH')));
    expect(text).toContain('Leistungszertifikat');
    expect(text).toContain('Verliehen an');
    expect(text).toContain('hat am 2. März 2026 Data Science 101 von Northwind Academy erfolgreich erworben.');
    expect(text).toContain('Ausgestellt von Northwind Academy am 2. März 2026');
    expect(text).toContain('Gültig bis 2. März 2027');
    expect(text).toContain('Prüfen unter https://');
  });

  it('a credential issued in no language takes the issuer’s; one in a language without words falls back to English', async () => {
    const plain = await issue('plain-1');
    const patched = await call('PATCH', '/api/v1/issuer/me', { language: 'nl' });
    expect(patched.statusCode, patched.body).toBe(200);
    const dutch = pdftotext(await certificate(plain));
    expect(dutch).toContain('Toegekend aan');
    expect(dutch).toContain('Uitgegeven door Northwind Academy op 2 maart 2026');
    expect(dutch).toContain('Controleer op https://');

    const patchedBack = await call('PATCH', '/api/v1/issuer/me', { language: 'en' });
    expect(patchedBack.statusCode, patchedBack.body).toBe(200);
    const english = pdftotext(await certificate(await issue('ja-1', 'ja')));
    expect(english).toContain('Awarded to');
    expect(english).toContain('Issued by Northwind Academy on 2 March 2026');
    expect(english).toContain('Verify at https://');
  });

  it('a certificate keeps the translated text of the version its credential was issued under', async () => {
    const id = await issue('fr-asof', 'fr');
    clock.advance(86_400_000);
    const renamed = await call('PUT', `/api/v1/definitions/${definitionId}/translations/fr`, {
      name: 'Science des données, niveau 1',
      description: 'A suivi le cours d’introduction',
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    const before = pdftotext(await certificate(id));
    expect(before).toContain('Science des données 101');
    expect(before).toContain('Attestation de réussite');
    expect(before).not.toContain('niveau 1');

    const after = pdftotext(await certificate(await issue('fr-after', 'fr')));
    expect(after).toContain('Science des données, niveau 1');
    // The new version's translation has no certificate wording: the built-in French one.
    expect(after).toContain('Certificat de réussite');
    expect(after).toContain(
      'a obtenu avec succès Science des données, niveau 1 auprès de Northwind Academy le 3 mars 2026.',
    );
  });

  it('a translation’s certificate wording is held to the design’s rules: known placeholders, the same length', async () => {
    const url = `/api/v1/definitions/${definitionId}/translations/es`;
    const base = { name: 'Ciencia de datos 101', description: 'Completó el curso introductorio' };
    const unknown = expectErrorBody(
      await call('PUT', url, { ...base, certificateWording: 'completó {courseName} el {issuedOn}.' }),
      400,
      'validation_failed',
    );
    expect(unknown.issues).toEqual([expect.objectContaining({ path: '/certificateWording', code: 'placeholder' })]);
    expect(String((unknown.issues as { message: string }[])[0]?.message)).toContain('{courseName}');
    expectErrorBody(await call('PUT', url, { ...base, certificateWording: 'x'.repeat(601) }), 400, 'validation_failed');
    expectErrorBody(await call('PUT', url, { ...base, certificateTitle: 'T'.repeat(121) }), 400, 'validation_failed');
    const saved = await call('PUT', url, { ...base, certificateWording: 'completó {badgeName} el {issuedOn}.' });
    expect(saved.statusCode, saved.body).toBe(200);
    const text = pdftotext(await certificate(await issue('es-1', 'es')));
    expect(text).toContain('completó Ciencia de datos 101 el 3 de marzo de 2026.');
    expect(text).toContain('Otorgado a');
  });

  it('the preview prints in the language asked for', async () => {
    const res = await call('POST', '/api/v1/certificates/preview', { enabled: true, definitionId, language: 'fr' });
    expect(res.statusCode, res.body).toBe(200);
    const text = pdftotext(res.rawPayload);
    expect(text).toContain('Décerné à');
    expect(text).toContain('Science des données, niveau 1');
  });
});
