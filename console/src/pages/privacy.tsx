import { useState } from 'preact/hooks';
import type { components } from '../../../client/index';
import { api, problem } from '../api';
import { can, useSession } from '../session';
import { Alert, ConfirmDialog, Field, formatDate, inputValue, ReadOnlyNotice, saveFile } from '../ui';

type RecipientExport = components['schemas']['RecipientExport'];

export function PrivacyPage() {
  const session = useSession();
  return (
    <>
      <h1>Privacy</h1>
      <p>
        Answer an earner's request to see or erase what is held about them. The email is only used for the lookup. An
        export gives you a file to send them: every credential with its badge, dates, status, the name as stored and its
        links, the emails about each, and the audit records about them.
      </p>
      {can(session?.user, 'own') ? <EarnerRequests /> : <ReadOnlyNotice what="earners' privacy requests" />}
    </>
  );
}

function EarnerRequests() {
  const [email, setEmail] = useState('');
  const [exported, setExported] = useState<RecipientExport | null>(null);
  const [message, setMessage] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);
  const [confirm, setConfirm] = useState(false);

  async function exportData(event: Event) {
    event.preventDefault();
    setMessage(null);
    const { data, error } = await api.POST('/api/v1/gdpr/export', { body: { recipientEmail: email } });
    if (error) setMessage({ kind: 'error', text: problem(error) });
    else setExported(data);
  }

  /** The export as JSON: the answer just shown, as the API gave it. */
  function downloadJson(data: RecipientExport) {
    const body = new Blob([`${JSON.stringify(data, null, 2)}\n`], { type: 'application/json' });
    saveFile(`subject-access-${data.exportedAt.slice(0, 10)}.json`, body);
  }

  /** The printable document, made by the service from the same data (another audited access). */
  async function downloadDocument() {
    setMessage(null);
    const { data, error } = await api.POST('/api/v1/gdpr/export/document', {
      body: { recipientEmail: email },
      parseAs: 'text',
    });
    if (error || data === undefined) setMessage({ kind: 'error', text: problem(error) });
    else
      saveFile(`subject-access-${new Date().toISOString().slice(0, 10)}.html`, new Blob([data], { type: 'text/html' }));
  }

  async function erase() {
    setMessage(null);
    const { data, error } = await api.POST('/api/v1/gdpr/erase', { body: { recipientEmail: email } });
    setConfirm(false);
    if (error) setMessage({ kind: 'error', text: problem(error) });
    else
      setMessage({
        kind: 'success',
        text: data.found
          ? `Erased: ${data.revoked} credentials revoked and unlinked.`
          : 'Nothing is held for that email.',
      });
  }

  return (
    <>
      {message && <Alert kind={message.kind}>{message.text}</Alert>}
      <form class="panel inline" onSubmit={exportData} aria-label="Earner lookup">
        <Field label="Earner email" id="gdpr-email">
          <input id="gdpr-email" type="email" required value={email} onInput={(e) => setEmail(inputValue(e))} />
        </Field>
        <button type="submit">Export data</button>
        <button type="button" class="danger" disabled={!email} onClick={() => setConfirm(true)}>
          Erase data
        </button>
      </form>
      {confirm && (
        <ConfirmDialog
          id="confirm-erase"
          title="Erase everything held for this earner?"
          confirmLabel="Erase permanently"
          onConfirm={erase}
          onCancel={() => setConfirm(false)}
        >
          <p class="wrap">The credentials of {email} are revoked and their details removed. This cannot be undone.</p>
        </ConfirmDialog>
      )}
      {exported && (
        <section class="panel" aria-labelledby="export-title">
          <h2 id="export-title">Export</h2>
          {!exported.found ? (
            <p>Nothing is held for that email.</p>
          ) : (
            <>
              <p>
                {exported.credentials.length === 1 ? '1 credential' : `${exported.credentials.length} credentials`} held
                for {exported.displayName ?? 'this earner (no name stored)'}
                {exported.notificationsSuppressed ? '; they asked for no more emails' : ''}.
              </p>
              <ul class="links">
                {exported.credentials.map((credential) => (
                  <li key={credential.id}>
                    <a href={`/console/credentials/${credential.id}`}>{credential.badge.name}</a>
                    {credential.recipientName ? ` for ${credential.recipientName}` : ''} ({credential.status}, issued{' '}
                    {formatDate(credential.issuedOn)})
                  </li>
                ))}
              </ul>
              <div class="actions">
                <button type="button" onClick={() => downloadDocument()}>
                  Download document (HTML, printable)
                </button>
                <button type="button" class="secondary" onClick={() => downloadJson(exported)}>
                  Download JSON
                </button>
              </div>
            </>
          )}
        </section>
      )}
    </>
  );
}
