/*
 * Name search that ignores case and accents on both engines: "Ó Súill" is found by "ó súill" and
 * "o suill", "Seán" by "sean", "Zoë" by "zoe" (issue 46). Text is folded as Unicode canonical
 * decomposition (NFD), then without the combining diacritical marks (U+0300-U+036F), then in lower
 * case. Letters that do not decompose (ø, ł, ß) stay as they are.
 *
 * SQLite's own lower() folds ASCII only, so SQLite gets this very function as `accolade_fold`
 * (registered on every connection: `registerSearchFold`); PostgreSQL does the same steps in SQL
 * (`foldedContains` in dialect.ts), its lower() following the database's Unicode ctype.
 */

/** The folded form of `text`; self-contained, as the SQLite reader's worker takes its source. */
export function foldSearchText(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
}

export const SQLITE_FOLD_FUNCTION = 'accolade_fold';

/** Registers `accolade_fold(text)` on a better-sqlite3 connection (null stays null). */
export function registerSearchFold(handle: {
  function(name: string, options: { deterministic: boolean }, fn: (value: unknown) => unknown): unknown;
}): void {
  handle.function(SQLITE_FOLD_FUNCTION, { deterministic: true }, (value) =>
    typeof value === 'string' ? foldSearchText(value) : value,
  );
}
