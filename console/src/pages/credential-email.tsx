import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../../client/index';
import { api, problem } from '../api';
import { Alert, ConfirmDialog, Field, inputValue } from '../ui';

type Credential = components['schemas']['CredentialDetail'];

const SENT_TEXT = {
  queued: 'The email is on its way; the status above shows when it is sent.',
  suppressed: 'Nothing was sent: the earner unsubscribed from your emails.',
  off: 'Nothing was sent: email is not set up on this service.',
} as const;

/**
 * "Resend the email" (issue 46): the award message again, to the address typed here (none is
 * stored; the service checks it is the earner's). A few times a day per credential at most.
 */
export function ResendEmail({ credential, onSent }: { credential: Credential; onSent: () => void }) {
  const [open, setOpen] = useState(false);
  const [email, setEmail] = useState('');
  const [enabled, setEnabled] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [sent, setSent] = useState<keyof typeof SENT_TEXT | null>(null);
  useEffect(() => {
    api.GET('/api/v1/notifications/settings').then(({ data }) => setEnabled(data?.enabled ?? false));
  }, []);

  async function resend() {
    setOpen(false);
    setError(null);
    setSent(null);
    const { data, error: failure } = await api.POST('/api/v1/credentials/{id}/notification', {
      params: { path: { id: credential.id } },
      body: { recipientEmail: email.trim() },
    });
    if (failure) setError(problem(failure));
    else {
      setSent(data.notification);
      setEmail('');
      onSent();
    }
  }

  if (!enabled || credential.status === 'revoked') return null;
  return (
    <section class="panel" aria-labelledby="resend-title">
      <h2 id="resend-title">Resend the email</h2>
      {error && <Alert>{error}</Alert>}
      {sent && <Alert kind={sent === 'queued' ? 'success' : 'info'}>{SENT_TEXT[sent]}</Alert>}
      <p>Emails the earner their badge again, with its links, when the first message went astray.</p>
      <button type="button" class="secondary" onClick={() => setOpen(true)}>
        Resend the email
      </button>
      {open && (
        <ConfirmDialog
          id="confirm-resend-email"
          title="Resend the email to the earner?"
          confirmLabel="Resend the email"
          destructive={false}
          confirmDisabled={email.trim() === ''}
          onConfirm={resend}
          onCancel={() => setOpen(false)}
        >
          <Field
            label="Earner's email"
            id="resend-email"
            hint="Used for this message only, never stored; it must be the address the credential was issued to."
          >
            <input
              id="resend-email"
              type="email"
              required
              aria-describedby="resend-email-hint"
              value={email}
              onInput={(e) => setEmail(inputValue(e))}
            />
          </Field>
        </ConfirmDialog>
      )}
    </section>
  );
}
