import { inflateSync } from 'node:zlib';
import extractChunks from 'png-chunks-extract';
import { AppError } from '../../core/errors.js';

/** What a baked image holds: an Open Badges 3.0 credential (JSON or compact JWS) or an OB 2.0 assertion (URL, JSON or JWS). */
export interface Baked {
  spec: 'ob2' | 'ob3';
  text: string;
}

/** A baked text is one credential; more than this is not one the backpack reads. */
const BAKED_TEXT_CAP = 256 * 1024;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const notBaked = (message: string) => new AppError('invalid_image', message);

/**
 * An iTXt chunk (PNG 1.2 §11.3.4.5: keyword, NUL, compression flag and method, language tag, NUL,
 * translated keyword, NUL, text). Compressed text is inflated with a cap, so a small chunk cannot
 * inflate into gigabytes.
 */
function itxt(data: Uint8Array): { keyword: string; text: string } | null {
  const bytes = Buffer.from(data);
  const end = bytes.indexOf(0);
  if (end < 0 || end + 3 > bytes.length) return null;
  const keyword = bytes.subarray(0, end).toString('latin1');
  const compressed = bytes[end + 1] === 1;
  const language = bytes.indexOf(0, end + 3);
  const translated = language < 0 ? -1 : bytes.indexOf(0, language + 1);
  if (translated < 0) return null;
  const body = bytes.subarray(translated + 1);
  try {
    const raw = compressed ? inflateSync(body, { maxOutputLength: BAKED_TEXT_CAP }) : body;
    return { keyword, text: raw.toString('utf8') };
  } catch {
    return null;
  }
}

/**
 * The credential baked into a PNG: iTXt `openbadgecredential` (OB 3.0 §"Badge Baking", PNG) or
 * `openbadges` (OB 2.0 Baking Specification, PNG).
 */
export function bakedInPng(png: Buffer): Baked {
  if (!png.subarray(0, 8).equals(PNG_SIGNATURE)) throw notBaked('The file is not a PNG image.');
  let chunks: { name: string; data: Uint8Array }[];
  try {
    chunks = extractChunks(png);
  } catch {
    throw notBaked('The PNG image cannot be read.');
  }
  for (const chunk of chunks) {
    if (chunk.name !== 'iTXt') continue;
    const found = itxt(chunk.data);
    if (found?.keyword === 'openbadgecredential') return { spec: 'ob3', text: found.text.trim() };
    if (found?.keyword === 'openbadges') return { spec: 'ob2', text: found.text.trim() };
  }
  throw notBaked('The PNG image has no badge baked in (no iTXt openbadgecredential or openbadges chunk).');
}

const CDATA = /^\s*<!\[CDATA\[([\s\S]*?)\]\]>\s*$/;
const unescapeXml = (value: string) =>
  value
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&apos;', "'")
    .replaceAll('&amp;', '&');

function elementText(inner: string): string {
  const cdata = CDATA.exec(inner);
  return (cdata ? (cdata[1] ?? '') : unescapeXml(inner)).trim();
}

/**
 * The credential baked into an SVG: `<openbadges:credential>` holding the JSON or JWS (OB 3.0
 * §"Badge Baking", SVG), or `<openbadges:assertion verify="URL">`, its content the assertion JSON
 * when present (OB 2.0 Baking Specification, SVG). The file is read as text, never rendered.
 */
export function bakedInSvg(svg: string): Baked {
  const credential = /<openbadges:credential(?:\s[^>]*)?>([\s\S]*?)<\/openbadges:credential>/.exec(svg);
  if (credential) return { spec: 'ob3', text: elementText(credential[1] ?? '') };
  const assertion = /<openbadges:assertion\s([^>]*?)(?:\/>|>([\s\S]*?)<\/openbadges:assertion>)/.exec(svg);
  if (assertion) {
    const verify = /\bverify\s*=\s*"([^"]*)"/.exec(assertion[1] ?? '')?.[1];
    const content = elementText(assertion[2] ?? '');
    return { spec: 'ob2', text: verify ? unescapeXml(verify).trim() : content };
  }
  throw notBaked('The SVG image has no badge baked in (no openbadges:credential or openbadges:assertion).');
}
