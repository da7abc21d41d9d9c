/**
 * The only form of a recipient's name any public answer carries (privacy rule 2): the first word
 * plus the initial of the last word ("Grace Brewster Hopper" -> "Grace H."; "Plato" -> "Plato").
 * Undefined when there is no name (never given, or erased), so the field is left out.
 */
export function partialName(displayName: string | null | undefined): string | undefined {
  const words = (displayName ?? '').trim().split(/\s+/u).filter(Boolean);
  const first = words[0];
  if (first === undefined) return undefined;
  const last = words.length > 1 ? words[words.length - 1] : undefined;
  if (last === undefined) return first;
  const initial = Array.from(last)[0]?.toLocaleUpperCase() ?? '';
  return `${first} ${initial}.`;
}
