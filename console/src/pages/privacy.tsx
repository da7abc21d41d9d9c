import { useState } from 'preact/hooks';
import type { components } from '../../../client/index';
import { api, problem } from '../api';
import { Alert, Field, formatDate, inputValue } from '../ui';

type RecipientExport = components['schemas']['RecipientExport'];

export function PrivacyPage() {
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
      <h1>Privacy</h1>
      <p>Answer an earner's request to see or erase what is held about them. The email is only used for the lookup.</p>
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
        <div class="panel" role="alertdialog" aria-labelledby="erase-title">
          <h2 id="erase-title">Erase everything held for this earner?</h2>
          <p>Their credentials are revoked and their details removed. This cannot be undone.</p>
          <div class="actions">
            <button type="button" class="danger" onClick={erase}>
              Erase permanently
            </button>
            <button type="button" class="secondary" onClick={() => setConfirm(false)}>
              Cancel
            </button>
          </div>
        </div>
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
