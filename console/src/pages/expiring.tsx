import { useState } from 'preact/hooks';
import type { components } from '../../../client/index';
import { api, problem } from '../api';
import { useApiRead } from '../hooks';
import { EarnerNoticeFields, noticeOutcome, useEarnerNotice } from '../notify-earner';
import { can, useSession } from '../session';
import { Alert, ConfirmDialog, Field, FilterForm, formatDate, inputValue, readTextFile } from '../ui';

type RenewalReport = components['schemas']['RenewalReport'];

const WINDOWS = [30, 60, 90] as const;
const OUTCOME_TEXT = { renewed: 'Renewed', already_renewed: 'Already renewed', error: 'Not renewed' } as const;

/** The lines after the header that hold anything: the keys a renewal CSV names. */
const keyLines = (csv: string) => Math.max(csv.split(/\r?\n/).filter((line) => line.trim() !== '').length - 1, 0);

/** The per-key report of a renewal CSV: what became of each line, with a link to each new credential. */
function RenewalReportTable({ report }: { report: RenewalReport }) {
  return (
    <div class="table-wrap">
      <table>
        <caption>
          {report.renewed} renewed, {report.alreadyRenewed} already renewed, {report.errors} not renewed
        </caption>
        <thead>
          <tr>
            <th scope="col">Line</th>
            <th scope="col">Completion key</th>
            <th scope="col">Outcome</th>
            <th scope="col">New expiry</th>
          </tr>
        </thead>
        <tbody>
          {report.rows.map((row) => (
            <tr key={row.row}>
              <td>{row.row}</td>
              <td>{row.completionKey}</td>
              <td>
                {row.credentialId ? (
                  <a href={`/console/credentials/${row.credentialId}`}>{OUTCOME_TEXT[row.outcome]}</a>
                ) : (
                  OUTCOME_TEXT[row.outcome]
                )}
                {row.message ? `: ${row.message}` : ''}
              </td>
              <td>{row.expiresOn === undefined ? '—' : formatDate(row.expiresOn)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** "Expiring soon" (issue 39 §5): what expires within 30, 60 or 90 days, its export, and renewal. */
export function ExpiringPage() {
  const session = useSession();
  const mayRenew = can(session?.user, 'issue');
  const [withinDays, setWithinDays] = useState<number>(30);
  const [notice, setNotice] = useState<{ text: string; id: string } | null>(null);
  const [renewing, setRenewing] = useState<string | null>(null);
  const [file, setFile] = useState<File | null>(null);
  const [report, setReport] = useState<RenewalReport | null>(null);
  /** A renewal revokes the old credential: each waits for a confirmation. */
  const [confirmRow, setConfirmRow] = useState<{ id: string; who: string } | null>(null);
  const [confirmCsv, setConfirmCsv] = useState<{ csv: string; keys: number } | null>(null);
  const definitions = useApiRead(() => api.GET('/api/v1/definitions'), []);
  const earnerNotice = useEarnerNotice();
  const {
    data: page,
    error,
    setError,
    reload,
  } = useApiRead(
    () => api.GET('/api/v1/credentials/expiring', { params: { query: { withinDays, limit: 200, offset: 0 } } }),
    [withinDays],
  );
  const names = new Map((definitions.data ?? []).map((definition) => [definition.id, definition.name]));

  async function renew(id: string, who: string) {
    setConfirmRow(null);
    setRenewing(id);
    setNotice(null);
    const { data, error: failure } = await api.POST('/api/v1/credentials/{id}/reissue', {
      params: { path: { id } },
      body: earnerNotice.body(),
    });
    setRenewing(null);
    earnerNotice.reset();
    if (failure) {
      setError(problem(failure));
      return;
    }
    setNotice({ text: `Renewed the credential of ${who}.${noticeOutcome(data.notification)}`, id: data.credentialId });
    reload();
  }

  async function askUpload(event: Event) {
    event.preventDefault();
    if (!file) return;
    const csv = await readTextFile(file);
    setConfirmCsv({ csv, keys: keyLines(csv) });
  }

  async function upload(csv: string) {
    setConfirmCsv(null);
    setReport(null);
    const { data, error: failure } = await api.POST('/api/v1/credentials/renewals', { body: { csv } });
    if (failure) setError(problem(failure));
    else {
      setReport(data);
      reload();
    }
  }

  return (
    <>
      <h1>Expiring soon</h1>
      <FilterForm label="Expiring window">
        <Field label="Expiring within" id="expiring-within">
          <select
            id="expiring-within"
            value={String(withinDays)}
            onChange={(event) => setWithinDays(Number(inputValue(event)))}
          >
            {WINDOWS.map((days) => (
              <option key={days} value={String(days)}>
                {days} days
              </option>
            ))}
          </select>
        </Field>
        <div class="actions">
          <a href={`/api/v1/credentials/expiring.csv?withinDays=${withinDays}`} download>
            Export CSV
          </a>
        </div>
      </FilterForm>
      {error && <Alert>{error}</Alert>}
      {notice && (
        <Alert kind="success">
          {notice.text} <a href={`/console/credentials/${notice.id}`}>Open the new credential</a>
        </Alert>
      )}
      {page === null ? (
        <p>Loading…</p>
      ) : page.total === 0 ? (
        <p>Nothing expires in the next {withinDays} days.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption>
              {page.total} credential{page.total === 1 ? '' : 's'} expiring within {withinDays} days
              {page.total > page.items.length ? ` (the first ${page.items.length} shown; the export has all)` : ''}
            </caption>
            <thead>
              <tr>
                <th scope="col">Expires</th>
                <th scope="col">Name</th>
                <th scope="col">Definition</th>
                <th scope="col">Completion key</th>
                {mayRenew && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {page.items.map((credential) => {
                const who = credential.recipientName ?? credential.completionKey;
                return (
                  <tr key={credential.id}>
                    <td>
                      <a href={`/console/credentials/${credential.id}`}>{formatDate(credential.expiresOn)}</a>
                    </td>
                    <td>{credential.recipientName ?? '—'}</td>
                    <td>{names.get(credential.definitionId) ?? credential.definitionId}</td>
                    <td>{credential.completionKey}</td>
                    {mayRenew && (
                      <td class="actions">
                        <button
                          type="button"
                          class="secondary"
                          disabled={renewing !== null}
                          onClick={() => setConfirmRow({ id: credential.id, who })}
                        >
                          Renew<span class="visually-hidden"> {who}</span>
                        </button>
                      </td>
                    )}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {mayRenew && (
        <form class="panel" onSubmit={askUpload} aria-labelledby="renew-csv-title">
          <h2 id="renew-csv-title">Renew from a CSV</h2>
          <p>
            A CSV with a completionKey column, such as the export above. Each credential is reissued with a new expiry
            counted from today; the old one shows “Replaced by a newer credential”.
          </p>
          <p class="hint">
            To email each earner their renewed credential, add an email column (email, recipientEmail or “Email
            Address”) with the address the credential was issued to. Earners are emailed only while “Email earners by
            default” is on in Settings → Notifications; an address that is not the credential's own stops that line.
          </p>
          <Field label="CSV of completion keys" id="renew-file">
            <input
              id="renew-file"
              type="file"
              accept=".csv,text/csv"
              onChange={(event) => setFile((event.currentTarget as HTMLInputElement).files?.[0] ?? null)}
            />
          </Field>
          <div class="actions">
            <button type="submit" disabled={file === null}>
              Renew these credentials
            </button>
          </div>
        </form>
      )}
      {report && <RenewalReportTable report={report} />}
      {confirmRow && (
        <ConfirmDialog
          id="confirm-renew-row"
          title={`Renew the credential of ${confirmRow.who}?`}
          confirmLabel="Renew credential"
          destructive={false}
          confirmDisabled={!earnerNotice.ready}
          onConfirm={() => renew(confirmRow.id, confirmRow.who)}
          onCancel={() => {
            earnerNotice.reset();
            setConfirmRow(null);
          }}
        >
          <p>
            A new credential is issued with an expiry counted from today, and this one is revoked as replaced. It cannot
            be undone.
          </p>
          <EarnerNoticeFields id="renew-row" label="Email the earner the renewed credential" notice={earnerNotice} />
        </ConfirmDialog>
      )}
      {confirmCsv && (
        <ConfirmDialog
          id="confirm-renew-csv"
          title={`Renew the credentials of ${confirmCsv.keys} completion key${confirmCsv.keys === 1 ? '' : 's'}?`}
          confirmLabel="Renew credentials"
          destructive={false}
          onConfirm={() => upload(confirmCsv.csv)}
          onCancel={() => setConfirmCsv(null)}
        >
          <p>
            Each credential due is reissued with an expiry counted from today, and the one it replaces is revoked. It
            cannot be undone; a key renewed already is only reported.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
