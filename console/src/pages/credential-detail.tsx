import { useCallback, useEffect, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import type { components } from '../../../client/index';
import { api, problem } from '../api';
import { can, useSession } from '../session';
import { Alert, ConfirmDialog, Field, formatDate, inputValue } from '../ui';

type Credential = components['schemas']['CredentialDetail'];
type AuditRecord = components['schemas']['AuditRecord'];

/** A credential's timeline: its newest audit records (issued, revoked, reissued, ...). */
const TIMELINE_LIMIT = 200;

export function CredentialDetailPage() {
  const { params } = useRoute();
  const id = params.id ?? '';
  const session = useSession();
  const mayChange = can(session?.user, 'issue');
  const [credential, setCredential] = useState<Credential | null>(null);
  const [timeline, setTimeline] = useState<AuditRecord[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [reason, setReason] = useState('');
  const [confirming, setConfirming] = useState(false);

  const load = useCallback(async () => {
    const { data, error: failure } = await api.GET('/api/v1/credentials/{id}', { params: { path: { id } } });
    if (failure) {
      setError(problem(failure));
      return;
    }
    setCredential(data);
    const audit = await api.GET('/api/v1/audit', {
      params: { query: { limit: TIMELINE_LIMIT, targetType: 'credential', targetId: id } },
    });
    setTimeline(audit.data?.items ?? []);
  }, [id]);
  useEffect(() => {
    load();
  }, [load]);

  /** Revokes once the dialog is confirmed; the console asks for a reason (the API takes none too). */
  async function revoke() {
    setConfirming(false);
    const { error: failure } = await api.POST('/api/v1/credentials/{id}/revoke', {
      params: { path: { id } },
      body: { reason: reason.trim() },
    });
    if (failure) setError(problem(failure));
    else {
      setNotice('The credential is revoked.');
      load();
    }
  }

  async function reissue(event: Event) {
    event.preventDefault();
    const { data, error: failure } = await api.POST('/api/v1/credentials/{id}/reissue', {
      params: { path: { id } },
      body: {},
    });
    if (failure) setError(problem(failure));
    else setNotice(`Reissued as ${data.credentialId}.`);
  }

  if (!credential) {
    return (
      <>
        <h1>Credential</h1>
        {error ? <Alert>{error}</Alert> : <p>Loading…</p>}
      </>
    );
  }
  return (
    <>
      <h1>Credential {credential.completionKey}</h1>
      {error && <Alert>{error}</Alert>}
      {notice && <Alert kind="success">{notice}</Alert>}
      <dl class="facts">
        <dt>Recipient</dt>
        <dd>{credential.recipientName ?? 'No name given'}</dd>
        <dt>Status</dt>
        <dd>
          <span class={`status status-${credential.status}`}>{credential.status}</span>
          {credential.revokedReason ? ` (${credential.revokedReason})` : ''}
        </dd>
        <dt>Issued</dt>
        <dd>{formatDate(credential.issuedOn)}</dd>
        <dt>Expires</dt>
        <dd>{formatDate(credential.expiresOn)}</dd>
        <dt>Documents</dt>
        <dd>
          <ul class="links">
            {credential.verifyUrl && (
              <li>
                <a href={credential.verifyUrl}>Verification page</a>
              </li>
            )}
            <li>
              <a href={credential.assertionUrl}>Open Badges 2.0 assertion</a>
            </li>
            <li>
              <a href={credential.badgeClassUrl}>Badge class</a>
            </li>
            {credential.openBadgeCredentialUrl && (
              <li>
                <a href={credential.openBadgeCredentialUrl}>Open Badges 3.0 credential</a>
              </li>
            )}
          </ul>
        </dd>
      </dl>
      {mayChange && credential.status !== 'revoked' && (
        <section class="panel" aria-labelledby="revoke-title">
          <h2 id="revoke-title">Revoke</h2>
          <p>The verification page then shows the credential as revoked, with the reason.</p>
          <button type="button" class="danger" onClick={() => setConfirming(true)}>
            Revoke
          </button>
        </section>
      )}
      {confirming && (
        <ConfirmDialog
          id="confirm-revoke-credential"
          title={`Revoke credential ${credential.completionKey}?`}
          confirmLabel="Revoke credential"
          confirmDisabled={reason.trim() === ''}
          onConfirm={revoke}
          onCancel={() => setConfirming(false)}
        >
          <p>It cannot be undone: every verification from now on answers "revoked".</p>
          <Field label="Reason" id="revoke-reason" hint="Required: the verification page shows it.">
            <input
              id="revoke-reason"
              required
              maxLength={500}
              aria-describedby="revoke-reason-hint"
              value={reason}
              onInput={(e) => setReason(inputValue(e))}
            />
          </Field>
        </ConfirmDialog>
      )}
      {mayChange && (
        <form class="panel" onSubmit={reissue} aria-labelledby="reissue-title">
          <h2 id="reissue-title">Reissue</h2>
          <p>Issues a replacement for the same earner; this one is then marked as replaced.</p>
          <button type="submit">Reissue</button>
        </form>
      )}
      <section aria-labelledby="timeline-title">
        <h2 id="timeline-title">Audit timeline</h2>
        {timeline.length === 0 ? (
          <p>No audit records for this credential.</p>
        ) : (
          <ol class="timeline">
            {timeline.map((record) => (
              <li key={record.id}>
                <time dateTime={record.occurredAt}>{formatDate(record.occurredAt)}</time> {record.action} by{' '}
                {record.actor}
              </li>
            ))}
          </ol>
        )}
      </section>
    </>
  );
}
