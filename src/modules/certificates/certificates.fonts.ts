import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Font, GlyphRun } from 'fontkit';
import { AppError } from '../../core/errors.js';
import { loadedOnce } from '../../core/loaded-once.js';

/** What a piece of text is set in; each role has its bundled font and the operator's after it. */
export type FontRole = 'title' | 'strong' | 'body';

/**
 * The bundled fonts: Noto Sans and Noto Serif (SIL Open Font License 1.1), from the npm packages
 * @expo-google-fonts/noto-sans and noto-serif, whose static TrueType files cover Latin, Latin
 * Extended with Vietnamese, Greek and Cyrillic in one file each (docs/decisions.md, certificates).
 */
const BUNDLED: Record<FontRole, string> = {
  title: '@expo-google-fonts/noto-serif/700Bold/NotoSerif_700Bold.ttf',
  strong: '@expo-google-fonts/noto-sans/700Bold/NotoSans_700Bold.ttf',
  body: '@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf',
};

export interface FontFace {
  /** The name pdfkit registers the face under. */
  key: string;
  path: string;
  covers(codePoint: number): boolean;
  /**
   * The face for one document: the font parsed once per process (its tables, which are most of
   * its memory, shared by every document) with a glyph cache of the document's own. fontkit keeps
   * a glyph's code points from the first text that reached it, and pdfkit writes those into the
   * document's ToUnicode map, so a cache shared across documents would let an earlier certificate
   * decide how a later one copies; each document starts from none, as a freshly parsed font does.
   */
  forDocument(): Font;
}

export type FontChains = Record<FontRole, FontFace[]>;

/** Line breaks and spaces are laid out, not drawn: no glyph needed. */
const LAYOUT = new Set([0x0a, 0x20]);

let parsed = 0;
/** How many font files this process has parsed (each once, at the first certificate). */
export const fontsParsed = () => parsed;

async function face(key: string, path: string): Promise<FontFace> {
  const fontkit = await import('fontkit');
  const font = fontkit.create(readFileSync(path));
  parsed++;
  if (!('hasGlyphForCodePoint' in font)) {
    throw new Error(`certificate font ${path} is a collection; name one font file (TTF or OTF)`);
  }
  return {
    key,
    path,
    covers: (codePoint) => font.hasGlyphForCodePoint(codePoint),
    forDocument: () => documentView(font),
  };
}

/**
 * The font for one document (FontFace.forDocument). fontkit 2 (TTFFont.getGlyph) caches glyphs in
 * `_glyphs`, which the view has of its own; everything else is read through the prototype.
 *
 * Its shaping has `ccmp` off, given here rather than by each text call: with it, fontkit
 * decomposes a precomposed letter (ị into i and a dot) and keeps the first code point it saw for
 * each glyph, so every later plain "i" of the document would copy as "ị"; the text is NFC and the
 * fonts have the precomposed glyphs. Text options without `features` let pdfkit lay a text out word
 * by word and keep each word's run for the whole document (EmbeddedFont.layoutCached): fitting a
 * block tries it at up to fifty sizes, and with `features` given pdfkit asked for the whole text's
 * run at each, which had to be a fresh copy every time (pdfkit scales a run's positions in place):
 * a render allocated 4.0 MB, now 3.3 MB (sampled, issue 44 memory). A fresh features object each
 * time: fontkit writes its defaults into the one it is given.
 *
 * Mark positioning (GPOS `mark` and `mkmk`) is asked for only when the text holds a combining mark.
 * Those lookups place mark glyphs on their base and move nothing else, so a text without marks lays
 * out the same without them; but fontkit parses a lookup the first time a layout asks for it and
 * keeps it with the font, and the Noto faces' mark lookups are 3.7 MB of heap each, for as long as
 * the process runs (11 MB over the three faces; issue 44, memory). NFC names in the scripts issue
 * 44 names have precomposed letters; a mark NFC cannot compose (the acute on a Yoruba e with a dot
 * below) is still placed on its letter.
 */
function documentView(font: Font): Font {
  const view = Object.create(font, { _glyphs: { value: [], writable: true } }) as Font;
  const shape = font.layout;
  view.layout = (text: string, features?: unknown, ...rest: unknown[]): GlyphRun =>
    Reflect.apply(shape, view, [text, features ?? shaping(text), ...rest]);
  return view;
}

const COMBINING_MARK = /\p{M}/u;

function shaping(text: string): Record<string, boolean> {
  return COMBINING_MARK.test(text) ? { ccmp: false } : { ccmp: false, mark: false, mkmk: false };
}

/**
 * The fonts of every role: the bundled one, then the operator's (CERTIFICATE_FONTS) in order.
 * Read and parsed once per process, at the first certificate, and shared by every render: parsed
 * per render, three Noto faces cost about 12 MB of heap for each certificate in flight (measured,
 * docs/decisions.md, issue 44 memory). A file that is missing or not a font stops that render with
 * the reason (the operator's configuration), never a certificate with missing characters.
 */
export function fontChains(operatorFonts: readonly string[]): () => Promise<FontChains> {
  return loadedOnce(async () => {
    const resolve = createRequire(import.meta.url).resolve;
    const extra = await Promise.all(operatorFonts.map((path, i) => face(`operator-${i}`, path)));
    const chain = async (role: FontRole) => [await face(`bundled-${role}`, resolve(BUNDLED[role])), ...extra];
    return { title: await chain('title'), strong: await chain('strong'), body: await chain('body') };
  });
}

const codePointLabel = (codePoint: number) =>
  `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')} (${String.fromCodePoint(codePoint)})`;

/**
 * The first font of the chain that has a glyph for every character of `text` (as NFC). No font
 * having them all is a 422 that names the characters and the field: a certificate never prints a
 * blank box, a substitute or nothing in place of a letter of someone's name.
 */
export function fontFor(chain: FontFace[], text: string, field: string): FontFace {
  const codePoints = [...new Set([...text].map((c) => c.codePointAt(0) ?? 0))].filter((c) => !LAYOUT.has(c));
  const found = chain.find((f) => codePoints.every((c) => f.covers(c)));
  if (found) return found;
  const missing = codePoints.filter((c) => !chain.some((f) => f.covers(c)));
  const named = (missing.length > 0 ? missing : codePoints.filter((c) => !chain[0]?.covers(c))).slice(0, 10);
  throw new AppError(
    'certificate_unprintable',
    missing.length > 0
      ? `The certificate cannot print ${named.map(codePointLabel).join(', ')} in the ${field}: no certificate font has ${missing.length === 1 ? 'it' : 'them'}. The operator can add a font that does (CERTIFICATE_FONTS).`
      : `The certificate cannot print the ${field} in one font: no certificate font has all of ${named.map(codePointLabel).join(', ')} with the rest. The operator can add a font that has them all (CERTIFICATE_FONTS).`,
  );
}
