import { useState } from 'preact/hooks';
import type { components } from '../../../client/index';
import { api, problem } from '../api';
import { EarnerNoticeFields, useEarnerNotice } from '../notify-earner';
import { Alert, ConfirmDialog, Field, inputValue } from '../ui';

type Credential = components['schemas']['CredentialDetail'];

/**
 * "Correct the name" (issue 46 §3): a replacement carrying the new name and the original's dates;
 * this credential then shows "Replaced by a newer credential". The earner can be emailed the
 * corrected one when this service sends email, from the address typed here (none is stored; the
 * service checks it is the earner's).
 */
export function CorrectName({ credential, onCorrected }: { credential: Credential; onCorrected: () => void }) {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState(credential.recipientName ?? '');
  const notice = useEarnerNotice();
  const [error, setError] = useState<string | null>(null);
  const [corrected, setCorrected] = useState<string | null>(null);

  const trimmed = name.trim();
  const unchanged = trimmed === (credential.recipientName ?? '');
  const ready = trimmed !== '' && !unchanged && notice.ready;

  async function correct() {
    setOpen(false);
    setError(null);
    const { data, error: failure } = await api.POST('/api/v1/credentials/{id}/correct-name', {
      params: { path: { id: credential.id } },
      body: { recipientName: trimmed, ...notice.body() },
    });
    if (failure) setError(problem(failure));
    else {
      setCorrected(data.credentialId);
      notice.reset();
      onCorrected();
    }
  }

  if (corrected) {
    return (
      <Alert kind="success">
        Name corrected: a new credential carries it, and this one shows “Replaced by a newer credential”.{' '}
        <a href={`/console/credentials/${corrected}`}>Open the corrected credential</a>
      </Alert>
    );
  }
  if (credential.status === 'revoked' || credential.replacedBy) return null;
  return (
    <section class="panel" aria-labelledby="correct-name-title">
      <h2 id="correct-name-title">Correct the name</h2>
      {error && <Alert>{error}</Alert>}
      <p>
        A name spelled wrongly is fixed by a replacement with the same dates: the earner's links to this one then say it
        was replaced, and point to the new one.
      </p>
      <button type="button" onClick={() => setOpen(true)}>
        Correct the name
      </button>
      {open && (
        <ConfirmDialog
          id="confirm-correct-name"
          title="Correct the earner's name?"
          confirmLabel="Correct the name"
          destructive={false}
          confirmDisabled={!ready}
          onConfirm={correct}
          onCancel={() => setOpen(false)}
        >
          <p>Now: {credential.recipientName ?? 'no name'}.</p>
          <Field label="Correct name" id="correct-name" hint={unchanged ? 'Type the name as it should be.' : undefined}>
            <input
              id="correct-name"
              required
              maxLength={200}
              aria-describedby={unchanged ? 'correct-name-hint' : undefined}
              value={name}
              onInput={(e) => setName(inputValue(e))}
            />
          </Field>
          <EarnerNoticeFields id="correct-name" label="Email the earner the corrected credential" notice={notice} />
        </ConfirmDialog>
      )}
    </section>
  );
}
