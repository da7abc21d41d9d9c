import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../../client/index';
import { type ColumnSource, matchColumns, sourceOfHeader } from '../../../src/modules/ingest/csv.aliases';
import { api, problem } from '../api';
import { languageLabel, PAGE_LANGUAGES } from '../languages';
import { can, useSession } from '../session';
import { Alert, Field, formatDate, inputValue, readTextFile } from '../ui';

type Definition = components['schemas']['Definition'];
type ImportReport = components['schemas']['ImportReport'];
type ImportBatch = components['schemas']['ImportBatch'];
type ImportBatchDetail = components['schemas']['ImportBatchDetail'];
type Mapping = Record<(typeof FIELDS)[number]['key'], string>;
type ImportRow = ImportReport['rows'][number];
type NotificationSettings = components['schemas']['NotificationSettings'];
type IssuedCredential = components['schemas']['IssuedCredential'];

/** The date formats a roster may use; DD/MM and MM/DD look alike, so the file's own must be chosen. */
const DATE_FORMATS = [
  { value: 'DD/MM/YYYY', label: 'DD/MM/YYYY (day first: 31/12/2026)' },
  { value: 'MM/DD/YYYY', label: 'MM/DD/YYYY (month first: 12/31/2026)' },
  { value: 'ISO 8601', label: 'ISO 8601 (2026-12-31)' },
  { value: 'D Month YYYY', label: 'D Month YYYY (31 December 2026)' },
  { value: 'Excel serial', label: 'Excel serial number (46387)' },
] as const;
type DateFormat = (typeof DATE_FORMATS)[number]['value'];

/** What a dry run's class is called in the preview ("already held" is the key's class already_issued). */
function classOf(row: ImportRow): string {
  const cls = row.preview ?? row.outcome;
  if (cls === 'already_issued') return row.message?.startsWith('already held') ? 'already held' : 'already issued';
  return cls;
}

type RowProblem = NonNullable<ImportRow['problems']>[number];

/** A cell as a message quotes it, with the column it is in ("“31/02/2026” in Date Achieved"). */
function quoted(problem: RowProblem): string {
  const where = problem.column ? ` in ${problem.column}` : '';
  return problem.value === null ? `The value${where}` : `“${problem.value}”${where}`;
}

/** The column a field was read from, or what the field is called when no column gave it. */
function columnOf(problem: RowProblem, fallback: string): string {
  return problem.column ?? fallback;
}

/**
 * A problem of a row in the registrar's words, with the bad value and its column (the API's own
 * message is for API clients: field names such as recipientEmail mean nothing here).
 */
function problemText(problem: RowProblem): string {
  switch (problem.code) {
    case 'missing':
      return problem.field === 'definition'
        ? 'No badge for this row: map the course column, or choose the definition for rows without one.'
        : `No ${problem.field === 'recipientEmail' ? 'email address' : 'value'}${problem.column ? ` in ${problem.column}` : ''}.`;
    case 'invalid_email':
      return `${quoted(problem)} is not an email address.`;
    case 'unknown_definition':
      return `${quoted(problem)} matches no badge: use a definition's slug, course code or exact name.`;
    case 'ambiguous_definition':
      return `${quoted(problem)} is the name of several badges: use the slug of the one you mean.`;
    case 'not_a_day':
      return `${quoted(problem)} is not a real day: check the day and the month, and the date format above.`;
    case 'date_order':
      return `${quoted(problem)} could be day/month or month/day: choose the date format above.`;
    case 'unreadable_date':
      return `${quoted(problem)} is not a date: write it like 28/02/2026, 2026-02-28 or 28 February 2026.`;
    case 'future_date':
      return `${quoted(problem)} is in the future: a badge is dated when it was achieved.`;
    case 'invalid_url':
      return `${quoted(problem)} is not a web address (it must start with https:// or http://).`;
    case 'too_long':
      return `${columnOf(problem, problem.field === 'recipientName' ? 'The name' : 'The completion key')} is too long (${problem.field === 'recipientName' ? '200' : '255'} characters at most).`;
    case 'line_break':
      return `The name in ${columnOf(problem, 'the name column')} has a line break or a tab: write it on one line.`;
    case 'contains_email':
      return `The completion key in ${columnOf(problem, 'its column')} holds an email address: use another id (it stays on the credential after an erasure).`;
    case 'invalid_notify':
      return `${quoted(problem)} should say yes or no.`;
    case 'cell_count':
      return `This row has ${problem.value ?? 'a different number of'} cells, not one per column of the header: check its commas and quotes.`;
    case 'definition_archived':
      return 'The badge is archived: it issues no more credentials.';
    case 'quota_exceeded':
      return "Your plan's issuing quota is used up: this row was not issued.";
    default:
      return `${quoted(problem)} cannot be used.`;
  }
}

