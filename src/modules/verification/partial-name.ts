/** Grapheme clusters, so an initial is one visible character in any script ("Ñ", "ख्", "👩🏽"). */
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * The first grapheme of `word`. An ASCII character followed by another (or by nothing) is a whole
 * grapheme (UAX #29: no ASCII character extends the one before it, and CR LF never reaches here, as
 * words are split on white space), so most names skip the segmenter, which cost about 3 % of a
 * single verify's CPU (profile, docs/decisions.md).
 */
function firstGrapheme(word: string): string | undefined {
  if (word.charCodeAt(0) < 0x80 && (word.length === 1 || word.charCodeAt(1) < 0x80)) return word[0];
  for (const { segment } of graphemes.segment(word)) return segment;
  return undefined;
}

function initial(word: string): string {
  const first = firstGrapheme(word);
  if (first !== undefined) return `${first.toLocaleUpperCase()}.`;
  return '';
}

/**
 * The only form of a recipient's name any public answer carries (privacy rule 2): never more than
 * a first name and a last initial, in any script. Several words: the first word plus the initial of
 * the last ("Grace Brewster Hopper" -> "Grace H."). One word: its initial only ("Plato" -> "P.",
 * "山田太郎" -> "山."), since a single word may be a whole name written without spaces (Chinese,
 * Japanese, Thai), a surname or a login, and which part is the given name cannot be told.
 * Undefined when there is no name (never given, or erased), so the field is left out.
 */
export function partialName(displayName: string | null | undefined): string | undefined {
  const words = (displayName ?? '').trim().split(/\s+/u).filter(Boolean);
  const first = words[0];
  if (first === undefined) return undefined;
  const last = words.length > 1 ? words[words.length - 1] : undefined;
  if (last === undefined) return initial(first);
  return `${first} ${initial(last)}`;
}
