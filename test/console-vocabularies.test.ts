import { describe, expect, it } from 'vitest';
import { vocabularyChoice } from '../console/src/vocabularies.js';
import { ACHIEVEMENT_TYPES } from '../src/core/ob3-vocabularies.js';

describe('the console’s Open Badges 3.0 vocabularies', () => {
  it('shows a listed term as itself and any other as the ext: choice', () => {
    expect(vocabularyChoice(ACHIEVEMENT_TYPES, 'MicroCredential')).toBe('MicroCredential');
    expect(vocabularyChoice(ACHIEVEMENT_TYPES, 'ext:Apprenticeship')).toBe('ext:');
    expect(vocabularyChoice(ACHIEVEMENT_TYPES, null)).toBe('');
  });
});
