import type { LightMyRequestResponse } from 'fastify';

/*
 * The channels a recipient email enters by, each driven the way a partner would (asking for the
 * earner notification where a channel can): single issue, CSV
 * import (dry run, valid, invalid and duplicate rows), single completion ingest, every connector
 * preset, pathway progress, earner profiles, GDPR export and erase; plus verification and the public
 * documents of the credentials it produced, and every list the issuer can read back.
 */

/** Channels that issue: each must have issued at least once, or it was not really exercised. */
export const ISSUING_CHANNELS = [
  'credentials',
  'csv import',
  'ingest',
  'connector generic',
  'connector moodle',
  'connector canvas',
  'connector axcelerate',
];

export interface CanaryClient {
  call(
    channel: string,
    method: 'GET' | 'POST',
    url: string,
    payload?: unknown,
    key?: boolean,
  ): Promise<LightMyRequestResponse>;
  json(
    channel: string,
    method: 'GET' | 'POST',
    url: string,
    payload?: unknown,
    key?: boolean,
  ): Promise<{ status: number; body: unknown }>;
}

export interface CanaryValues {
  /** The mixed-case canary email. */
  email: string;
  /** The same with a broken domain, for the rows and records validation refuses. */
  broken: string;
  /** A definition name known to be stored: the scans' positive control. */
  control: string;
}

