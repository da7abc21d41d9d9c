import { AppError } from '../../core/errors.js';

/** Largest width or height of an uploaded PNG. */
export const PNG_MAX_SIDE = 2048;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const SVG_NS = 'http://www.w3.org/2000/svg';

/** The document's first element is `<svg>`: after an optional XML declaration, comments and a doctype without an internal subset. */
const SVG_ROOT = /^\uFEFF?\s*(<\?xml[^>]*\?>\s*)?(<!--[\s\S]*?-->\s*|<!DOCTYPE[^>[]*>\s*)*<svg[\s>]/i;

const invalid = (message: string) => new AppError('invalid_image', message);

/** A PNG: its signature, then an IHDR chunk first whose width and height are within PNG_MAX_SIDE. */
export function checkPng(bytes: Buffer): Buffer {
  if (bytes.length < 33 || !bytes.subarray(0, 8).equals(PNG_SIGNATURE)) throw invalid('The file is not a PNG image.');
  if (bytes.readUInt32BE(8) !== 13 || bytes.toString('latin1', 12, 16) !== 'IHDR') {
    throw invalid('The PNG image has no header chunk.');
  }
  const width = bytes.readUInt32BE(16);
  const height = bytes.readUInt32BE(20);
  if (width < 1 || height < 1 || width > PNG_MAX_SIDE || height > PNG_MAX_SIDE) {
    throw invalid(`The PNG image must be 1 to ${PNG_MAX_SIDE} pixels wide and high (it is ${width}×${height}).`);
  }
  return bytes;
}

type Purifier = { sanitize(source: string, config: object): string };
let purifier: Promise<Purifier> | null = null;

/**
 * DOMPurify over a jsdom window, loaded at the first SVG upload (jsdom is heavy; nothing else
 * needs it). References may only point inside the image (`#id`): no javascript:, no external
 * `<use>` or `<image>`.
 */
function loadPurifier(): Promise<Purifier> {
  purifier ??= (async () => {
    const [{ JSDOM }, { default: createDOMPurify }] = await Promise.all([import('jsdom'), import('dompurify')]);
    const purify = createDOMPurify(new JSDOM('').window as never);
    purify.addHook('afterSanitizeAttributes', (node) => {
      for (const name of ['href', 'xlink:href']) {
        const value = node.getAttribute(name);
        if (value !== null && !value.trim().startsWith('#')) node.removeAttribute(name);
      }
    });
    return purify as Purifier;
  })();
  return purifier;
}

/** The SVG with everything that could run or fetch removed (DOMPurify's SVG profile); the root must be `<svg>`. */
export async function sanitiseSvg(bytes: Buffer): Promise<Buffer> {
  const source = bytes.toString('utf8');
  if (!SVG_ROOT.test(source)) throw invalid('The file is not an SVG image (its root must be <svg>).');
  const purify = await loadPurifier();
  // `<use>` is kept for references inside the image (the hook removes any other).
  const clean = purify.sanitize(source, { USE_PROFILES: { svg: true, svgFilters: true }, ADD_TAGS: ['use'] }).trim();
  if (!/^<svg[\s>]/.test(clean) || !clean.endsWith('</svg>')) {
    throw invalid('The file is not an SVG image (its root must be <svg>).');
  }
  const opening = clean.slice(0, clean.indexOf('>'));
  const standalone = opening.includes('xmlns=') ? clean : clean.replace(/^<svg/, `<svg xmlns="${SVG_NS}"`);
  return Buffer.from(standalone, 'utf8');
}
