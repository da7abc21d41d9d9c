/*
 * The Open Badges 3.0 extensible vocabularies Accolade takes: AchievementType (§B.1.1) and
 * AlignmentTargetType (§B.1.2), as the OB 3.0 JSON Schema lists them, each open to `ext:` terms.
 * Import-free, so the server's schemas and the console's selects share the one list.
 */

/** The AchievementType vocabulary of Open Badges 3.0 (§B.1.1 "AchievementType"), as its JSON Schema lists it. */
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

/** An extension term of an OB 3.0 extensible vocabulary (EnumExt): `ext:` and a name. */
export const EXTENSION_TERM_PATTERN = '^ext:[A-Za-z0-9._-]+$';

/** The AlignmentTargetType vocabulary of Open Badges 3.0 (§B.1.2), as its JSON Schema lists it. */
export const ALIGNMENT_TARGET_TYPES = [
  'ceasn:Competency',
  'ceterms:Credential',
  'CFItem',
  'CFRubric',
  'CFRubricCriterion',
  'CFRubricCriterionLevel',
  'CTDL',
] as const;
