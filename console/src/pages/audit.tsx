import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../../client/index';
import { api, problem } from '../api';
import { Alert, DateField, Field, FilterForm, formatDate, inputValue } from '../ui';

type AuditRecord = components['schemas']['AuditRecord'];
type Checkpoint = components['schemas']['AuditCheckpoint'];
type ChainReport = components['schemas']['AuditChainReport'];

const PAGE = 50;

/** The filters as typed; dates are days (UTC), `to` inclusive. */
interface Filters {
  action: string;
  actor: string;
  targetType: string;
  targetId: string;
  from: string;
  to: string;
}

const NO_FILTERS: Filters = { action: '', actor: '', targetType: '', targetId: '', from: '', to: '' };

/** Actors every issuer's log may name, offered before any record shows them. */
const KNOWN_ACTORS: [string, string][] = [
  ['cli', 'CLI'],
  ['system', 'System'],
];

/** The list API's query for `filters`: empty fields left out, the `to` day included whole. */
function auditQuery(filters: Filters) {
  const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00.000Z`) + 86_400_000).toISOString();
  return {
    ...(filters.action ? { action: filters.action.trim() } : {}),
    ...(filters.actor ? { actor: filters.actor } : {}),
    ...(filters.targetType ? { targetType: filters.targetType.trim() } : {}),
    ...(filters.targetId ? { targetId: filters.targetId.trim() } : {}),
    ...(filters.from ? { from: `${filters.from}T00:00:00.000Z` } : {}),
    ...(filters.to ? { to: nextDay(filters.to) } : {}),
  };
}

/**
 * Each record names the hash of the one before it in its strand (the API's stripe): the page checks that the
 * records it shows link up, and asks the service to recompute every chain (`audit verify`).
 */
function chainBreaks(records: AuditRecord[]): number {
  const byStripe = new Map<number, AuditRecord[]>();
  for (const record of records) byStripe.set(record.stripe, [...(byStripe.get(record.stripe) ?? []), record]);
  let breaks = 0;
  for (const stripe of byStripe.values()) {
    const ordered = [...stripe].sort((a, b) => a.seq - b.seq);
    for (let i = 1; i < ordered.length; i++) {
      const previous = ordered[i - 1];
      const current = ordered[i];
      if (previous && current && current.seq === previous.seq + 1 && current.prevHash !== previous.hash) breaks++;
    }
  }
  return breaks;
}

export function AuditPage() {
  const [offset, setOffset] = useState(0);
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [actors, setActors] = useState<Map<string, string>>(new Map(KNOWN_ACTORS));
  const [records, setRecords] = useState<AuditRecord[]>([]);
  const [total, setTotal] = useState(0);
  const [head, setHead] = useState<Checkpoint | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [report, setReport] = useState<ChainReport | null>(null);
  const [checking, setChecking] = useState(false);

  async function verify() {
    setChecking(true);
    const { data, error: failure } = await api.GET('/api/v1/audit/verify');
    setChecking(false);
    if (failure) setError(problem(failure));
    else setReport(data);
  }

  useEffect(() => {
    const query = { limit: PAGE, offset, ...auditQuery(filters) };
    api.GET('/api/v1/audit', { params: { query } }).then(({ data, error: failure }) => {
      if (failure) setError(problem(failure));
      else {
        setError(null);
        setRecords(data.items);
        setTotal(data.total);
        setActors((known) => new Map([...known, ...data.items.map((r): [string, string] => [r.actor, r.actorName])]));
      }
    });
  }, [offset, filters]);
  useEffect(() => {
    api.GET('/api/v1/audit/head').then(({ data }) => setHead(data ?? null));
  }, []);
  const breaks = chainBreaks(records);
  const set = (key: keyof Filters) => (event: Event) => setDraft({ ...draft, [key]: inputValue(event) });

  return (
    <>
      <h1>Audit log</h1>
      {error && <Alert>{error}</Alert>}
      <section class="panel" aria-labelledby="chain-title">
        <h2 id="chain-title">Chain check</h2>
        <p>
          {breaks === 0 ? (
            <span class="status status-valid">linked</span>
          ) : (
            <span class="status status-revoked">{breaks} broken links</span>
          )}{' '}
          The records on this page each carry the hash of the record before them.
        </p>
        <p>
          <button type="button" class="secondary" disabled={checking} onClick={verify}>
            {checking ? 'Checking…' : 'Verify the whole chain'}
          </button>
        </p>
        {report &&
          (report.ok ? (
            <Alert kind="success">Chain verified: {report.records} records recompute and end at their heads.</Alert>
          ) : (
            <Alert>
              Chain broken in strand {(report.brokenAt?.stripe ?? 0) + 1}, at record {report.brokenAt?.seq}:{' '}
              {report.brokenAt?.reason}
            </Alert>
          ))}
        {head && (
          <>
            <p>
              The log is written in {head.stripes.length === 1 ? 'one strand' : `${head.stripes.length} strands`}{' '}
              (parallel chains, so busy hours do not queue on one). Their last records, taken {formatDate(head.takenAt)}
              :
            </p>
            <ul class="links">
              {head.stripes.map((stripe) => (
                <li key={stripe.stripe}>
                  Strand {stripe.stripe + 1}: {stripe.count} {stripe.count === 1 ? 'record' : 'records'}, ending in{' '}
                  <code class="wrap">{stripe.hash}</code>
                </li>
              ))}
            </ul>
          </>
        )}
      </section>
      <FilterForm
        label="Filter the audit log"
        onFilter={() => {
          setOffset(0);
          setFilters(draft);
        }}
      >
        <Field label="Action" id="audit-action" hint="Exactly, as in the list: credential.revoked">
          <input
            id="audit-action"
            maxLength={100}
            aria-describedby="audit-action-hint"
            value={draft.action}
            onInput={set('action')}
          />
        </Field>
        <Field label="Actor" id="audit-actor">
          <select id="audit-actor" value={draft.actor} onChange={set('actor')}>
            <option value="">Anyone</option>
            {[...actors].map(([actor, name]) => (
              <option key={actor} value={actor}>
                {name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Target type" id="audit-target-type" hint="credential, definition, api_key, …">
          <input
            id="audit-target-type"
            maxLength={100}
            aria-describedby="audit-target-type-hint"
            value={draft.targetType}
            onInput={set('targetType')}
          />
        </Field>
        <Field label="Target id" id="audit-target-id">
          <input id="audit-target-id" maxLength={200} value={draft.targetId} onInput={set('targetId')} />
        </Field>
        <DateField label="From" id="audit-from" value={draft.from} onInput={set('from')} />
        <DateField label="To" id="audit-to" value={draft.to} onInput={set('to')} />
        <div class="actions">
          <button type="submit">Filter</button>
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setDraft(NO_FILTERS);
              setOffset(0);
              setFilters(NO_FILTERS);
            }}
          >
            Clear
          </button>
        </div>
      </FilterForm>
      <div class="table-wrap">
        <table class="cards">
          <caption>
            Records {total === 0 ? 0 : offset + 1}–{offset + records.length} of {total}
          </caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Action</th>
              <th scope="col">Actor</th>
              <th scope="col">Target</th>
            </tr>
          </thead>
          <tbody>
            {records.map((record) => (
              <tr key={record.id}>
                <td data-label="When">{formatDate(record.occurredAt)}</td>
                <td data-label="Action">{record.action}</td>
                <td data-label="Actor" class="wrap">
                  {record.actorName}
                </td>
                <td data-label="Target" class="wrap">
                  {record.targetType} <code>{record.targetId}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div class="actions">
        <button
          type="button"
          class="secondary"
          disabled={offset === 0}
          onClick={() => setOffset(Math.max(0, offset - PAGE))}
        >
          Newer
        </button>
        <button
          type="button"
          class="secondary"
          disabled={offset + PAGE >= total}
          onClick={() => setOffset(offset + PAGE)}
        >
          Older
        </button>
      </div>
    </>
  );
}
