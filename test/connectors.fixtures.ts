/*
 * Real payloads from the research notes (shared/reference/connectors.md), with their sources:
 * Canvas Live Events (instructure/canvas-lms data_service_canvas_course.md), Moodle local_webhooks
 * (valentineus/moodle-webhooks docs) and tool_trigger, aXcelerate REST samples
 * (chrisjoyce911/axcelerate testdata/contact_enrolments.json, the official course enrolments sample).
 */

/** Canvas `course_completed` Live Event, exactly as documented. */
export const canvasCourseCompleted = {
  metadata: {
    event_name: 'course_completed',
    event_time: '2019-11-01T19:11:26.615Z',
    context_type: 'Course',
    context_id: '21070000000000565',
    context_sis_source_id: '2017.100.101.101-1',
    root_account_uuid: 'VicYj3cu5BIFpoZhDVU4DZumnlBrWi1grgJEzADs',
    hostname: 'oxana.instructure.com',
    user_id: '21070000000000123',
    user_login: 'inewton@example.com',
    user_sis_id: '456-T45',
  },
  body: {
    course: { account_id: '79', id: '565', name: 'Computer Science I', sis_source_id: '2017.100.101.101-1' },
    progress: {
      completed_at: '2019-11-05T13:38:00.218Z',
      next_requirement_url: 'http://oxana.instructure.com/courses/565/modules/items/12345',
      requirement_completed_count: 6,
      requirement_count: 6,
    },
    user: { email: 'inewton@example.com', id: '123', name: 'Isaac Newton' },
  },
};

/** Canvas `course_progress`: same body, completed_at null until the course is complete. */
export const canvasCourseProgress = {
  metadata: { ...canvasCourseCompleted.metadata, event_name: 'course_progress' },
  body: {
    ...canvasCourseCompleted.body,
    progress: { ...canvasCourseCompleted.body.progress, completed_at: null, requirement_completed_count: 3 },
  },
};

/** Moodle local_webhooks: the raw `\core\event\course_completed` event (ids only, no email). */
export const moodleRawCourseCompleted = {
  eventname: '\\core\\event\\course_completed',
  component: 'core',
  action: 'completed',
  target: 'course',
  objecttable: 'course_completions',
  objectid: '17',
  crud: 'u',
  edulevel: 2,
  contextid: 34,
  contextlevel: 50,
  contextinstanceid: '4',
  userid: '2',
  courseid: '4',
  relateduserid: '58',
  anonymous: 0,
  other: { relateduserid: '58' },
  timecreated: 1512961456,
  host: 'moodle.school.example',
  token: '',
  extra: '',
};

/** Moodle local_webhooks: the documented `course_viewed` sample. */
export const moodleRawCourseViewed = {
  eventname: '\\core\\event\\course_viewed',
  component: 'core',
  action: 'viewed',
  target: 'course',
  objecttable: null,
  objectid: null,
  crud: 'r',
  edulevel: 2,
  contextid: 2,
  contextlevel: 50,
  contextinstanceid: '1',
  userid: '2',
  courseid: '1',
  relateduserid: null,
  anonymous: 0,
  other: null,
  timecreated: 1512961456,
  host: 'localhost',
  token: '',
  extra: '',
};

/**
 * Moodle Event Trigger (tool_trigger) HTTP POST step with JSON encoding on, rendering
 * records[0][email]={user_email}&... : every value a string, and a "+" in the email arrives as a
 * space because the step does not URL-encode values before parse_str().
 */
export const moodleToolTriggerBody = {
  records: [
    {
      email: 'ada lovelace@school.example',
      firstname: 'Ada',
      lastname: 'Lovelace',
      userid: '58',
      courseid: '4',
      shortname: 'ENG101',
      idnumber: 'ENG-101-2026',
      timecompleted: '1767225600',
      host: 'moodle.school.example',
    },
  ],
};

/** aXcelerate learner (GET /contact/:contactID), from the documented sample. */
export const axcelerateContact = {
  CONTACTID: 708861,
  GIVENNAME: 'Joe',
  SURNAME: 'Bloggs',
  EMAILADDRESS: 'joe.bloggs@fakeemail.com.au',
  DOB: '1986-05-02',
  USI: 'FAKE054321',
  USI_VERIFIED: true,
  USI_EXEMPTION: false,
  MIDDLENAME: null,
  PREFERREDNAME: 'Joey',
  LUI: '1234567890',
  OPTIONALID: null,
};

