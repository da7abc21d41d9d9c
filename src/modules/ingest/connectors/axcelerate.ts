import { COMPLETION, type ConnectorPreset, isObject, readPath, skip, text } from './preset.js';

/** AVETMISS outcomes that always count: 20 competency achieved, 51 recognition of prior learning granted. */
export const DEFAULT_OUTCOME_CODES = ['20', '51'];
const COMPLETED_STATUSES = new Set(['completed', 'comp', 'co']);
const NON_UNIT_TYPES = new Set(['p', 'w', 'el']);

/**
 * aXcelerate (Australian VET student management): one enrolment row with UPPERCASE keys, the learner's
 * email and legal name merged in. Units (TYPE s) complete on their AVETMISS outcome code; programs,
 * workshops and e-learning on a completed status with a completion date. The name is never the
 * preferred name, and the USI is never read.
 */
export const axceleratePreset: ConnectorPreset = {
  provider: 'axcelerate',
  paths: {
    recipientEmail: ['EMAIL', 'EMAILADDRESS'],
    givenName: ['GIVENNAME'],
    familyName: ['SURNAME'],
    courseCode: ['CODE'],
    completedAt: ['COMPLETIONDATE', 'FINISHDATE'],
  },
  // A webhook delivery wraps the row: {type, message, clientId, messageId, timestamp}.
  unwrap: (record) => (typeof record.type === 'string' && isObject(record.message) ? record.message : record),
  classify(record, fields, options) {
    const type = text(readPath(record, 'TYPE')).toLowerCase();
    if (type === 's') {
      const outcome = text(readPath(record, 'OUTCOMECODE'));
      if (options.outcomeCodes.has(outcome)) return COMPLETION;
      return skip(
        outcome === '' ? 'the unit has no outcome code' : `outcome code ${outcome.slice(0, 10)} is not a completion`,
      );
    }
    if (NON_UNIT_TYPES.has(type)) {
      const status = text(readPath(record, 'STATUS'));
      if (!COMPLETED_STATUSES.has(status.toLowerCase())) {
        return skip(`the status ${status === '' ? '(none)' : status.slice(0, 40)} is not a completion`);
      }
      return fields.completedAt === undefined ? skip('completed, but without a completion date') : COMPLETION;
    }
    return skip(`the activity type ${type === '' ? '(none)' : type.slice(0, 10)} is not a completion`);
  },
  fallbackCourseCode(record) {
    const type = text(readPath(record, 'TYPE'));
    const id = text(readPath(record, 'ID'));
    return type === '' || id === '' ? '' : `${type}:${id}`;
  },
  completionKey(record) {
    const parts = ['CONTACTID', 'TYPE', 'LEARNERID'].map((key) => text(readPath(record, key)));
    return parts.includes('') ? '' : `axcelerate:${parts.join(':')}`;
  },
};
