/**
 * The Open Badges 3.0 vocabularies the console offers in its selects: the server's own lists
 * (src/core/ob3-vocabularies.ts, import-free so the bundle carries them), each open to `ext:` terms.
 */
export { ACHIEVEMENT_TYPES, ALIGNMENT_TARGET_TYPES } from '../../src/core/ob3-vocabularies.js';

/** The choice of a vocabulary select that reveals the `ext:` field. */
export const EXTENSION_CHOICE = 'ext:';

/** The select's value for a stored term: the term itself when listed, else the extension choice. */
export function vocabularyChoice(vocabulary: readonly string[], value: string | null | undefined): string {
  if (!value) return '';
  return vocabulary.includes(value) ? value : EXTENSION_CHOICE;
}
