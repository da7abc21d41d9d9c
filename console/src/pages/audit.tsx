import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../../client/index';
import { api, problem } from '../api';
import { Alert, formatDate } from '../ui';

type AuditRecord = components['schemas']['AuditRecord'];
type Checkpoint = components['schemas']['AuditCheckpoint'];
type ChainReport = components['schemas']['AuditChainReport'];

const PAGE = 50;

/**
 * Each record names the hash of the one before it in its stripe: the page checks that the
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
    api.GET('/api/v1/audit', { params: { query: { limit: PAGE, offset } } }).then(({ data, error: failure }) => {
      if (failure) setError(problem(failure));
      else {
        setRecords(data.items);
        setTotal(data.total);
      }
    });
  }, [offset]);
  useEffect(() => {
    api.GET('/api/v1/audit/head').then(({ data }) => setHead(data ?? null));
  }, []);
  const breaks = chainBreaks(records);

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
              Chain broken at stripe {report.brokenAt?.stripe}, seq {report.brokenAt?.seq}: {report.brokenAt?.reason}
            </Alert>
          ))}
        {head && (
          <>
            <p>Head taken {formatDate(head.takenAt)}:</p>
            <ul class="links">
              {head.stripes.map((stripe) => (
                <li key={stripe.stripe}>
                  Stripe {stripe.stripe}: {stripe.count} records, head <code>{stripe.hash}</code>
                </li>
              ))}
            </ul>
          </>
        )}
      </section>
      <div class="table-wrap">
        <table>
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
                <td>{formatDate(record.occurredAt)}</td>
                <td>{record.action}</td>
                <td>{record.actor}</td>
                <td class="wrap">
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
