import { describe, expect, it } from 'vitest';
import {
  ACHIEVEMENT_TYPES as CONSOLE_ACHIEVEMENT_TYPES,
  ALIGNMENT_TARGET_TYPES as CONSOLE_TARGET_TYPES,
  vocabularyChoice,
} from '../console/src/vocabularies.js';
import { ALIGNMENT_TARGET_TYPES } from '../src/modules/alignments/alignments.schemas.js';
import { ACHIEVEMENT_TYPES } from '../src/modules/definitions/definitions.schemas.js';

describe('the console’s Open Badges 3.0 vocabularies', () => {
  it('offers exactly the terms the API takes', () => {
    expect([...CONSOLE_ACHIEVEMENT_TYPES]).toEqual([...ACHIEVEMENT_TYPES]);
    expect([...CONSOLE_TARGET_TYPES]).toEqual([...ALIGNMENT_TARGET_TYPES]);
  });

  it('shows a listed term as itself and any other as the ext: choice', () => {
    expect(vocabularyChoice(ACHIEVEMENT_TYPES, 'MicroCredential')).toBe('MicroCredential');
    expect(vocabularyChoice(ACHIEVEMENT_TYPES, 'ext:Apprenticeship')).toBe('ext:');
    expect(vocabularyChoice(ACHIEVEMENT_TYPES, null)).toBe('');
  });
});
