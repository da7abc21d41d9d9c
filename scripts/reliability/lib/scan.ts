/** One spelling of the canary to look for, and whether letter case matters for it. */
export interface Needle {
  form: string;
  text: string;
  caseSensitive: boolean;
}

/**
 * Every spelling of an email a store or log could hold: plain (any case), URL-encoded, JSON-escaped,
 * the random part alone (so truncated or broken variants still count), base64 and hex.
 */
export function canaryNeedles(email: string, uniquePart: string): Needle[] {
  const lower = email.toLowerCase();
  const forms: Needle[] = [
    { form: 'plain', text: email, caseSensitive: false },
    { form: 'url-encoded', text: encodeURIComponent(email), caseSensitive: false },
    { form: 'json-escaped', text: email.replace('@', '\\u0040'), caseSensitive: false },
    { form: 'unique part', text: uniquePart, caseSensitive: false },
  ];
  for (const [label, value] of [
    ['as sent', email],
    ['lower-case', lower],
  ] as const) {
    forms.push({
      form: `base64 (${label})`,
      text: Buffer.from(value).toString('base64').replace(/=+$/, ''),
      caseSensitive: true,
    });
    forms.push({ form: `hex (${label})`, text: Buffer.from(value).toString('hex'), caseSensitive: false });
  }
  return forms;
}

export interface PlaceScan {
  place: string;
  bytes: number;
  hits: { form: string; count: number; sample: string }[];
}

function count(haystack: string, needle: string): { count: number; at: number } {
  let n = 0;
  let first = -1;
  let from = 0;
  while (true) {
    const at = haystack.indexOf(needle, from);
    if (at < 0) break;
    if (first < 0) first = at;
    n++;
    from = at + needle.length;
  }
  return { count: n, at: first };
}

/** Looks for every needle in the bytes, read both as UTF-8 and as Latin-1 (raw database pages). */
export function scanBytes(place: string, data: Buffer | string, needles: Needle[]): PlaceScan {
  const buffer = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const views = [buffer.toString('utf8'), buffer.toString('latin1')];
  const hits: PlaceScan['hits'] = [];
  for (const needle of needles) {
    let best = { count: 0, at: -1, view: '' };
    for (const view of views) {
      const haystack = needle.caseSensitive ? view : view.toLowerCase();
      const found = count(haystack, needle.caseSensitive ? needle.text : needle.text.toLowerCase());
      if (found.count > best.count) best = { ...found, view };
    }
    if (best.count > 0) {
      hits.push({
        form: needle.form,
        count: best.count,
        sample: best.view.slice(Math.max(0, best.at - 80), best.at + needle.text.length + 80),
      });
    }
  }
  return { place, bytes: buffer.length, hits };
}

/** True when the text holds the token (case-insensitively): a place's positive control. */
export function contains(data: Buffer | string, token: string): boolean {
  const text = typeof data === 'string' ? data : data.toString('latin1');
  return text.toLowerCase().includes(token.toLowerCase());
}
