import { useState } from 'preact/hooks';
import type { components } from '../../../client/index';
import { api, problem } from '../api';
import { can, useSession } from '../session';
import { Alert, ConfirmDialog, Field, formatDate, inputValue, ReadOnlyNotice } from '../ui';

type RecipientExport = components['schemas']['RecipientExport'];

export function PrivacyPage() {
  const session = useSession();
  return (
    <>
      <h1>Privacy</h1>
      <p>Answer an earner's request to see or erase what is held about them. The email is only used for the lookup.</p>
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
            <ul class="links">
              {exported.credentials.map((credential) => (
                <li key={credential.id}>
                  <a href={`/console/credentials/${credential.id}`}>{credential.completionKey}</a> ({credential.status},
                  issued {formatDate(credential.issuedOn)})
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
    </>
  );
}
