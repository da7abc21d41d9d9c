import { safeHexColor, textColorOn } from '../../core/colors.js';

/*
 * The generated badge image (for definitions without their own imageUrl) and its baked forms (Open
 * Badges 2.0 assertion, Open Badges 3.0 credential). Every piece of text is XML-escaped, and characters XML 1.0 forbids are dropped, so a
 * badge named `<script>&"'` renders as text and the SVG stays well-formed.
 */

export const DEFAULT_BRAND_COLOR = '#1f5fbf';
const SIZE = 400;
const MAX_LINE_CHARS = 18;
const MAX_LINES = 4;
const MAX_ISSUER_CHARS = 34;

// Characters that may not appear anywhere in an XML 1.0 document (C0 controls bar tab/LF/CR,
// lone surrogates, U+FFFE and U+FFFF).
const XML_INVALID =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching exactly these characters is the point
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function escapeXml(text: string): string {
  return text
    .replace(XML_INVALID, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** Only a plain hex colour reaches the SVG; anything else stored for the issuer falls back to the default. */
export function brandColor(stored: string | null): string {
  return safeHexColor(stored) ?? DEFAULT_BRAND_COLOR;
}

function truncate(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/** Greedy word wrap; a word longer than a line is split, and overflow ends the last line with an ellipsis. */
export function wrapLines(text: string, maxChars = MAX_LINE_CHARS, maxLines = MAX_LINES): string[] {
  const words = text
    .trim()
    .split(/\s+/)
    .filter((w) => w !== '')
    .flatMap((word) => {
      const chars = [...word];
      const pieces: string[] = [];
      for (let i = 0; i < chars.length; i += maxChars) pieces.push(chars.slice(i, i + maxChars).join(''));
      return pieces;
    });
  const lines: string[] = [];
  for (const word of words) {
    const last = lines.at(-1);
    if (last !== undefined && [...last].length + 1 + [...word].length <= maxChars) {
      lines[lines.length - 1] = `${last} ${word}`;
    } else {
      lines.push(word);
    }
  }
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines);
  kept[maxLines - 1] = `${[...(kept[maxLines - 1] ?? '')].slice(0, maxChars - 1).join('')}…`;
  return kept;
}

export interface BadgeArt {
  name: string;
  issuerName: string;
  brandColor: string | null;
}

/** What OB 2.0 SVG baking embeds: the assertion's URL and its JSON. */
export interface Bake {
  verifyUrl: string;
  assertionJson: string;
}

/**
 * JSON inside CDATA. JSON.stringify already escapes control characters and lone surrogates; `>` and
 * the XML-forbidden U+FFFE/U+FFFF can only occur inside JSON strings, where a \u escape means the same
 * thing, so `]]>` can never end the section early and the JSON parses back unchanged.
 */
function cdataSafeJson(json: string): string {
  return json.replace(/[>\uFFFE\uFFFF]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** What a baked SVG carries: its namespace declaration and the element placed right after `<svg>`. */
interface Embedded {
  namespace: string;
  element: string;
}

/** Open Badges 2.0 SVG baking: the assertion's URL and JSON in `<openbadges:assertion>`. */
function assertionEmbedded(bake: Bake): Embedded {
  return {
    namespace: 'http://openbadges.org',
    element: `<openbadges:assertion verify="${escapeXml(bake.verifyUrl)}"><![CDATA[${cdataSafeJson(bake.assertionJson)}]]></openbadges:assertion>`,
  };
}

/**
 * Open Badges 3.0 SVG baking ("Baked Badge", embedded proof): the signed credential's JSON in
 * `<openbadges:credential>`, wrapped in CDATA, without a `verify` attribute.
 */
function credentialEmbedded(credentialJson: string): Embedded {
  return {
    namespace: 'https://purl.imsglobal.org/ob/v3p0',
    element: `<openbadges:credential><![CDATA[${cdataSafeJson(credentialJson)}]]></openbadges:credential>`,
  };
}

export function renderBadgeSvg(art: BadgeArt, bake?: Bake): string {
  return render(art, bake ? assertionEmbedded(bake) : undefined);
}

/** The generated badge with an Open Badges 3.0 credential (JSON with its Data Integrity proof) baked in. */
export function renderCredentialBadgeSvg(art: BadgeArt, credentialJson: string): string {
  return render(art, credentialEmbedded(credentialJson));
}

function render(art: BadgeArt, embedded?: Embedded): string {
  const fill = brandColor(art.brandColor);
  const ink = textColorOn(fill);
  const lines = wrapLines(art.name);
  const fontSize = lines.length <= 2 ? 34 : lines.length === 3 ? 29 : 25;
  const lineHeight = Math.round(fontSize * 1.2);
  const firstBaseline = Math.round(190 - ((lines.length - 1) * lineHeight) / 2 + fontSize / 3);
  const name = escapeXml(art.name);
  const namespaces = embedded
    ? `xmlns="http://www.w3.org/2000/svg" xmlns:openbadges="${embedded.namespace}"`
    : 'xmlns="http://www.w3.org/2000/svg"';
  const tspans = lines
    .map((line, i) => `<tspan x="200" y="${firstBaseline + i * lineHeight}">${escapeXml(line)}</tspan>`)
    .join('');
  return [
    `<svg ${namespaces} width="${SIZE}" height="${SIZE}" viewBox="0 0 ${SIZE} ${SIZE}" role="img" aria-label="${name}">`,
    embedded?.element ?? '',
    `<title>${name}</title>`,
    `<circle cx="200" cy="200" r="192" fill="${fill}"/>`,
    `<circle cx="200" cy="200" r="172" fill="none" stroke="${ink}" stroke-opacity="0.55" stroke-width="4"/>`,
    `<text text-anchor="middle" font-family="Helvetica, Arial, sans-serif" font-size="${fontSize}" font-weight="700" fill="${ink}">${tspans}</text>`,
    `<text x="200" y="318" text-anchor="middle" font-family="Helvetica, Arial, sans-serif" font-size="16" fill="${ink}">${escapeXml(truncate(art.issuerName, MAX_ISSUER_CHARS))}</text>`,
    '</svg>',
  ].join('');
}
