import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as fontkit from 'fontkit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fontChains } from '../src/modules/certificates/certificates.fonts.js';
import { type CertificateContent, renderCertificate } from '../src/modules/certificates/certificates.render.js';
import { RENDERS_AT_ONCE } from '../src/modules/certificates/certificates.service.js';
import { workSlots } from '../src/modules/certificates/certificates.slots.js';
import { oneLine, readPdf } from './certificates.support.js';
import { auth, createTestApp, dialects, manualClock, type TestApp, type TestIssuer } from './helpers.js';

/**
 * Issue 44, "rendering is bounded": what a certificate costs in memory does not depend on how many
 * are asked for at once. Counted, never timed: fonts are parsed once per process, and no more than
 * RENDERS_AT_ONCE certificates are made at a time however many are asked for.
 */
const TIMEOUT = 180_000;
const NAMES = ['Nguyễn Thị Thảo', 'Siân O’Brien', 'Ζωή Παπαδοπούλου', 'Юлия Иванова', 'Ada Lovelace', 'Bjørn Ødegård'];
const BUNDLED_FACES = 3;

/** fontkit's TrueType class: fontkit.create probes it first for every file it opens, pdfkit's opens included. */
function trueTypeClass(): { probe(buffer: Buffer): boolean } {
  const path = createRequire(import.meta.url).resolve(
    '@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf',
  );
  return fontkit.create(readFileSync(path)).constructor as unknown as { probe(buffer: Buffer): boolean };
}

