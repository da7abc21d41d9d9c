import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../../client/index';
import { api, problem } from '../api';
import { can, useSession } from '../session';
import { Alert, Field, formatDate, inputValue } from '../ui';

type Definition = components['schemas']['Definition'];
type ImportReport = components['schemas']['ImportReport'];
type ImportBatch = components['schemas']['ImportBatch'];
type ImportBatchDetail = components['schemas']['ImportBatchDetail'];
type Mapping = Record<(typeof FIELDS)[number]['key'], string>;

/** What a CSV column can feed, in the order the import reads them. */
const FIELDS = [
  { key: 'recipientEmail', label: 'Recipient email' },
  { key: 'recipientName', label: 'Recipient name' },
  { key: 'completionKey', label: 'Completion key' },
  { key: 'definitionRef', label: 'Definition (id or slug)' },
  { key: 'issuedOn', label: 'Issued on' },
  { key: 'evidenceUrl', label: 'Evidence URL' },
] as const;

function IssueOne({ definitions }: { definitions: Definition[] }) {
  const [definitionId, setDefinitionId] = useState('');
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [completionKey, setCompletionKey] = useState('');
  const [message, setMessage] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);

  async function submit(event: Event) {
    event.preventDefault();
    const { data, error } = await api.POST('/api/v1/credentials', {
      body: {
        definitionId,
        recipientEmail: email,
        completionKey: completionKey || crypto.randomUUID(),
        ...(name ? { recipientName: name } : {}),
      },
    });
    if (error) setMessage({ kind: 'error', text: problem(error) });
    else {
      setMessage({ kind: 'success', text: `Issued credential ${data.credentialId}.` });
      setEmail('');
      setName('');
      setCompletionKey('');
    }
  }

  return (
    <form class="panel" onSubmit={submit} aria-labelledby="issue-one">
      <h2 id="issue-one">Issue one credential</h2>
      {message && <Alert kind={message.kind}>{message.text}</Alert>}
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
      <button type="submit">Issue credential</button>
    </form>
  );
}

/** The header row of a CSV text (quoted names allowed), to offer its columns for mapping. */
function headerOf(csv: string): string[] {
  const line = csv.split(/\r?\n/, 1)[0] ?? '';
  return line
    .split(',')
    .map((cell) => cell.trim().replace(/^"(.*)"$/, '$1'))
    .filter(Boolean);
}

function guess(headers: string[]): Mapping {
  const find = (...names: string[]) =>
    headers.find((header) => names.includes(header.toLowerCase().replace(/[\s_-]/g, ''))) ?? '';
  return {
    recipientEmail: find('email', 'recipientemail'),
    recipientName: find('name', 'recipientname', 'fullname'),
    completionKey: find('completionkey', 'key', 'id'),
    definitionRef: find('definition', 'definitionid', 'definitionref', 'badge'),
    issuedOn: find('issuedon', 'date', 'completed'),
    evidenceUrl: find('evidence', 'evidenceurl'),
  };
}

function CsvImport({ definitions, onImported }: { definitions: Definition[]; onImported: () => void }) {
  const [csv, setCsv] = useState('');
  const [filename, setFilename] = useState('');
  const [mapping, setMapping] = useState<Mapping>(guess([]));
  const [definitionId, setDefinitionId] = useState('');
  const [preview, setPreview] = useState<ImportReport | null>(null);
  const [result, setResult] = useState<ImportReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const headers = headerOf(csv);

  async function read(event: Event) {
    const file = (event.currentTarget as HTMLInputElement).files?.[0];
    if (!file) return;
    const text = await file.text();
    setCsv(text);
    setFilename(file.name);
    setMapping(guess(headerOf(text)));
    setPreview(null);
    setResult(null);
  }

  async function send(dryRun: boolean) {
    setError(null);
    const chosen = Object.fromEntries(Object.entries(mapping).filter(([, header]) => header));
    const { data, error: failure } = await api.POST('/api/v1/ingest/csv', {
      body: {
        csv,
        dryRun,
        ...(filename ? { filename } : {}),
        mapping: chosen,
        ...(definitionId ? { defaults: { definitionId } } : {}),
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
                        onChange={(e) => setMapping({ ...mapping, [field.key]: inputValue(e) })}
                      >
                        <option value="">(not used)</option>
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
          <div class="actions">
            <button type="button" class="secondary" onClick={() => send(true)}>
              Preview
            </button>
            {preview && (
              <button type="button" onClick={() => send(false)}>
                Import
              </button>
            )}
          </div>
        </>
      )}
      {preview && <ReportTable report={preview} title="Preview (nothing issued yet)" />}
      {result && (
        <>
          <Alert kind="success">
            Imported: {result.issued} issued, {result.skipped} skipped, {result.errored} with errors.
          </Alert>
          <ReportTable report={result} title="Import result" />
        </>
      )}
    </section>
  );
}

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

function ReportTable({ report, title }: { report: ImportReport; title: string }) {
  const lines = report.rows.map((row) => ({
    ...row,
    row: row.rowNum,
    outcome: report.dryRun ? (row.preview ?? row.outcome) : row.outcome,
  }));
  return <RowsTable caption={`${title}: ${report.total} rows`} lines={lines} />;
}

/** A kept batch's report: the entries it did not issue cleanly. */
function BatchReport({ batch }: { batch: ImportBatchDetail }) {
  const name = batch.filename ?? `the import of ${formatDate(batch.createdAt)}`;
  return (
    <section aria-labelledby="batch-report">
      <h3 id="batch-report">Report: {name}</h3>
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
                    </button>
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
  useEffect(() => {
    api.GET('/api/v1/definitions').then(({ data }) => {
      if (data) setDefinitions(data.filter((definition) => definition.status !== 'archived'));
    });
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
      <IssueOne definitions={definitions} />
      <CsvImport definitions={definitions} onImported={() => setImports((n) => n + 1)} />
      <ImportHistory version={imports} />
    </>
  );
}
