import { COMPLETION, type ConnectorPreset } from './preset.js';

/**
 * Any sender that can shape its own JSON (no-code automation platforms, scripts): common field
 * names, every record is a completion, the sender's key (or the auto: key).
 */
export const genericPreset: ConnectorPreset = {
  provider: 'generic',
  paths: {
    recipientEmail: ['recipientEmail', 'email', 'emailAddress', 'user.email'],
    givenName: ['givenName', 'firstName', 'first_name'],
    familyName: ['familyName', 'lastName', 'last_name', 'surname'],
    recipientName: ['recipientName', 'name', 'fullName'],
    courseCode: ['courseCode', 'course_code', 'code', 'courseId'],
    completedAt: ['completedAt', 'completed_at', 'completionDate'],
    completionKey: ['completionKey', 'externalId'],
    definitionId: ['definitionId'],
    definitionRef: ['definitionRef'],
    evidenceUrl: ['evidenceUrl'],
    language: ['language', 'locale', 'lang', 'user.locale'],
  },
  classify: () => COMPLETION,
  completionKey: () => '',
};