/** aXcelerate GET /contact/enrolments/:contactID rows (real test data; no email or name in them). */
export const axcelerateContactEnrolments = [
  {
    TYPE: 's',
    ID: 81195,
    INSTANCEID: 81195,
    ENROLID: 11760355,
    LEARNERID: 48957030,
    CODE: 'HLTAID001',
    NAME: 'Provide cardiopulmonary resuscitation',
    COMMENCEDDATE: '2021-04-15',
    STARTDATE: '2021-04-15',
    FINISHDATE: null,
    COMPLETIONDATE: '2021-04-15',
    STATUS: 'C',
    OUTCOMECODE: '20',
  },
  {
    TYPE: 'p',
    ID: 11426,
    INSTANCEID: 1162464,
    ENROLID: 11760355,
    LEARNERID: 11760355,
    CODE: 'PFA incl CPR',
    NAME: 'Provide First Aid (AM) ...',
    FINISHDATE: '2021-04-15',
    COMPLETIONDATE: '2021-04-15',
    STATUS: 'Completed',
  },
  {
    TYPE: 'w',
    ID: 11901,
    INSTANCEID: 1489957,
    LEARNERID: 8448208,
    CODE: 'PFA-CPR-COM',
    COMMENCEDDATE: '1900-01-01',
    COMPLETIONDATE: '2021-04-15',
    STATUS: 'Completed',
  },
  {
    TYPE: 'el',
    ID: 425489,
    LEARNERID: 8448209,
    CODE: null,
    NAME: 'PFA Trainer Observation Checklist (v 4.0)',
    COMPLETIONDATE: '2021-04-16',
    STATUS: 'Completed',
  },
];

/** The sender merges the learner's contact fields into each enrolment row (connectors.md §1). */
export const axcelerateMergedRows = axcelerateContactEnrolments.map((row) => ({ ...row, ...axcelerateContact }));

/** aXcelerate GET /course/enrolments: a program row with unit ACTIVITIES (official sample, excerpt). */
export const axcelerateCourseEnrolment = {
  ENROLMENTDATE: '2014-03-31 00:00',
  INSTANCEID: 27495,
  CONTACTID: 116482,
  SURNAME: 'Gordon',
  GIVENNAME: 'Nathan',
  EMAIL: 'nathan.gordon@vmlearning.com.au',
  CODE: 'FNS40910',
  NAME: 'May Intake 2013',
  ID: 3296,
  TYPE: 'p',
  LEARNERID: 657234,
  FINISHDATE: null,
  LASTUPDATEDUTC: '2021-03-16 23:46',
  ACTIVITIES: [
    {
      INSTANCEID: 187987,
      CONTACTID: 116482,
      TYPE: 's',
      CODE: 'BSBCCO405A',
      NAME: 'Survey stakeholders to gather and record information',
      STATUS: 'C',
      OUTCOMECODE: '20',
      LEARNERID: 3135016,
      FINISHDATE: null,
      DELIVERY: { CODE: 10, DESCRIPTION: 'Classroom-based' },
    },
    { TYPE: 's', CODE: 'BSBCUS403A', STATUS: 'CNA', OUTCOMECODE: '30', CONTACTID: 116482, LEARNERID: 3135017 },
  ],
};

/** The unit rows a sender flattens out of ACTIVITIES, with the learner's email and name merged in. */
export const axcelerateFlattenedUnits = axcelerateCourseEnrolment.ACTIVITIES.map((unit) => ({
  ...unit,
  EMAIL: axcelerateCourseEnrolment.EMAIL,
  GIVENNAME: axcelerateCourseEnrolment.GIVENNAME,
  SURNAME: axcelerateCourseEnrolment.SURNAME,
}));

/** The documented aXcelerate webhook envelope, carrying an enrolment row as its message. */
export function axcelerateWebhook(message: Record<string, unknown>) {
  return {
    type: 'enrolment.updated',
    message,
    clientId: 12345678,
    messageId: '669ee575-71c1-5cf2-97ee-bb20be1f817d',
    timestamp: '2024-02-25T23:30:38.056Z',
  };
}
