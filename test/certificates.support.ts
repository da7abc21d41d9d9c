import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jsqr from 'jsqr';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

// jsqr is CommonJS with a default export; under NodeNext it arrives as the module object.
const jsQR = ((jsqr as unknown as { default?: unknown }).default ?? jsqr) as typeof jsqr.default;

/** A PDF opened with pdf.js (Mozilla's reader), as a screen reader or a copy-paste would read it. */
export async function readPdf(pdf: Buffer) {
  const task = getDocument({
    data: new Uint8Array(pdf),
    disableFontFace: true,
    useSystemFonts: false,
  });
  const document = await task.promise;
  const page = await document.getPage(1);
  const content = await page.getTextContent();
  const text = content.items.map((item) => ('str' in item ? `${item.str}${item.hasEOL ? '\n' : ''}` : '')).join('');
  const [metadata, listed, structTree] = await Promise.all([
    document.getMetadata(),
    document.getAttachments(),
    page.getStructTree(),
  ]);
  const attachments = new Map<string, { description: string; content: Uint8Array | null }>();
  for (const [id, attachment] of listed ?? []) {
    const content = attachment.content ?? (await document.getAttachmentContent(id));
    attachments.set(attachment.filename, { description: attachment.description, content });
  }
  await task.destroy();
  return { text, metadata, attachments, structTree };
}

/** The text with runs of white space as one space, as the lines of a wrapped paragraph read. */
export const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/**
 * The page rendered by poppler's pdftoppm (Debian poppler-utils) at 200 dpi and its QR code read
 * by jsQR: what a phone's camera would read from the printed page.
 */
export function decodeQr(pdf: Buffer): string | null {
  const dir = mkdtempSync(join(tmpdir(), 'accolade-cert-'));
  try {
    writeFileSync(join(dir, 'c.pdf'), pdf);
    execFileSync('pdftoppm', ['-r', '200', '-singlefile', join(dir, 'c.pdf'), join(dir, 'page')]);
    const ppm = readFileSync(join(dir, 'page.ppm'));
    // Binary PPM (P6): "P6", width, height, maxval, each after white space, then RGB triples.
    const header = ppm
      .subarray(0, 64)
      .toString('latin1')
      .match(/^P6\s+(\d+)\s+(\d+)\s+(\d+)\s/);
    if (!header) throw new Error('pdftoppm did not write a P6 PPM');
    const [whole, w, h] = header;
    const width = Number(w);
    const height = Number(h);
    const pixels = ppm.subarray(whole.length);
    const rgba = new Uint8ClampedArray(width * height * 4);
    for (let i = 0; i < width * height; i++) {
      rgba[i * 4] = pixels[i * 3] ?? 0;
      rgba[i * 4 + 1] = pixels[i * 3 + 1] ?? 0;
      rgba[i * 4 + 2] = pixels[i * 3 + 2] ?? 0;
      rgba[i * 4 + 3] = 255;
    }
    return jsQR(rgba, width, height)?.data ?? null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The structure tree's roles and alt texts, depth first. */
export function structureOf(node: unknown): { roles: string[]; alts: string[] } {
  const roles: string[] = [];
  const alts: string[] = [];
  const walk = (n: unknown) => {
    if (!n || typeof n !== 'object') return;
    const { role, alt, children } = n as { role?: string; alt?: string; children?: unknown[] };
    if (role) roles.push(role);
    if (alt) alts.push(alt);
    for (const child of children ?? []) walk(child);
  };
  walk(node);
  return { roles, alts };
}