describe.each(dialects)('Certificate memory on %s', { timeout: TIMEOUT }, (dialect) => {
  const clock = manualClock('2026-03-02T09:00:00.000Z');
  let t: TestApp;
  let a: TestIssuer;
  let definitionId: string;
  const ids: string[] = [];

  beforeAll(async () => {
    t = await createTestApp(dialect, { clock });
    a = await t.issuer({ name: 'Northwind Academy' });
    const definition = await t.app.inject({
      method: 'POST',
      url: '/api/v1/definitions',
      headers: auth(a.key),
      payload: { name: 'Data Science 101', description: 'Completed the introductory course' },
    });
    expect(definition.statusCode, definition.body).toBe(201);
    definitionId = definition.json().id;
    for (let i = 0; i < 12; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/credentials',
        headers: auth(a.key),
        payload: {
          definitionId,
          recipientEmail: `memory-${i}@example.org`,
          recipientName: `${NAMES[i % NAMES.length]} ${i}`,
          completionKey: `memory-${i}`,
        },
      });
      expect(res.statusCode, res.body).toBe(201);
      ids.push(res.json().credentialId);
    }
  }, TIMEOUT);
  afterAll(async () => {
    await t.close();
  });

  it('a dozen certificates asked for at once open each font file once, and are made at most RENDERS_AT_ONCE at a time', async () => {
    const probe = vi.spyOn(trueTypeClass(), 'probe');
    const vc = t.app.services.vc.credentials;
    const signed = vc.credential.bind(vc);
    let inFlight = 0;
    let most = 0;
    const held = vi.spyOn(vc, 'credential').mockImplementation(async (...args: Parameters<typeof vc.credential>) => {
      inFlight++;
      most = Math.max(most, inFlight);
      try {
        return await signed(...args);
      } finally {
        inFlight--;
      }
    });
    try {
      const certificates = t.app.services.certificates;
      const pdfs = await Promise.all(ids.map((id) => certificates.pdf(a.id, id)));
      // Twelve different certificates, all drawn from the three bundled faces parsed at the first one.
      expect(new Set(pdfs.map((p) => p.toString('base64'))).size).toBe(ids.length);
      expect(probe).toHaveBeenCalledTimes(BUNDLED_FACES);
      expect(held).toHaveBeenCalledTimes(ids.length);
      // The calls all entered at once: the first RENDERS_AT_ONCE ran, the rest waited their turn.
      expect(certificates.renderStats()).toMatchObject({ running: 0, waiting: 0, peak: RENDERS_AT_ONCE });
      expect(most).toBeGreaterThan(0);
      expect(most).toBeLessThanOrEqual(RENDERS_AT_ONCE);

      // Another dozen over HTTP: the PDFs come from the cache, and no font is opened again.
      const again = await Promise.all(
        ids.map((id) =>
          t.app.inject({ method: 'GET', url: `/api/v1/credentials/${id}/certificate.pdf`, headers: auth(a.key) }),
        ),
      );
      again.forEach((res, i) => {
        expect(res.statusCode, res.body).toBe(200);
        expect(res.rawPayload.equals(pdfs[i] as Buffer)).toBe(true);
      });
      expect(probe).toHaveBeenCalledTimes(BUNDLED_FACES);
      const { text } = await readPdf(pdfs[2] as Buffer);
      expect(oneLine(text)).toContain(`${NAMES[2]} 2`);
      // The cache counts what it holds: each PDF owns exactly its bytes (no shared 64 KB slab behind it).
      for (const pdf of pdfs) expect(pdf.buffer.byteLength).toBe(pdf.length);
      expect(certificates.renderStats().cachedBytes).toBe(pdfs.reduce((n, p) => n + p.length, 0));
    } finally {
      probe.mockRestore();
      held.mockRestore();
    }
  });

  it("a batch's ZIP takes cached PDFs but leaves the ones it draws out of the cache, and keeps no pool slab per entry", async () => {
    const csv = ['email,name,completion_key', ...NAMES.map((name, i) => `zip-${i}@example.org,${name},zip-${i}`)];
    const imported = await t.app.inject({
      method: 'POST',
      url: '/api/v1/ingest/csv',
      headers: auth(a.key),
      payload: { csv: csv.join('\n'), defaults: { definitionId } },
    });
    expect(imported.statusCode, imported.body).toBe(200);
    const report = imported.json() as { batchId: string; rows: { credentialId: string }[] };
    const [first, ...rest] = report.rows.map((r) => r.credentialId);
    const certificates = t.app.services.certificates;
    const one = await t.app.inject({
      method: 'GET',
      url: `/api/v1/credentials/${first}/certificate.pdf`,
      headers: auth(a.key),
    });
    expect(one.statusCode, one.body).toBe(200);
    const before = certificates.renderStats();

    const zip = await t.app.inject({
      method: 'GET',
      url: `/api/v1/ingest/imports/${report.batchId}/certificates.zip`,
      headers: auth(a.key),
    });
    expect(zip.statusCode, zip.body).toBe(200);
    // The one already downloaded came from the cache, stored whole in the ZIP; the rest were drawn.
    expect(zip.rawPayload.includes(one.rawPayload)).toBe(true);
    const after = certificates.renderStats();
    expect(after.drawn - before.drawn).toBe(rest.length);
    expect(after.cachedBytes).toBe(before.cachedBytes);

    // Downloaded one by one afterwards, they are drawn (once) and kept.
    const second = await certificates.pdf(a.id, rest[0] as string);
    await certificates.pdf(a.id, rest[0] as string);
    expect(certificates.renderStats().drawn - after.drawn).toBe(1);
    expect(certificates.renderStats().cachedBytes).toBe(after.cachedBytes + second.length);

    // yazl keeps every entry's file name until the central directory, the ZIP's end: each must own
    // its few bytes, never a slice that keeps a 64 KB pool slab alive (about 48 MB for 1,000 entries).
    const names = vi.spyOn(Buffer, 'from');
    const pool = Buffer.poolSize;
    try {
      const again = await t.app.inject({
        method: 'GET',
        url: `/api/v1/ingest/imports/${report.batchId}/certificates.zip`,
        headers: auth(a.key),
      });
      expect(again.statusCode, again.body).toBe(200);
      const kept = names.mock.calls.flatMap(([value], i) => {
        const made = names.mock.results[i]?.value as Buffer;
        return typeof value === 'string' && /^certificate-.+\.pdf$/.test(value) ? [made] : [];
      });
      expect(kept).toHaveLength(report.rows.length);
      for (const name of kept) expect(name.buffer.byteLength).toBe(name.length);
      expect(Buffer.poolSize).toBe(pool);
    } finally {
      names.mockRestore();
    }
  });
});

