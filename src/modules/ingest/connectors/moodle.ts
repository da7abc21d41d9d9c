import { COMPLETION, type ConnectorPreset, readPath, skip, text } from './preset.js';

const COURSE_COMPLETED = '\\core\\event\\course_completed';

/**
 * Moodle: a course-completion record enriched with the learner (the Event Trigger plugin's user and
 * course lookups, or an export), or a raw `\core\event\course_completed` event, which carries ids
 * only and so cannot issue without an email.
 */
export const moodlePreset: ConnectorPreset = {
  provider: 'moodle',
  paths: {
    recipientEmail: ['email', 'user_email', 'user.email'],
    givenName: ['firstname', 'user_firstname'],
    familyName: ['lastname', 'user_lastname'],
    recipientName: ['user_fullname'],
    courseCode: ['idnumber', 'course_idnumber', 'shortname', 'course_shortname'],
    completedAt: ['timecompleted', 'timecreated'],
    // The user record's `lang` (the Event Trigger user lookup names it user_lang).
    language: ['lang', 'user_lang', 'user.lang'],
  },
  classify(record, fields) {
    const event = text(readPath(record, 'eventname'));
    if (event !== '') {
      if (event !== COURSE_COMPLETED) return skip(`the event ${event.slice(0, 100)} is not a course completion`);
      if (fields.recipientEmail === '') {
        return {
          kind: 'error',
          message: 'the course_completed event needs an email: enrich the event with the user lookup step',
        };
      }
      return COMPLETION;
    }
    return fields.completedAt === undefined ? skip('not completed: timecompleted is not set') : COMPLETION;
  },
  fallbackCourseCode(record) {
    const courseId = text(readPath(record, 'courseid'));
    return courseId === '' ? '' : `moodle:${courseId}`;
  },
  completionKey(record) {
    const courseId = text(readPath(record, 'courseid'));
    // relateduserid is the learner; userid on a raw event is whoever acted (an admin, cron).
    const userId = text(readPath(record, 'relateduserid')) || text(readPath(record, 'userid'));
    if (courseId === '' || userId === '') return '';
    return `moodle:${text(readPath(record, 'host')) || 'site'}:${courseId}:${userId}`;
  },
  // The Event Trigger HTTP step does not URL-encode values, so a "+" in an email arrives as a space.
  repairEmail: (email) => email.replace(/ /g, '+'),
};
