/**
 * The Open Badges 3.0 vocabularies the console offers in its selects: AchievementType (§B.1.1) and
 * AlignmentTargetType (§B.1.2), each extensible with `ext:` terms. The server's lists
 * (definitions.schemas.ts, alignments.schemas.ts) decide what is taken; they import server code the
 * console bundle cannot carry, so test/console-vocabularies.test.ts holds these lists equal to them.
 */
export const ACHIEVEMENT_TYPES = [
  'Achievement',
  'ApprenticeshipCertificate',
  'Assessment',
  'Assignment',
  'AssociateDegree',
  'Award',
  'Badge',
  'BachelorDegree',
  'Certificate',
  'CertificateOfCompletion',
  'Certification',
  'CommunityService',
  'Competency',
  'Course',
  'CoCurricular',
  'Degree',
  'Diploma',
  'DoctoralDegree',
  'Fieldwork',
  'GeneralEducationDevelopment',
  'JourneymanCertificate',
  'LearningProgram',
  'License',
  'Membership',
  'ProfessionalDoctorate',
  'QualityAssuranceCredential',
  'MasterCertificate',
  'MasterDegree',
  'MicroCredential',
  'ResearchDoctorate',
  'SecondarySchoolDiploma',
] as const;

export const ALIGNMENT_TARGET_TYPES = [
  'ceasn:Competency',
  'ceterms:Credential',
  'CFItem',
  'CFRubric',
  'CFRubricCriterion',
  'CFRubricCriterionLevel',
  'CTDL',
] as const;

/** The choice of a vocabulary select that reveals the `ext:` field. */
export const EXTENSION_CHOICE = 'ext:';

/** The select's value for a stored term: the term itself when listed, else the extension choice. */
export function vocabularyChoice(vocabulary: readonly string[], value: string | null | undefined): string {
  if (!value) return '';
  return vocabulary.includes(value) ? value : EXTENSION_CHOICE;
}
