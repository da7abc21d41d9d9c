import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../../client/index';
import { api, problem } from '../api';
import { can, useSession } from '../session';
import { Alert, Field, inputValue } from '../ui';
import { LtiPage } from './lti';

type Definition = components['schemas']['Definition'];
type RunReport = components['schemas']['ConnectorRunReport'];

/** The course code every test record carries; the test maps it to the definition the user picks. */
const TEST_CODE = 'ACCOLADE-TEST';

interface Connector {
  provider: 'moodle' | 'canvas' | 'axcelerate' | 'generic';
  name: string;
  /** What the learning system calls the code the definition map is keyed by. */
  codeName: string;
  /** How to point the system at the receive URL, step by step. */
  steps: string[];
  /** The fields the connector reads, with the record paths it tries in order. */
  fields: [string, string][];
  /** A record shaped as the system sends it, for the test. */
  sample(email: string, at: Date, run: string): Record<string, unknown>;
}

/** The presets of src/modules/ingest/connectors, as docs/connectors.md describes them. */
const CONNECTORS: Connector[] = [
  {
    provider: 'moodle',
    name: 'Moodle',
    codeName: 'course ID number',
    steps: [
      'Site administration → Server → Event Trigger: add a workflow on the event \\core\\event\\course_completed.',
      'Add the step “User lookup” on relateduserid with the prefix user_, and “Course lookup” on courseid with the prefix course_.',
      'Add the step “HTTP POST” to the receive URL below, with the header Authorization: Bearer <the key> and Content-Type: application/json, “JSON encode” on, and the parameters below.',
      'Give each course an ID number equal to a definition’s slug, or add the definition map below to the parameters.',
    ],
    fields: [
      ['Earner email', 'email, user_email, user.email'],
      ['Earner name', 'user_fullname, else firstname + lastname'],
      ['Course code', 'idnumber, course_idnumber, shortname, course_shortname'],
      ['Completed at', 'timecompleted, timecreated (unix seconds)'],
      ['Completion key', 'moodle:<host>:<courseid>:<userid>'],
    ],
    sample: (email, at, run) => ({
      email,
      firstname: 'Test',
      lastname: 'Earner',
      userid: run,
      courseid: 'console-test',
      idnumber: TEST_CODE,
      timecompleted: String(Math.floor(at.getTime() / 1000)),
      host: location.host,
    }),
  },
  {
    provider: 'canvas',
    name: 'Canvas LMS',
    codeName: 'course SIS id',
    steps: [
      'Admin → Data Services: add a Live Events subscription in Canvas format for course_completed.',
      'Deliver over HTTPS to the receive URL below. When the subscription cannot send the header Authorization: Bearer <the key>, forward each event through a small relay that adds it.',
      'Give each course an SIS id equal to a definition’s slug, or send the definition map below from the relay.',
    ],
    fields: [
      ['Earner email', 'body.user.email, user.email, email'],
      ['Earner name', 'body.user.name, user.name, name'],
      ['Course code', 'body.course.sis_source_id, metadata.context_sis_source_id, body.course.id'],
      ['Completed at', 'body.progress.completed_at, progress.completed_at, completed_at'],
      ['Completion key', 'canvas:<root account>:<course id>:<user id>'],
    ],
    sample: (email, at, run) => ({
      metadata: { event_name: 'course_completed', root_account_uuid: location.host },
      body: {
        course: { id: 'console-test', sis_source_id: TEST_CODE },
        progress: { completed_at: at.toISOString() },
        user: { id: run, email, name: 'Test Earner' },
      },
    }),
  },
  {
    provider: 'axcelerate',
    name: 'aXcelerate',
    codeName: 'CODE',
    steps: [
      'Point the enrolment webhook at the receive URL below; the connector reads the row from the webhook’s message.',
      'Or, from a scheduled job, post enrolment rows (email and legal name merged in) in batches of up to 1,000 with the header Authorization: Bearer <the key>.',
      'Units issue on outcome 20 or 51; programs, workshops and e-learning when their status is Completed and they have a completion date.',
    ],
    fields: [
      ['Earner email', 'EMAIL, EMAILADDRESS'],
      ['Earner name', 'GIVENNAME + SURNAME'],
      ['Course code', 'CODE, else <TYPE>:<ID>'],
      ['Completed at', 'COMPLETIONDATE, FINISHDATE'],
      ['Completion key', 'axcelerate:<CONTACTID>:<TYPE>:<LEARNERID>'],
    ],
    sample: (email, at, run) => ({
      CONTACTID: run,
      GIVENNAME: 'Test',
      SURNAME: 'Earner',
      EMAIL: email,
      TYPE: 'p',
      ID: 1,
      LEARNERID: run,
      CODE: TEST_CODE,
      COMPLETIONDATE: at.toISOString().slice(0, 10),
      STATUS: 'Completed',
    }),
  },
  {
    provider: 'generic',
    name: 'Any other system',
    codeName: 'courseCode',
    steps: [
      'In Zapier (Webhooks by Zapier → POST), Make (HTTP), n8n (HTTP Request) or Power Automate (HTTP), send JSON to the receive URL below.',
      'Add the header Authorization: Bearer <the key>.',
      'Map your trigger’s fields onto the names below (email, name, courseCode, completedAt, externalId).',
    ],
    fields: [
      ['Earner email', 'recipientEmail, email, emailAddress, user.email'],
      ['Earner name', 'recipientName, name, fullName, else firstName + lastName'],
      ['Course code', 'courseCode, course_code, code, courseId'],
      ['Completed at', 'completedAt, completed_at, completionDate'],
      ['Completion key', 'completionKey, externalId'],
    ],
    sample: (email, at, run) => ({
      email,
      name: 'Test Earner',
      courseCode: TEST_CODE,
      completedAt: at.toISOString(),
      externalId: `console-test-${run}`,
    }),
  },
];