describe('Certificate fonts shared across documents', () => {
  const content = (earnerName: string): CertificateContent => ({
    title: 'Certificate of Achievement',
    earnerName,
    badgeName: 'Financial Fitness',
    issuerName: 'Northwind Academy',
    issuedOn: '2 March 2026',
    expiresOn: null,
    credentialId: '00000000-0000-4000-8000-000000000001',
    verifyUrl: 'https://badges.test/verify/northwind/00000000-0000-4000-8000-000000000001',
    wording: `${earnerName} has successfully earned Financial Fitness from Northwind Academy on 2 March 2026.`,
    labels: {
      awardedTo: 'Awarded to',
      details: ['Issued by Northwind Academy on 2 March 2026', 'Credential ID 00000000-0000-4000-8000-000000000001'],
      verify: 'Verify at https://badges.test/verify/northwind/00000000-0000-4000-8000-000000000001',
      subject: 'Financial Fitness, issued by Northwind Academy',
      logoAlt: 'Logo of Northwind Academy',
      qrAlt: 'QR code of the verification page',
    },
    textLangs: { title: 'en', badgeName: 'en', wording: 'en' },
    signatories: [{ name: 'Grace Officer', role: 'Registrar', signature: null, alt: 'Signature of Grace Officer' }],
    background: null,
    logo: null,
    color: '#1f3a5f',
    borderStyle: 'classic',
    orientation: 'landscape',
    size: 'A4',
    lang: 'en',
    credentialJson: '{"preview":true}',
    credentialUrl: 'https://badges.test/credentials/00000000-0000-4000-8000-000000000001',
    createdAt: new Date('2026-03-02T09:00:00.000Z'),
  });

  it('a certificate is the same bytes whatever was drawn before it in the process', async () => {
    // U+FB01 and U+FB03 (fi and ffi as one character each; NFC keeps them) are the glyphs the
    // fonts' ligatures draw for "fi" and "ffi". A glyph cache shared across documents keeps the code
    // points it first met, so the one drawn first would decide how the other copies.
    const plain = content('Fiona Griffin');
    const ligatures = content('Ruﬁna Oﬃcer');
    const ligaturesFirst = await fontChains([])();
    const ligaturesAlone = await renderCertificate(ligatures, ligaturesFirst);
    const plainAfter = await renderCertificate(plain, ligaturesFirst);
    const plainFirst = await fontChains([])();
    const plainAlone = await renderCertificate(plain, plainFirst);
    const ligaturesAfter = await renderCertificate(ligatures, plainFirst);
    expect(plainAfter.equals(plainAlone)).toBe(true);
    expect(ligaturesAfter.equals(ligaturesAlone)).toBe(true);
    const text = oneLine((await readPdf(plainAfter)).text);
    expect(text).toContain('Fiona Griffin');
    expect(text).toContain('Financial Fitness');
  });
});

describe('Certificate fonts for one document', () => {
  it('shape with ccmp off unasked, so text options carry no features and pdfkit keeps each word laid out', async () => {
    const fonts = await fontChains([])();
    for (const face of [...fonts.title, ...fonts.strong, ...fonts.body]) {
      // "ị" stays its one precomposed glyph: decomposed (ccmp), the plain "i" glyph would take its
      // code point and every later "i" of the document would copy as "ị".
      const run = face.forDocument().layout('Thị');
      expect(run.glyphs.map((g) => g.codePoints)).toEqual([[0x54], [0x68], [0x1ecb]]);
    }
  });

  it('position marks only in a text that has one, which lays out as with every feature on', async () => {
    const fonts = await fontChains([])();
    const texts = ['Nguyễn Thị Thảo', 'Siân O\u2019Brien', 'Ζωή Παπαδοπούλου', 'Юлия Иванова', 'AVAWATo 1,000'];
    // U+1EB9 U+0301 (a Yoruba e with a dot below and an acute): NFC has no one letter for it.
    const marked = 'Ad\u1eb9\u0301 Ol\u00fa';
    expect(marked.normalize('NFC')).toBe(marked);
    for (const face of [...fonts.title, ...fonts.strong, ...fonts.body]) {
      const view = face.forDocument();
      const withEveryFeature = Object.getPrototypeOf(view) as fontkit.Font;
      for (const text of [...texts, marked]) {
        expect(view.layout(text).positions, `${face.key}: ${text}`).toEqual(
          withEveryFeature.layout(text, { ccmp: false }).positions,
        );
      }
      // The acute (glyph 3) is placed on the e: not where it lands with mark positioning off.
      const unplaced = withEveryFeature.layout(marked, { ccmp: false, mark: false, mkmk: false }).positions[3];
      expect(view.layout(marked).positions[3]).not.toEqual(unplaced);
    }
  });
});

describe('workSlots', () => {
  it('runs at most its size at once, the rest in the order they came, and frees a slot when work fails', async () => {
    const slots = workSlots(2);
    const started: number[] = [];
    const finish: (() => void)[] = [];
    const work = (n: number, fail = false) =>
      slots.run(async () => {
        started.push(n);
        await new Promise<void>((resolve) => finish.push(resolve));
        if (fail) throw new Error(`work ${n} failed`);
        return n;
      });
    const results = [work(1, true), work(2), work(3), work(4)].map((p) =>
      p.then(
        (n) => `done ${n}`,
        (err: Error) => err.message,
      ),
    );
    await Promise.resolve();
    expect(started).toEqual([1, 2]);
    expect(slots.load()).toEqual({ running: 2, waiting: 2, peak: 2 });
    finish[0]?.();
    await results[0];
    await vi.waitFor(() => expect(started).toEqual([1, 2, 3]));
    finish[1]?.();
    finish[2]?.();
    await vi.waitFor(() => expect(started).toEqual([1, 2, 3, 4]));
    finish[3]?.();
    expect(await Promise.all(results)).toEqual(['work 1 failed', 'done 2', 'done 3', 'done 4']);
    expect(slots.load()).toEqual({ running: 0, waiting: 0, peak: 2 });
  });
});
