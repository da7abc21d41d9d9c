import { COMPLETION, type ConnectorPreset, readPath, skip, text } from './preset.js';

/**
 * Canvas Live Events `course_completed` ({metadata, body}). Canvas re-fires the event when the
 * completion time changes, so the time is not part of the key: a re-fire replays the credential.
 */
export const canvasPreset: ConnectorPreset = {
  provider: 'canvas',
  paths: {
    recipientEmail: ['body.user.email', 'user.email', 'email'],
    recipientName: ['body.user.name', 'user.name', 'name'],
    courseCode: ['body.course.sis_source_id', 'metadata.context_sis_source_id', 'body.course.id'],
    completedAt: ['body.progress.completed_at', 'progress.completed_at', 'completed_at'],
  },
  classify(record, fields) {
    const event = text(readPath(record, 'metadata.event_name'));
    if (event !== '' && event !== 'course_completed') {
      return skip(`the event ${event.slice(0, 100)} is not course_completed`);
    }
    return fields.completedAt === undefined ? skip('not completed: completed_at is not set') : COMPLETION;
  },
  completionKey(record) {
    const account = text(readPath(record, 'metadata.root_account_uuid')) || text(readPath(record, 'metadata.hostname'));
    const courseId = text(readPath(record, 'body.course.id'));
    const userId = text(readPath(record, 'body.user.id'));
    if (account === '' || courseId === '' || userId === '') return '';
    return `canvas:${account}:${courseId}:${userId}`;
  },
};