/** What a preview or result row says beside its class, in the console's words. */
function rowText(row: ImportRow): string {
  if (row.problems && row.problems.length > 0) return row.problems.map(problemText).join(' ');
  if (row.duplicateOf !== undefined) return `Repeats row ${row.duplicateOf} (the same completion key).`;
  if (row.skippedFor === 'already_issued') return 'Already issued: a credential has this completion key.';
  if (row.skippedFor === 'already_held') return 'This person already holds this badge, still valid.';
  if (row.outcome === 'issued' && row.message) return 'The name was not stored: it holds an email address.';
  return '';
}

/** A row the registrar should look at: in error, or with a name whose letter was lost. */
const hasProblem = (row: ImportRow) => row.outcome === 'error' || row.nameWarning !== undefined;

/** What a CSV column can feed, in the order the import reads them. */
const FIELDS = [
  { key: 'recipientEmail', label: 'Recipient email' },
  { key: 'recipientName', label: 'Recipient name' },
  { key: 'completionKey', label: 'Completion key' },
  { key: 'learnerRef', label: 'Learner reference (the key where a row has none)' },
  { key: 'definitionRef', label: 'Definition (slug, course code or name)' },
  { key: 'issuedOn', label: 'Issued on' },
  { key: 'evidenceUrl', label: 'Evidence URL' },
  { key: 'notify', label: 'Email the earner (yes or no)' },
  { key: 'language', label: 'Language (such as fr or de-CH; empty: the definition’s own)' },
] as const;

/**
 * "Email the earner": prefilled with the issuer's default, and off (with the reason) when this
 * service has no SMTP server. A row's own notify column, when mapped, wins over it.
 */
function NotifyChoice({
  id,
  label,
  settings,
  checked,
  onChange,
}: {
  id: string;
  label: string;
  settings: NotificationSettings | null;
  checked: boolean;
  onChange: (checked: boolean) => void;
}) {
  const off = settings !== null && !settings.enabled;
  return (
    <div class="field">
      <label class="choice">
        <input
          id={id}
          type="checkbox"
          checked={checked && !off}
          disabled={off}
          aria-describedby={`${id}-hint`}
          onChange={(e) => onChange((e.currentTarget as HTMLInputElement).checked)}
        />
        {label}
      </label>
      <small id={`${id}-hint`} class="hint">
        {off
          ? 'Email is not set up on this service (SMTP_URL), so no earner can be emailed.'
          : 'A link to the badge, from your sender name. The address is used for this message only, never stored.'}
      </small>
    </div>
  );
}

/** What the API's notification outcome means for the person issuing. */
function notifiedText(outcome: string | undefined): string {
  if (outcome === 'queued') return ' The earner will be emailed a link to it.';
  if (outcome === 'suppressed') return ' The earner was not emailed: they unsubscribed from your emails.';
  return '';
}

/**
 * The language a credential is issued in (issue 45 §1): the definition's own, one it was translated
 * into (its documents then carry that text), or a page and email language without a translation
 * (the badge text stays the definition's own; the earner's pages and email are in that language).
 */
function IssueLanguage({
  definition,
  translated,
  value,
  onChange,
}: {
  definition: Definition;
  translated: string[];
  value: string;
  onChange: (language: string) => void;
}) {
  const untranslated = PAGE_LANGUAGES.filter((tag) => tag !== definition.language && !translated.includes(tag));
  return (
    <Field
      label="Language"
      id="issue-language"
      hint="The badge's name, description and criteria are shown in the translation chosen; a field without one shows the definition's own text."
    >
      <select
        id="issue-language"
        aria-describedby="issue-language-hint"
        value={value}
        onChange={(e) => onChange(inputValue(e))}
      >
        <option value="">{languageLabel(definition.language)}, the definition's own</option>
        {translated.length > 0 && (
          <optgroup label="Translated">
            {translated.map((tag) => (
              <option key={tag} value={tag}>
                {languageLabel(tag)}
              </option>
            ))}
          </optgroup>
        )}
        {untranslated.length > 0 && (
          <optgroup label="Other languages (pages and email; the badge text stays as written)">
            {untranslated.map((tag) => (
              <option key={tag} value={tag}>
                {languageLabel(tag)}
              </option>
            ))}
          </optgroup>
        )}
      </select>
    </Field>
  );
}