/** Sends the canary through every channel; returns the first credential issued to it. */
export async function sendThroughEveryChannel(
  { call, json }: CanaryClient,
  { email: canary, broken, control }: CanaryValues,
  context: {
    issuerSlug: string;
    receiverUrl: string;
    /** Sends the notifications queued so far: the erase below suppresses the canary's address. */
    sendNotifications(): Promise<void>;
  },
): Promise<{ credentialId: string; assertionUrl: string }> {
  await json('setup', 'POST', '/api/v1/webhooks', {
    url: context.receiverUrl,
    events: [
      'credential.issued',
      'credential.revoked',
      'credential.reissued',
      'credential.expired',
      'credential.verified',
    ],
  });
  const definition = (
    await json('setup', 'POST', '/api/v1/definitions', {
      name: control,
      description: 'Canary course',
      slug: 'canary-course',
    })
  ).body as { id: string; slug: string };
  await json('setup', 'POST', '/api/v1/definitions', {
    name: 'Canary licence',
    description: 'Expires',
    slug: 'canary-licence',
    expiresAfterDays: 30,
  });
  await call('control', 'GET', `/api/v1/definitions/${control}`);

  // Single issue: new, replay, and a broken variant the validator refuses.
  const single = {
    definitionId: definition.id,
    recipientEmail: canary,
    recipientName: 'Cora Canary',
    completionKey: 'canary-single',
    notify: true,
  };
  const issued = (await json('credentials', 'POST', '/api/v1/credentials', single)).body as {
    credentialId: string;
    assertionUrl: string;
  };
  await json('credentials', 'POST', '/api/v1/credentials', single);
  await json('credentials', 'POST', '/api/v1/credentials', {
    ...single,
    recipientEmail: broken,
    completionKey: 'canary-broken',
  });

  // CSV import: a valid row, an invalid row (broken variant), a duplicate row; dry run first, then for real.
  const csv = [
    'email,name,definition,completion_key',
    `${canary},Cora Canary,canary-licence,canary-csv-1`,
    `${broken},Cora Canary,canary-licence,canary-csv-2`,
    `${canary},Cora Canary,canary-licence,canary-csv-1`,
    `${canary.toLowerCase()},Cora Canary,canary-course,`,
  ].join('\n');
  await json('csv import', 'POST', '/api/v1/ingest/csv', { csv, filename: 'canary.csv', dryRun: true, notify: true });
  await json('csv import', 'POST', '/api/v1/ingest/csv', { csv, filename: 'canary.csv', notify: true });
  await json('csv import', 'POST', '/api/v1/ingest/csv', { csv, filename: 'canary.csv' });
  await json('csv import', 'POST', '/api/v1/ingest/csv', { csv: `email\n${canary}\n` });

  // Single completion ingest: new, replay, broken, unknown definition.
  const completion = {
    recipientEmail: canary,
    definitionRef: 'canary-licence',
    recipientName: 'Cora Canary',
    completionKey: 'canary-ingest',
    notify: true,
  };
  await json('ingest', 'POST', '/api/v1/ingest/completions', completion);
  await json('ingest', 'POST', '/api/v1/ingest/completions', completion);
  await json('ingest', 'POST', '/api/v1/ingest/completions', {
    ...completion,
    recipientEmail: broken,
    completionKey: 'canary-ingest-2',
  });
  await json('ingest', 'POST', '/api/v1/ingest/completions', {
    ...completion,
    definitionRef: 'no-such-course',
    completionKey: 'canary-ingest-3',
  });

  // Connector presets, each with a completion, a repeat and a record the preset refuses.
  const definitionMap = { 'CAN-101': 'canary-course' };
  const generic = {
    email: canary,
    firstName: 'Cora',
    lastName: 'Canary',
    courseCode: 'CAN-101',
    completedAt: '2026-02-01T00:00:00Z',
    externalId: 'canary-generic',
  };
  await json('connector generic', 'POST', '/api/v1/connectors/generic/completions', {
    records: [
      generic,
      generic,
      { ...generic, email: broken, externalId: 'canary-generic-2' },
      { ...generic, courseCode: 'UNKNOWN', externalId: 'canary-generic-3' },
    ],
    definitionMap,
    options: { notify: true },
  });
  const moodle = {
    email: canary,
    firstname: 'Cora',
    lastname: 'Canary',
    userid: '58',
    courseid: '4',
    shortname: 'CAN',
    idnumber: 'CAN-101',
    timecompleted: '1767225600',
    host: 'moodle.canary.example',
  };
  await json('connector moodle', 'POST', '/api/v1/connectors/moodle/completions', {
    records: [
      moodle,
      moodle,
      { ...moodle, email: broken, userid: '59' },
      { ...moodle, timecompleted: '0', userid: '60' },
    ],
    definitionMap,
  });
  const canvas = {
    metadata: { event_name: 'course_completed', root_account_uuid: 'canary-root', hostname: 'canvas.canary.example' },
    body: {
      user: { id: '123', name: 'Cora Canary', email: canary },
      course: { id: '565', sis_source_id: 'CAN-101' },
      progress: { completed_at: '2026-02-01T10:00:00Z' },
    },
  };
  await json('connector canvas', 'POST', '/api/v1/connectors/canvas/completions', {
    records: [canvas, canvas],
    definitionMap,
  });
  await json('connector canvas', 'POST', '/api/v1/connectors/canvas/completions', {
    ...canvas,
    body: { ...canvas.body, user: { ...canvas.body.user, id: '124', email: broken } },
    definitionMap,
  });
  const axcelerate = {
    CONTACTID: 708861,
    GIVENNAME: 'Cora',
    SURNAME: 'Canary',
    EMAILADDRESS: canary,
    TYPE: 's',
    ID: 81195,
    LEARNERID: 48957030,
    CODE: 'CAN-101',
    COMPLETIONDATE: '2026-02-01',
    STATUS: 'C',
    OUTCOMECODE: '20',
  };
  await json('connector axcelerate', 'POST', '/api/v1/connectors/axcelerate/completions', {
    records: [
      axcelerate,
      axcelerate,
      { ...axcelerate, EMAILADDRESS: broken, LEARNERID: 48957031 },
      { ...axcelerate, OUTCOMECODE: '40', LEARNERID: 48957032 },
    ],
    definitionMap,
  });

  // Pathway progress, earner profile, verification in every form.
  const pathway = (await json('pathways', 'POST', '/api/v1/pathways', { name: 'Canary path', description: 'Path' }))
    .body as { id: string };
  await json('pathways', 'POST', `/api/v1/pathways/${pathway.id}/stages`, {
    definitionId: definition.id,
    stepOrder: 1,
  });
  await json('pathways', 'POST', `/api/v1/pathways/${pathway.id}/progress`, { recipientEmail: canary });
  await json('pathways', 'POST', `/api/v1/pathways/${pathway.id}/progress`, { recipientEmail: broken });
  const profile = (await json('profiles', 'POST', '/api/v1/profiles', { recipientEmail: canary })).body as {
    id: string;
    profileUrl: string;
  };
  await json('profiles', 'POST', '/api/v1/profiles', { recipientEmail: canary.toLowerCase() });
  await call('profiles', 'GET', new URL(profile.profileUrl).pathname, undefined, false);
  const assertionPath = new URL(issued.assertionUrl).pathname;
  await json('verify', 'POST', '/api/v1/verify', { id: issued.assertionUrl }, false);
  await json('verify', 'POST', '/api/v1/verify/bulk', { ids: [issued.assertionUrl, issued.credentialId] }, false);
  await json('verify', 'POST', '/api/v1/verify/premium', { id: issued.assertionUrl });
  await call('verify', 'GET', `/verify/${context.issuerSlug}/${issued.credentialId}`, undefined, false);
  await call(
    'verify',
    'GET',
    `/verify/${context.issuerSlug}/${issued.credentialId}/share/share_link`,
    undefined,
    false,
  );
  await call('documents', 'GET', assertionPath, undefined, false);
  await call('documents', 'GET', `${assertionPath}/image.svg`, undefined, false);
  await json('credentials', 'POST', `/api/v1/credentials/${issued.credentialId}/reissue`, {});

  // Everything the issuer can read back.
  for (const url of [
    '/api/v1/credentials?limit=200',
    `/api/v1/credentials/${issued.credentialId}`,
    '/api/v1/audit',
    '/api/v1/usage',
    '/api/v1/reports/issuance',
    '/api/v1/reports/issuance.csv',
    '/api/v1/analytics',
    '/api/v1/analytics.csv',
  ]) {
    await call('read back', 'GET', url);
  }

  // GDPR last: export, erase, erase again, export after.
  await context.sendNotifications();
  await json('gdpr', 'POST', '/api/v1/gdpr/export', { recipientEmail: canary });
  await json('gdpr', 'POST', '/api/v1/gdpr/export', { recipientEmail: broken });
  await json('gdpr', 'POST', '/api/v1/gdpr/erase', { recipientEmail: canary });
  await json('gdpr', 'POST', '/api/v1/gdpr/erase', { recipientEmail: canary.toLowerCase() });
  await json('gdpr', 'POST', '/api/v1/gdpr/export', { recipientEmail: canary });
  await call('documents', 'GET', assertionPath, undefined, false);
  return issued;
}
