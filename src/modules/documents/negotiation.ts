/*
 * Content negotiation for the hosted documents (OB 2.0 "Setting Content-Type"): JSON-LD by default,
 * plain JSON only for a client that accepts JSON but not JSON-LD, and HTML (the verification page)
 * only when text/html is strictly the client's top preference. Validators send long Accept lists that
 * mention several types; a tie never turns a machine client into a browser.
 */

export type DocumentFormat = 'ld+json' | 'json' | 'html';

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

export function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [mediaType = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const [type, subtype] = mediaType.split('/');
    if (!type || !subtype) continue;
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split('=').map((s) => s.trim());
      if (name === 'q' && value !== undefined) {
        const parsed = Number(value);
        q = Number.isFinite(parsed) ? Math.min(Math.max(parsed, 0), 1) : 0;
      }
    }
    ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** The quality the client gives a concrete type: the most specific matching range wins (RFC 9110 §12.5.1). */
export function qualityOf(ranges: MediaRange[], mediaType: string): number {
  const [type, subtype] = mediaType.split('/');
  let best: { specificity: number; q: number } | null = null;
  for (const range of ranges) {
    const specificity =
      range.type === type && range.subtype === subtype
        ? 2
        : range.type === type && range.subtype === '*'
          ? 1
          : range.type === '*' && range.subtype === '*'
            ? 0
            : -1;
    if (specificity < 0) continue;
    if (best === null || specificity > best.specificity) best = { specificity, q: range.q };
  }
  return best?.q ?? 0;
}

export function negotiate(accept: string | undefined, options: { html: boolean }): DocumentFormat {
  // No Accept header (most machine clients): the default, without parsing an empty list.
  if (!accept) return 'ld+json';
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return 'ld+json';
  const ldJson = qualityOf(ranges, 'application/ld+json');
  const json = qualityOf(ranges, 'application/json');
  if (options.html) {
    const html = qualityOf(ranges, 'text/html');
    if (html > 0 && html > ldJson && html > json) return 'html';
  }
  if (ldJson === 0 && json > 0) return 'json';
  return 'ld+json';
}

export const contentTypes: Record<Exclude<DocumentFormat, 'html'>, string> = {
  'ld+json': 'application/ld+json',
  json: 'application/json',
};