const receiveUrl = (connector: Connector) => `${location.origin}/api/v1/connectors/${connector.provider}/completions`;

function MakeKey({ connector }: { connector: Connector }) {
  const [key, setKey] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const label = `${connector.name} connector`;
  async function make() {
    const { data, error: failure } = await api.POST('/api/v1/keys', { body: { name: label } });
    if (failure) setError(problem(failure));
    else {
      setError(null);
      setKey(data.key);
    }
  }
  return (
    <>
      {error && <Alert>{error}</Alert>}
      {key ? (
        <div class="secret" role="status">
          <p>Copy the key now: it is shown once. It is listed on the API keys page as “{label}”.</p>
          <code class="key">{key}</code>
        </div>
      ) : (
        <button type="button" onClick={make}>
          Make a key for {connector.name}
        </button>
      )}
    </>
  );
}

/** Course codes typed per definition become the definition map to paste into the system. */
function DefinitionMap({ connector, definitions }: { connector: Connector; definitions: Definition[] }) {
  const [codes, setCodes] = useState<Record<string, string>>({});
  const map = Object.fromEntries(
    definitions.filter((definition) => codes[definition.id]?.trim()).map((d) => [codes[d.id]?.trim(), d.slug]),
  );
  const json = JSON.stringify({ definitionMap: map }, null, 2);
  const moodle = Object.entries(map)
    .map(([code, slug]) => `&definitionMap[${code}]=${slug}`)
    .join('');
  return (
    <section aria-labelledby={`map-${connector.provider}`}>
      <h3 id={`map-${connector.provider}`}>Definition map</h3>
      <p>
        A completion earns the definition whose slug is its {connector.codeName}. Where the codes differ, type each
        definition’s {connector.codeName} here and paste the map into {connector.name}.
      </p>
      {definitions.length === 0 ? (
        <p>No definitions yet: create one on the Definitions page first.</p>
      ) : (
        <div class="table-wrap">
          <table class="cards">
            <caption>Codes per definition</caption>
            <thead>
              <tr>
                <th scope="col">Definition</th>
                <th scope="col">Slug</th>
                <th scope="col">{connector.codeName}</th>
              </tr>
            </thead>
            <tbody>
              {definitions.map((definition) => (
                <tr key={definition.id}>
                  <th scope="row">{definition.name}</th>
                  <td data-label="Slug">
                    <code>{definition.slug}</code>
                  </td>
                  <td data-label={connector.codeName}>
                    <input
                      aria-label={`${connector.codeName} of ${definition.name}`}
                      maxLength={200}
                      value={codes[definition.id] ?? ''}
                      onInput={(e) => setCodes({ ...codes, [definition.id]: inputValue(e) })}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <pre class="paste" data-paste="definition-map">
        <code>{connector.provider === 'moodle' ? moodle || '(no codes typed)' : json}</code>
      </pre>
    </section>
  );
}

function TestRecord({ connector, definitions }: { connector: Connector; definitions: Definition[] }) {
  const session = useSession();
  const [email, setEmail] = useState(session?.user.email ?? '');
  const [slug, setSlug] = useState('');
  const [report, setReport] = useState<RunReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function send(event: Event) {
    event.preventDefault();
    setBusy(true);
    const record = connector.sample(email, new Date(), String(Date.now()));
    const body = { records: [record], definitionMap: { [TEST_CODE]: slug || definitions[0]?.slug || '' } };
    const { data, error: failure } = await api.POST('/api/v1/connectors/{provider}/completions', {
      params: { path: { provider: connector.provider } },
      body,
    });
    setBusy(false);
    if (failure) setError(problem(failure));
    else {
      setError(null);
      setReport(data);
    }
  }

  return (
    <section aria-labelledby={`test-${connector.provider}`}>
      <h3 id={`test-${connector.provider}`}>Send a test record</h3>
      <p>
        Sends one completion shaped as {connector.name} sends it, through the same receive URL. It issues a real
        credential to the email below; revoke it on its page when you are done.
      </p>
      {definitions.length > 0 && (
        <form class="inline-form" onSubmit={send} aria-label={`Send a test record from ${connector.name}`}>
          <Field label="Test earner email" id={`test-email-${connector.provider}`}>
            <input
              id={`test-email-${connector.provider}`}
              type="email"
              required
              value={email}
              onInput={(e) => setEmail(inputValue(e))}
            />
          </Field>
          <Field label="Definition" id={`test-definition-${connector.provider}`}>
            <select id={`test-definition-${connector.provider}`} value={slug} onChange={(e) => setSlug(inputValue(e))}>
              {definitions.map((definition) => (
                <option key={definition.id} value={definition.slug}>
                  {definition.name}
                </option>
              ))}
            </select>
          </Field>
          <button type="submit" disabled={busy}>
            Send a test record
          </button>
        </form>
      )}
      {error && <Alert>{error}</Alert>}
      {report && (
        <div class="table-wrap" role="status">
          <table class="cards">
            <caption>
              Report: {report.issued} issued, {report.skipped} skipped, {report.errored} errors
            </caption>
            <thead>
              <tr>
                <th scope="col">Record</th>
                <th scope="col">Outcome</th>
                <th scope="col">Completion key</th>
                <th scope="col">Message</th>
              </tr>
            </thead>
            <tbody>
              {report.records.map((row) => (
                <tr key={row.index}>
                  <th scope="row">{row.index + 1}</th>
                  <td data-label="Outcome">
                    {row.credentialId ? (
                      <a href={`/console/credentials/${row.credentialId}`}>{row.outcome}</a>
                    ) : (
                      row.outcome
                    )}
                  </td>
                  <td data-label="Completion key" class="wrap">
                    {row.completionKey ?? '—'}
                  </td>
                  <td data-label="Message" class="wrap">
                    {row.message ?? '—'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function ConnectorDetail({ connector }: { connector: Connector }) {
  const session = useSession();
  const [definitions, setDefinitions] = useState<Definition[]>([]);
  useEffect(() => {
    api.GET('/api/v1/definitions').then(({ data }) => setDefinitions(data ?? []));
  }, []);
  const sample = connector.sample('earner@example.org', new Date('2026-01-15T09:00:00Z'), '42');
  return (
    <>
      <h1>Connect {connector.name}</h1>
      <p>
        <a href="/console/connectors">All connectors</a>
      </p>
      <section class="panel" aria-labelledby="connect-steps">
        <h2 id="connect-steps">1. Where {connector.name} sends completions</h2>
        <Field label="Receive URL" id="receive-url">
          <input id="receive-url" readOnly value={receiveUrl(connector)} />
        </Field>
        <ol>
          {connector.steps.map((step) => (
            <li key={step}>{step}</li>
          ))}
        </ol>
      </section>
      <section class="panel" aria-labelledby="connect-key">
        <h2 id="connect-key">2. A key for {connector.name}</h2>
        {can(session?.user, 'own') ? (
          <MakeKey connector={connector} />
        ) : (
          <p>Only an owner can make API keys. Ask an owner of this issuer for one.</p>
        )}
      </section>
      <section class="panel" aria-labelledby="connect-mapping">
        <h2 id="connect-mapping">3. What the connector reads</h2>
        <div class="table-wrap">
          <table class="cards">
            <caption>Mapping: fields and the record paths tried in order</caption>
            <thead>
              <tr>
                <th scope="col">Field</th>
                <th scope="col">Paths</th>
              </tr>
            </thead>
            <tbody>
              {connector.fields.map(([field, paths]) => (
                <tr key={field}>
                  <th scope="row">{field}</th>
                  <td data-label="Paths" class="wrap">
                    <code>{paths}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <p>A record as {connector.name} sends it:</p>
        <pre class="paste" data-paste="sample">
          <code>{JSON.stringify(sample, null, 2)}</code>
        </pre>
        <DefinitionMap connector={connector} definitions={definitions} />
      </section>
      {can(session?.user, 'issue') && (
        <section class="panel" aria-label="Test">
          <TestRecord connector={connector} definitions={definitions} />
        </section>
      )}
    </>
  );
}

export function ConnectorsPage({ provider }: { provider?: string }) {
  if (provider === 'lti') return <LtiPage />;
  const connector = CONNECTORS.find((item) => item.provider === provider);
  if (connector) return <ConnectorDetail connector={connector} />;
  return (
    <>
      <h1>Connectors</h1>
      <p>
        Issue a credential when a learner completes a course in your learning system. Pick yours: each page gives the
        receive URL, a key, what to paste into the system and a test.
      </p>
      <ul class="links">
        {CONNECTORS.map((item) => (
          <li key={item.provider}>
            <a href={`/console/connectors/${item.provider}`}>{item.name}</a>
          </li>
        ))}
        <li>
          <a href="/console/connectors/lti">LMS (LTI 1.3)</a>
        </li>
      </ul>
    </>
  );
}