function IssueOne({
  definitions,
  notifications,
}: {
  definitions: Definition[];
  notifications: NotificationSettings | null;
}) {
  const [definitionId, setDefinitionId] = useState('');
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [completionKey, setCompletionKey] = useState('');
  const [notify, setNotify] = useState(false);
  const [language, setLanguage] = useState('');
  const [translated, setTranslated] = useState<string[]>([]);
  const [message, setMessage] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);
  const [issued, setIssued] = useState<IssuedCredential | null>(null);
  const chosen = definitions.find((definition) => definition.id === definitionId);
  useEffect(() => {
    setLanguage('');
    setTranslated([]);
    if (!definitionId) return;
    api
      .GET('/api/v1/definitions/{id}/translations', { params: { path: { id: definitionId } } })
      .then(({ data }) => setTranslated((data ?? []).map((translation) => translation.language)));
  }, [definitionId]);
  /** The credential the recipient already holds of this definition, when the service said so. */
  const [held, setHeld] = useState<string | null>(null);
  useEffect(() => setNotify(notifications?.notifyByDefault ?? false), [notifications]);

  /**
   * Issues, first refusing a second credential of the same badge for the same person (the API's
   * already_held names it); "Issue another anyway" sends again with ifAlreadyHeld "issue".
   */
  async function send(ifAlreadyHeld: 'issue' | 'refuse') {
    const { data, error } = await api.POST('/api/v1/credentials', {
      body: {
        definitionId,
        recipientEmail: email,
        completionKey: completionKey || crypto.randomUUID(),
        ...(name ? { recipientName: name } : {}),
        ...(language ? { language } : {}),
        ...(notifications?.enabled ? { notify } : {}),
        ifAlreadyHeld,
      },
    });
    setHeld(null);
    if (error && 'error' in error && error.error === 'already_held' && 'credentialId' in error) {
      setIssued(null);
      setMessage(null);
      setHeld(String(error.credentialId));
    } else if (error) {
      setIssued(null);
      setMessage({ kind: 'error', text: problem(error) });
    } else {
      setIssued(data);
      setMessage({
        kind: 'success',
        text: `${data.created ? 'Issued' : 'Already issued for this completion key:'} credential ${data.credentialId}.${notifiedText(data.notification)}`,
      });
      setEmail('');
      setName('');
      setLanguage('');
      setCompletionKey('');
    }
  }

  return (
    <form
      class="panel"
      onSubmit={(event) => {
        event.preventDefault();
        send('refuse');
      }}
      aria-labelledby="issue-one"
    >
      <h2 id="issue-one">Issue one credential</h2>
      {held && (
        <div class="alert info" role="status">
          <p>
            This person already holds this badge, still valid:{' '}
            <a href={`/console/credentials/${held}`}>open their credential</a>. To fix a name on it, use "Correct the
            name" there rather than issuing a second one.
          </p>
          <div class="actions">
            <button type="button" class="secondary" onClick={() => send('issue')}>
              Issue another anyway
            </button>
          </div>
        </div>
      )}
      {message && (
        <Alert kind={message.kind}>
          {message.text}
          {message.kind === 'success' && issued && (
            <>
              {' '}
              <a href={`/console/credentials/${issued.credentialId}`}>Open the credential</a>
              {issued.verifyUrl && (
                <>
                  {' · '}
                  <a href={issued.verifyUrl} target="_blank" rel="noopener">
                    Verification page
                  </a>
                </>
              )}
            </>
          )}
        </Alert>
      )}
      <Field label="Definition" id="issue-definition">
        <select id="issue-definition" required value={definitionId} onChange={(e) => setDefinitionId(inputValue(e))}>
          <option value="">Choose a definition</option>
          {definitions.map((definition) => (
            <option key={definition.id} value={definition.id}>
              {definition.name}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Recipient email" id="issue-email">
        <input id="issue-email" type="email" required value={email} onInput={(e) => setEmail(inputValue(e))} />
      </Field>
      <Field label="Recipient name" id="issue-name">
        <input id="issue-name" value={name} onInput={(e) => setName(inputValue(e))} />
      </Field>
      <Field label="Completion key" id="issue-key" hint="Your own id for this completion; a random one if empty.">
        <input
          id="issue-key"
          aria-describedby="issue-key-hint"
          value={completionKey}
          onInput={(e) => setCompletionKey(inputValue(e))}
        />
      </Field>
      {chosen && <IssueLanguage definition={chosen} translated={translated} value={language} onChange={setLanguage} />}
      <NotifyChoice
        id="issue-notify"
        label="Email the earner"
        settings={notifications}
        checked={notify}
        onChange={setNotify}
      />
      <button type="submit">Issue credential</button>
    </form>
  );
}

/**
 * The header row of a CSV text (quoted names allowed), to offer its columns for mapping. Its
 * separator is the one the line has most of outside quotes, comma, semicolon or tab, as the server
 * reads it.
 */
function headerOf(csv: string): string[] {
  const line = csv.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
  const unquoted = line.replace(/"[^"]*"/g, '');
  const count = (separator: string) => unquoted.split(separator).length;
  const separator = [';', '\t'].reduce((best, candidate) => (count(candidate) > count(best) ? candidate : best), ',');
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (char === '"' && quoted && line[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (char === '"') quoted = !quoted;
    else if (char === separator && !quoted) {
      cells.push(cell);
      cell = '';
    } else cell += char;
  }
  cells.push(cell);
  return cells.map((name) => name.trim()).filter(Boolean);
}

/**
 * The recipient name's composed choices: a leading space, so no header (headers are trimmed) can
 * be one. " sort:" + a "Family, Given" column; " parts:" + the JSON pair [given, family].
 */
const SORT_NAME = ' sort:';
const NAME_PAIR = ' parts:';

/** The ways the file's columns can make a name, besides one column holding it whole. */
function nameChoices(headers: string[]): { value: string; label: string }[] {
  const of = (...sources: string[]) => headers.filter((header) => sources.includes(sourceOfHeader(header) ?? ''));
  const sorted = of('sortName').map((header) => ({
    value: `${SORT_NAME}${header}`,
    label: `${header} (family, given)`,
  }));
  const pairs = of('givenName', 'preferredName').flatMap((given) =>
    of('familyName').map((family) => ({
      value: `${NAME_PAIR}${JSON.stringify([given, family])}`,
      label: `${given} + ${family}`,
    })),
  );
  return [...pairs, ...sorted];
}

/**
 * The columns the server would read by itself (the shared table, csv.aliases.ts), as the mapping's
 * first choice. Where two columns would give one field the first is taken, and the user can choose.
 */
function guess(headers: string[]): Mapping {
  let seen = [...headers];
  let found = matchColumns(seen);
  while ('problem' in found && found.problem.kind === 'twice') {
    const second = found.problem.second;
    seen = seen.map((header, index) => (index === second ? '' : header));
    found = matchColumns(seen);
  }
  const columns = 'columns' in found ? found.columns : {};
  const header = (source: ColumnSource) => {
    const index = columns[source];
    return index === undefined ? '' : (headers[index] ?? '');
  };
  const given = header('givenName');
  const family = header('familyName');
  const name =
    header('recipientName') ||
    (header('sortName') && `${SORT_NAME}${header('sortName')}`) ||
    (given && family ? `${NAME_PAIR}${JSON.stringify([given, family])}` : given || family);
  return {
    recipientEmail: header('recipientEmail'),
    recipientName: name,
    completionKey: header('completionKey'),
    learnerRef: header('learnerRef'),
    definitionRef: header('definitionRef') || header('definitionId'),
    issuedOn: header('issuedOn'),
    evidenceUrl: header('evidenceUrl'),
    notify: header('notify'),
    language: header('language'),
  };
}

/** The name's choice as the import's mapping says it (every name key, so no alias adds a column). */
function nameMapping(choice: string): Record<string, string | null> {
  if (choice.startsWith(SORT_NAME)) return { recipientName: null, sortName: choice.slice(SORT_NAME.length) };
  if (choice.startsWith(NAME_PAIR)) {
    const [givenName, familyName] = JSON.parse(choice.slice(NAME_PAIR.length)) as [string, string];
    return { recipientName: null, givenName, familyName };
  }
  return { recipientName: choice || null };
}

function CsvImport({
  definitions,
  notifications,
  onImported,
}: {
  definitions: Definition[];
  notifications: NotificationSettings | null;
  onImported: () => void;
}) {
  const [notify, setNotify] = useState(false);
  useEffect(() => setNotify(notifications?.notifyByDefault ?? false), [notifications]);
  const [csv, setCsv] = useState('');
  const [filename, setFilename] = useState('');
  const [mapping, setMapping] = useState<Mapping>(guess([]));
  const [definitionId, setDefinitionId] = useState('');
  const [preview, setPreview] = useState<ImportReport | null>(null);
  const [result, setResult] = useState<ImportReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [dateFormat, setDateFormat] = useState<DateFormat | ''>('');
  const [ambiguous, setAmbiguous] = useState(false);
  /** Names typed over the file's in the preview (a character its save lost), by row number. */
  const [corrections, setCorrections] = useState<Map<number, string>>(new Map());
  const headers = headerOf(csv);

  /**
   * The mapping as the import takes it: a field left "(not used)" is null, so no column feeds it;
   * a name from first and last name columns leaves recipientName out, so the import composes it.
   */
  const mappingBody = (chosen: Mapping, format: DateFormat | '') => ({
    ...Object.fromEntries(Object.entries(chosen).map(([field, header]) => [field, header || null])),
    ...nameMapping(chosen.recipientName),
    ...(format ? { dateFormat: format } : {}),
  });
  const choices = nameChoices(headers);

  /**
   * Detects the file's date format with a dry run the user does not see: the server reads the
   * date column as the import will. An ambiguous file leaves the choice empty and asks.
   */
  async function detect(text: string, chosen: Mapping) {
    setDateFormat('');
    setAmbiguous(false);
    if (!chosen.issuedOn) return;
    const { data } = await api.POST('/api/v1/ingest/csv', {
      body: { csv: text, dryRun: true, mapping: mappingBody(chosen, '') },
    });
    const found = data?.dateFormat;
    if (!found) return;
    setAmbiguous(found.ambiguous);
    if (found.detected) setDateFormat(found.detected as DateFormat);
  }

  async function read(event: Event) {
    const file = (event.currentTarget as HTMLInputElement).files?.[0];
    if (!file) return;
    const text = await readTextFile(file);
    const guessed = guess(headerOf(text));
    setCsv(text);
    setFilename(file.name);
    setMapping(guessed);
    setPreview(null);
    setResult(null);
    setCorrections(new Map());
    await detect(text, guessed);
  }

  function remap(field: keyof Mapping, header: string) {
    const next = { ...mapping, [field]: header };
    setMapping(next);
    setPreview(null);
    if (field === 'issuedOn') detect(csv, next);
  }

  async function send(dryRun: boolean, fixes = corrections) {
    setError(null);
    const { data, error: failure } = await api.POST('/api/v1/ingest/csv', {
      body: {
        csv,
        dryRun,
        ...(filename ? { filename } : {}),
        mapping: mappingBody(mapping, dateFormat),
        ...(fixes.size > 0
          ? { nameCorrections: [...fixes].map(([rowNum, recipientName]) => ({ rowNum, recipientName })) }
          : {}),
        ...(definitionId ? { defaults: { definitionId } } : {}),
        ...(notifications?.enabled ? { notify } : {}),
      },
    });
    if (failure) setError(problem(failure));
    else if (dryRun) setPreview(data);
    else {
      setResult(data);
      setPreview(null);
      onImported();
    }
  }

  const needsFormat = ambiguous && dateFormat === '';

  return (
    <section class="panel" aria-labelledby="csv-import">
      <h2 id="csv-import">CSV import</h2>
      {error && <Alert>{error}</Alert>}
      <Field label="CSV file" id="csv-file">
        <input id="csv-file" type="file" accept=".csv,text/csv" onChange={read} />
      </Field>
      {headers.length > 0 && (
        <>
          <div class="table-wrap">
            <table>
              <caption>Column mapping: which column feeds each field</caption>
              <thead>
                <tr>
                  <th scope="col">Field</th>
                  <th scope="col">Column</th>
                </tr>
              </thead>
              <tbody>
                {FIELDS.map((field) => (
                  <tr key={field.key}>
                    <th scope="row">
                      <label for={`map-${field.key}`}>{field.label}</label>
                    </th>
                    <td>
                      <select
                        id={`map-${field.key}`}
                        value={mapping[field.key]}
                        onChange={(e) => remap(field.key, inputValue(e))}
                      >
                        <option value="">(not used)</option>
                        {field.key === 'recipientName' &&
                          choices.map((choice) => (
                            <option key={choice.value} value={choice.value}>
                              {choice.label}
                            </option>
                          ))}
                        {headers.map((header) => (
                          <option key={header} value={header}>
                            {header}
                          </option>
                        ))}
                      </select>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {mapping.issuedOn && (
            <Field
              label="Date format"
              id="csv-date-format"
              hint={
                needsFormat
                  ? 'Every date in this file reads both ways (all days are 12 or less): choose the order the file uses.'
                  : 'Detected from the file; change it if the dates are read wrongly.'
              }
            >
              <select
                id="csv-date-format"
                aria-describedby="csv-date-format-hint"
                aria-invalid={needsFormat}
                required={ambiguous}
                value={dateFormat}
                onChange={(e) => {
                  setDateFormat(inputValue(e) as DateFormat | '');
                  setPreview(null);
                }}
              >
                <option value="">
                  {ambiguous ? 'Choose the date format' : 'Not detected: ISO 8601 and D Month YYYY'}
                </option>
                {DATE_FORMATS.map((format) => (
                  <option key={format.value} value={format.value}>
                    {format.label}
                  </option>
                ))}
              </select>
            </Field>
          )}
          {needsFormat && (
            <Alert kind="info">Choose the date format before the preview: this file's dates read two ways.</Alert>
          )}
          <Field label="Definition for rows without one" id="csv-definition">
            <select id="csv-definition" value={definitionId} onChange={(e) => setDefinitionId(inputValue(e))}>
              <option value="">(the column decides)</option>
              {definitions.map((definition) => (
                <option key={definition.id} value={definition.id}>
                  {definition.name}
                </option>
              ))}
            </select>
          </Field>
          <NotifyChoice
            id="csv-notify"
            label={mapping.notify ? 'Email each new earner whose notify cell is empty' : 'Email each new earner'}
            settings={notifications}
            checked={notify}
            onChange={setNotify}
          />
          <div class="actions">
            <button type="button" class="secondary" disabled={needsFormat} onClick={() => send(true)}>
              Preview
            </button>
            {preview && (
              <button type="button" disabled={preview.issued === 0} onClick={() => send(false)}>
                Import{preview.issued > 0 ? ` ${preview.issued} credential${preview.issued === 1 ? '' : 's'}` : ''}
              </button>
            )}
          </div>
        </>
      )}
      {preview && (
        <PreviewTable
          report={preview}
          onCorrect={(rowNum, name) => {
            const next = new Map(corrections).set(rowNum, name);
            setCorrections(next);
            send(true, next);
          }}
        />
      )}
      {result && (
        <>
          <Alert kind="success">
            Imported: {result.issued} issued, {result.skipped} skipped, {result.errored} with errors.
            {emailed(result)}
          </Alert>
          <ResultTable report={result} />
        </>
      )}
    </section>
  );
}

/** How many new earners the import emails, and how many it could not (they unsubscribed). */
function emailed(report: ImportReport): string {
  const queued = report.rows.filter((row) => row.notification === 'queued').length;
  const suppressed = report.rows.filter((row) => row.notification === 'suppressed').length;
  if (queued === 0 && suppressed === 0) return '';
  const people = (n: number) => `${n} earner${n === 1 ? '' : 's'}`;
  return ` ${people(queued)} will be emailed${suppressed > 0 ? `; ${people(suppressed)} not, as they unsubscribed` : ''}.`;
}

/**
 * A name the file's save cut ("Nguy?n"), flagged, with a field to type it right: the correction
 * goes with the preview and the import (nameCorrections).
 */
function NameFix({ row, onCorrect }: { row: ImportRow; onCorrect: (rowNum: number, name: string) => void }) {
  const [name, setName] = useState(row.recipientName ?? '');
  const id = `fix-name-${row.rowNum}`;
  return (
    <form
      class="name-fix"
      onSubmit={(event) => {
        event.preventDefault();
        if (name.trim()) onCorrect(row.rowNum, name.trim());
      }}
    >
      <span class="name-lost">
        {row.recipientName} <strong>(a letter was lost)</strong>
      </span>
      <label for={id}>Correct the name of row {row.rowNum}</label>
      <input id={id} value={name} required maxLength={200} onInput={(e) => setName(inputValue(e))} />
      <button type="submit" class="secondary">
        Use this name
      </button>
    </form>
  );
}

/** The dry run: each row's name, definition, date, class and message, and the totals per class. */
function PreviewTable({
  report,
  onCorrect,
}: {
  report: ImportReport;
  onCorrect: (rowNum: number, name: string) => void;
}) {
  const totals = new Map<string, number>();
  for (const row of report.rows) totals.set(classOf(row), (totals.get(classOf(row)) ?? 0) + 1);
  const lost = report.rows.filter((row) => row.nameWarning).length;
  const troubled = report.rows.filter(hasProblem).length;
  const [onlyProblems, setOnlyProblems] = useState(false);
  const rows = onlyProblems ? report.rows.filter(hasProblem) : report.rows;
  return (
    <>
      {lost > 0 && (
        <Alert kind="info">
          {lost === 1 ? '1 name has' : `${lost} names have`} a "?" where a letter was lost when the file was saved
          (Excel's "CSV" keeps only the letters of Windows-1252). Correct each below, or save the file as "CSV UTF-8"
          and choose it again.
        </Alert>
      )}
      <ul class="totals" aria-label="Rows per class">
        {[...totals].map(([cls, count]) => (
          <li key={cls} data-class={cls}>
            {cls}: <strong>{count}</strong>
          </li>
        ))}
      </ul>
      {report.issued === 0 && (
        <Alert kind="info">No row would be issued: fix the rows in error, or choose another mapping.</Alert>
      )}
      {troubled > 0 && (
        <label class="choice">
          <input
            type="checkbox"
            checked={onlyProblems}
            onChange={(e) => setOnlyProblems((e.currentTarget as HTMLInputElement).checked)}
          />
          Show only the {troubled === 1 ? 'row' : `${troubled} rows`} with problems
        </label>
      )}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: at phone width the table scrolls sideways, and a keyboard must reach it (axe scrollable-region-focusable) */}
      <section class="table-wrap" tabIndex={0} aria-label="Preview rows">
        <table class="report">
          <caption>
            Preview (nothing issued yet): {report.total} rows
            {onlyProblems ? `, ${rows.length} with problems shown` : ''}
          </caption>
          <thead>
            <tr>
              <th scope="col">Row</th>
              <th scope="col">Name</th>
              <th scope="col">Definition</th>
              <th scope="col">Date</th>
              <th scope="col">Class</th>
              <th scope="col">Message</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.rowNum} class={`row-${row.preview ?? row.outcome}`}>
                <td>{row.rowNum}</td>
                <td>{row.nameWarning ? <NameFix row={row} onCorrect={onCorrect} /> : (row.recipientName ?? '—')}</td>
                <td>{row.definitionName ?? '—'}</td>
                <td>{row.issuedOn ? formatDay(row.issuedOn) : '—'}</td>
                <td>{classOf(row)}</td>
                <td class="wrap">
                  {rowText(row)}
                  {row.skippedFor === 'already_held' && row.credentialId && (
                    <>
                      {' '}
                      <a href={`/console/credentials/${row.credentialId}`}>
                        Open their credential<span class="visually-hidden"> (row {row.rowNum})</span>
                      </a>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </>
  );
}

/** A date as the verification page writes it (31 December 2026), in UTC. */
const formatDay = (iso: string) =>
  new Date(iso).toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });

/** One row of an import's report as a table shows it. */
interface ReportLine {
  row: string | number;
  /** The outcome, or in a dry run the row's class (its CSS class `row-<outcome>`). */
  outcome: string;
  completionKey?: string | null;
  message?: string | null;
}

function RowsTable({ caption, lines }: { caption: string; lines: ReportLine[] }) {
  return (
    <div class="table-wrap">
      <table class="report">
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Row</th>
            <th scope="col">Outcome</th>
            <th scope="col">Completion key</th>
            <th scope="col">Message</th>
          </tr>
        </thead>
        <tbody>
          {lines.map((line) => (
            <tr key={line.row} class={`row-${line.outcome}`}>
              <td>{line.row}</td>
              <td>{line.outcome.replace('_', ' ')}</td>
              <td>{line.completionKey ?? '—'}</td>
              <td>{line.message ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** An import's result: each row's person and badge, what happened, and a link to the credential. */
function ResultTable({ report }: { report: ImportReport }) {
  const troubled = report.rows.filter(hasProblem).length;
  const [onlyProblems, setOnlyProblems] = useState(false);
  const rows = onlyProblems ? report.rows.filter(hasProblem) : report.rows;
  return (
    <>
      {troubled > 0 && (
        <label class="choice">
          <input
            type="checkbox"
            checked={onlyProblems}
            onChange={(e) => setOnlyProblems((e.currentTarget as HTMLInputElement).checked)}
          />
          Show only the {troubled === 1 ? 'row' : `${troubled} rows`} with errors
        </label>
      )}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: as the preview's, it scrolls sideways at phone width */}
      <section class="table-wrap" tabIndex={0} aria-label="Import result rows">
        <table class="report">
          <caption>
            Import result: {report.total} rows{onlyProblems ? `, ${rows.length} with errors shown` : ''}
          </caption>
          <thead>
            <tr>
              <th scope="col">Row</th>
              <th scope="col">Name</th>
              <th scope="col">Badge</th>
              <th scope="col">Outcome</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.rowNum} class={`row-${row.outcome}`}>
                <td>{row.rowNum}</td>
                <td class="wrap">{row.recipientName ?? '—'}</td>
                <td class="wrap">{row.definitionName ?? '—'}</td>
                <td>{row.outcome}</td>
                <td class="wrap">
                  {rowText(row)}
                  {row.credentialId && (
                    <>
                      {' '}
                      <a href={`/console/credentials/${row.credentialId}`}>
                        Open the credential
                        <span class="visually-hidden"> of {row.recipientName ?? `row ${row.rowNum}`}</span>
                      </a>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </>
  );
}

/** A kept batch's report: the entries it did not issue cleanly. */
/** The batch's certificates as one streamed ZIP (issue 44 "Get it"), with the console session. */
const certificatesZip = (batchId: string) => `/api/v1/ingest/imports/${encodeURIComponent(batchId)}/certificates.zip`;

function BatchReport({ batch }: { batch: ImportBatchDetail }) {
  const name = batch.filename ?? `the import of ${formatDate(batch.createdAt)}`;
  return (
    <section aria-labelledby="batch-report">
      <h3 id="batch-report">Report: {name}</h3>
      {batch.issued > 0 && (
        <p>
          <a class="button secondary" href={certificatesZip(batch.id)} download>
            Download the certificates (ZIP)
          </a>{' '}
          One PDF per credential this import issued, and a list saying why any has none.
        </p>
      )}
      {batch.report === null ? (
        <p>This import was recorded before reports were kept: only its counts are known.</p>
      ) : batch.report.length === 0 ? (
        <p>Every row was issued.</p>
      ) : (
        <>
          {!batch.reportComplete && (
            <p>The first {batch.report.length} rows not issued cleanly are shown; the counts above cover them all.</p>
          )}
          <RowsTable
            caption={`Rows of ${name} not issued cleanly`}
            lines={batch.report.map((entry) => ({ ...entry, row: entry.entry }))}
          />
        </>
      )}
    </section>
  );
}

/** The real imports and connector calls the service kept, each with its report (dry runs are not kept). */
function ImportHistory({ version }: { version: number }) {
  const [batches, setBatches] = useState<ImportBatch[]>([]);
  const [total, setTotal] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [shown, setShown] = useState<ImportBatchDetail | null>(null);
  useEffect(() => {
    api.GET('/api/v1/ingest/imports', { params: { query: { limit: 20 } } }).then(({ data, error: failure }) => {
      if (failure) setError(problem(failure));
      else {
        setBatches(data.items);
        setTotal(data.total);
      }
    });
  }, [version]);
  async function show(id: string) {
    const { data, error: failure } = await api.GET('/api/v1/ingest/imports/{id}', { params: { path: { id } } });
    if (failure) setError(problem(failure));
    else setShown(data);
  }
  return (
    <section class="panel" aria-labelledby="import-history">
      <h2 id="import-history">Import history</h2>
      {error && <Alert>{error}</Alert>}
      {batches.length === 0 ? (
        <p>No imports yet.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption>
              The newest {batches.length} of {total} imports
            </caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Source</th>
                <th scope="col">File</th>
                <th scope="col">Rows</th>
                <th scope="col">Issued</th>
                <th scope="col">Skipped</th>
                <th scope="col">Errors</th>
                <th scope="col">
                  <span class="visually-hidden">Report</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {batches.map((batch) => (
                <tr key={batch.id}>
                  <td>{formatDate(batch.createdAt)}</td>
                  <td>{batch.source}</td>
                  <td class="wrap">{batch.filename ?? '—'}</td>
                  <td>{batch.rows}</td>
                  <td>{batch.issued}</td>
                  <td>{batch.skipped}</td>
                  <td>{batch.errors}</td>
                  <td>
                    <button type="button" class="secondary" onClick={() => show(batch.id)}>
                      Report<span class="visually-hidden"> of the import of {formatDate(batch.createdAt)}</span>
                    </button>{' '}
                    {batch.issued > 0 && (
                      <a href={certificatesZip(batch.id)} download>
                        Certificates (ZIP)
                        <span class="visually-hidden"> of the import of {formatDate(batch.createdAt)}</span>
                      </a>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {shown && <BatchReport batch={shown} />}
    </section>
  );
}

export function IssuePage() {
  const session = useSession();
  const [definitions, setDefinitions] = useState<Definition[]>([]);
  const [imports, setImports] = useState(0);
  const [notifications, setNotifications] = useState<NotificationSettings | null>(null);
  useEffect(() => {
    api.GET('/api/v1/definitions').then(({ data }) => {
      if (data) setDefinitions(data.filter((definition) => definition.status !== 'archived'));
    });
    api.GET('/api/v1/notifications/settings').then(({ data }) => setNotifications(data ?? null));
  }, []);
  if (!can(session?.user, 'issue')) {
    return (
      <>
        <h1>Issue</h1>
        <p>Your role can read credentials but not issue them.</p>
      </>
    );
  }
  return (
    <>
      <h1>Issue</h1>
      <IssueOne definitions={definitions} notifications={notifications} />
      <CsvImport definitions={definitions} notifications={notifications} onImported={() => setImports((n) => n + 1)} />
      <ImportHistory version={imports} />
    </>
  );
}
