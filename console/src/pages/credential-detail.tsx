import { useCallback, useEffect, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import type { components } from '../../../client/index';
import { api, problem } from '../api';
import { languageLabel } from '../languages';
import { EarnerNoticeFields, noticeOutcome, useEarnerNotice } from '../notify-earner';
import { can, useSession } from '../session';
import { Alert, ConfirmDialog, Field, formatDate, inputValue } from '../ui';
import { CertificateSection } from './credential-certificate';
import { ResendEmail } from './credential-email';
import { CorrectName } from './credential-name';

type Credential = components['schemas']['CredentialDetail'];
type AuditRecord = components['schemas']['AuditRecord'];
type Notification = NonNullable<Credential['notification']>;

/** The stored reason of a revocation by reissue or renewal (credentials.service.ts REISSUED_REASON). */
const REISSUED = 'reissued';

const DELIVERY_TEXT: Record<Notification['status'], string> = {
  queued: 'Queued',
  sent: 'Sent',
  suppressed: 'Not sent',
  failed: 'Failed',
};

/** The earner notification's state, with the reason a message was not delivered when there is one. */
function DeliveryStatus({ notification }: { notification: Notification | undefined }) {
  if (!notification) return <>No email was sent to the earner.</>;
  const why = notification.reason ?? notification.detail;
  return (
    <>
      <span class={`status delivery-${notification.status}`}>{DELIVERY_TEXT[notification.status]}</span>
      {why ? ` (${why})` : ''}, {formatDate(notification.updatedAt)}
    </>
  );
}

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
  const [confirmingRenewal, setConfirmingRenewal] = useState(false);
  /** The replacement just issued, and what the person did: "Renewed" or "Reissued". */
  const [renewed, setRenewed] = useState<{ id: string; done: string } | null>(null);
  /** The badge's name (from its public BadgeClass), for the page's title. */
  const [badgeName, setBadgeName] = useState<string | null>(null);
  const earnerNotice = useEarnerNotice();

  const load = useCallback(async () => {
    const { data, error: failure } = await api.GET('/api/v1/credentials/{id}', { params: { path: { id } } });
    if (failure) {
      setError(problem(failure));
      return;
    }
    setCredential(data);
    fetch(data.badgeClassUrl, { headers: { accept: 'application/json' } })
      .then((res) => (res.ok ? res.json() : null))
      .then((badge: { name?: unknown } | null) => setBadgeName(typeof badge?.name === 'string' ? badge.name : null))
      .catch(() => setBadgeName(null));
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

  /** Renewal is a reissue: a replacement whose expiry the definition's validity counts from today. */
  async function renew(done: string) {
    setConfirmingRenewal(false);
    const { data, error: failure } = await api.POST('/api/v1/credentials/{id}/reissue', {
      params: { path: { id } },
      body: earnerNotice.body(),
    });
    if (failure) setError(problem(failure));
    else {
      earnerNotice.reset();
      setRenewed({ id: data.credentialId, done: `${done}.${noticeOutcome(data.notification)}` });
      load();
    }
  }

  if (!credential) {
    return (
      <>
        <h1>Credential</h1>
        {error ? <Alert>{error}</Alert> : <p>Loading…</p>}
      </>
    );
  }
  const replaced = credential.revokedReason === REISSUED;
  // A revoked credential is not renewed but may still be replaced (issued in error, say).
  const renewVerb = credential.status === 'revoked' ? 'Reissue' : 'Renew';
  // Titled by the badge and the earner, as a registrar knows it; the completion key is a fact below.
  const earner = credential.recipientName ?? 'an earner without a name';
  const badge = badgeName ?? 'Credential';
  return (
    <>
      <h1 class="wrap">
        {badge} for {earner}
      </h1>
      {error && <Alert>{error}</Alert>}
      {notice && <Alert kind="success">{notice}</Alert>}
      {renewed && (
        <Alert kind="success">
          {renewed.done} <a href={`/console/credentials/${renewed.id}`}>Open the new credential</a>
        </Alert>
      )}
      {/* wrap: long keys, addresses and reasons break rather than widen the page at 390 px (issue 46). */}
      <dl class="facts wrap">
        <dt>Recipient</dt>
        <dd>{credential.recipientName ?? 'No name given'}</dd>
        <dt>Status</dt>
        <dd>
          <span class={`status status-${credential.status}`}>{credential.status}</span>
          {replaced
            ? ' (Replaced by a newer credential)'
            : credential.revokedReason
              ? ` (${credential.revokedReason})`
              : ''}
        </dd>
        {credential.replacedBy && (
          <>
            <dt>Replaced by</dt>
            <dd>
              <a href={`/console/credentials/${credential.replacedBy}`}>The newer credential</a>
            </dd>
          </>
        )}
        {credential.replaces && (
          <>
            <dt>Replaces</dt>
            <dd>
              <a href={`/console/credentials/${credential.replaces}`}>The earlier credential</a>
            </dd>
          </>
        )}
        <dt>Completion key</dt>
        <dd>
          <code>{credential.completionKey}</code>
        </dd>
        <dt>Issued</dt>
        <dd>{formatDate(credential.issuedOn)}</dd>
        <dt>Expires</dt>
        <dd>{formatDate(credential.expiresOn)}</dd>
        <dt>Language</dt>
        <dd>{credential.language ? languageLabel(credential.language) : "The badge's own"}</dd>
        <dt>Earner email</dt>
        <dd>
          <DeliveryStatus notification={credential.notification} />
        </dd>
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
      {credential.status !== 'revoked' && <CertificateSection credentialId={id} mayChange={mayChange} />}
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
          title={`Revoke ${badge} for ${earner}?`}
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
      {mayChange && <CorrectName credential={credential} onCorrected={load} />}
      {mayChange && <ResendEmail credential={credential} onSent={load} />}
      {mayChange && !credential.replacedBy && (
        <section class="panel" aria-labelledby="renew-title">
          <h2 id="renew-title">{renewVerb}</h2>
          <p>
            Issues a replacement for the same earner, valid for the definition's validity from today; this one then
            shows “Replaced by a newer credential”.
          </p>
          <button type="button" onClick={() => setConfirmingRenewal(true)}>
            {renewVerb}
          </button>
        </section>
      )}
      {confirmingRenewal && (
        <ConfirmDialog
          id="confirm-renew-credential"
          title={`${renewVerb} ${badge} for ${earner}?`}
          confirmLabel={`${renewVerb} credential`}
          destructive={false}
          confirmDisabled={!earnerNotice.ready}
          onConfirm={() => renew(renewVerb === 'Reissue' ? 'Reissued' : 'Renewed')}
          onCancel={() => setConfirmingRenewal(false)}
        >
          <p>
            A new credential is issued with a new expiry. This one is then no longer valid: its verification page says
            “Replaced by a newer credential”.
          </p>
          <EarnerNoticeFields
            id="renew-credential"
            label={`Email the earner the ${renewVerb === 'Reissue' ? 'reissued' : 'renewed'} credential`}
            notice={earnerNotice}
          />
        </ConfirmDialog>
      )}
      <section aria-labelledby="timeline-title">
        <h2 id="timeline-title">Audit timeline</h2>
        {timeline.length === 0 ? (
          <p>No audit records for this credential.</p>
        ) : (
          <ol class="timeline wrap">
            {timeline.map((record) => (
              <li key={record.id}>
                <time dateTime={record.occurredAt}>{formatDate(record.occurredAt)}</time> {record.action} by{' '}
                {record.actorName}
              </li>
            ))}
          </ol>
        )}
      </section>
    </>
  );
}
