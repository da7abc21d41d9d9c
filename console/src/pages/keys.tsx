import { useState } from 'preact/hooks';
import type { components } from '../../../client/index';
import { api, problem } from '../api';
import { useApiRead } from '../hooks';
import { can, useSession } from '../session';
import { Alert, ConfirmDialog, Field, formatDate, inputValue, ReadOnlyNotice } from '../ui';

type ApiKey = components['schemas']['ApiKey'];

interface NewKey {
  id: string;
  key: string;
  prefix: string;
  createdAt: string;
  previousKeyExpiresAt?: string;
}

const DAY = 86_400;

/** How a key is named in a dialog: its label and its prefix. */
const keyName = (key: ApiKey) => (key.name ? `"${key.name}" (${key.prefix}…)` : `${key.prefix}…`);

export function KeysPage() {
  const session = useSession();
  return (
    <>
      <h1>API keys</h1>
      {can(session?.user, 'own') ? <KeyManager /> : <ReadOnlyNotice what="API keys" />}
    </>
  );
}

function KeyManager() {
  const { data: page, error, setError, reload: load } = useApiRead(() => api.GET('/api/v1/keys'), []);
  const keys = page?.items ?? null;
  const [name, setName] = useState('');
  const [graceDays, setGraceDays] = useState('1');
  const [shown, setShown] = useState<NewKey | null>(null);
  const [pending, setPending] = useState<{ action: 'rotate' | 'revoke'; key: ApiKey } | null>(null);
  const graceSeconds = Math.round(Math.min(30, Math.max(0, Number(graceDays) || 0)) * DAY);

  function confirm() {
    if (!pending) return;
    const path = { params: { path: { id: pending.key.id } } };
    setPending(null);
    if (pending.action === 'rotate') act(api.POST('/api/v1/keys/{id}/rotate', { ...path, body: { graceSeconds } }));
    else act(api.POST('/api/v1/keys/{id}/revoke', path));
  }

  /** Creating and rotating answer the new key (shown once); revoking answers the key's row. */
  async function act(result: Promise<{ data?: NewKey | ApiKey; error?: unknown }>) {
    setError(null);
    const { data, error: failure } = await result;
    if (failure) setError(problem(failure));
    else if (data && 'key' in data) setShown(data);
    load();
  }

  return (
    <>
      {error && <Alert>{error}</Alert>}
      {shown && (
        <div class="panel secret" role="status">
          <h2>Copy the new key now</h2>
          <p>It is shown once. Store it where your integration reads its secrets.</p>
          <code class="key">{shown.key}</code>
          {shown.previousKeyExpiresAt && <p>The previous key works until {formatDate(shown.previousKeyExpiresAt)}.</p>}
          <button type="button" class="secondary" onClick={() => setShown(null)}>
            Done
          </button>
        </div>
      )}
      <form
        class="panel inline"
        onSubmit={(event) => {
          event.preventDefault();
          act(api.POST('/api/v1/keys', { body: name ? { name } : {} }));
          setName('');
        }}
      >
        <Field label="Key name" id="key-name">
          <input id="key-name" maxLength={100} value={name} onInput={(e) => setName(inputValue(e))} />
        </Field>
        <button type="submit">Create key</button>
      </form>
      <Field label="Grace period for rotation (days)" id="grace-days">
        <input
          id="grace-days"
          type="number"
          min={0}
          max={30}
          value={graceDays}
          onInput={(e) => setGraceDays(inputValue(e))}
        />
      </Field>
      {pending?.action === 'rotate' && (
        <ConfirmDialog
          id="confirm-rotate"
          title={`Rotate key ${keyName(pending.key)}?`}
          confirmLabel="Rotate key"
          onConfirm={confirm}
          onCancel={() => setPending(null)}
        >
          <p>
            A new key is made now{pending.key.name ? ` with the label "${pending.key.name}"` : ''}.{' '}
            {graceSeconds === 0
              ? 'This key stops working at once.'
              : `This key keeps working for ${graceDays} day(s), then stops.`}{' '}
            Other keys are not changed.
          </p>
        </ConfirmDialog>
      )}
      {pending?.action === 'revoke' && (
        <ConfirmDialog
          id="confirm-revoke"
          title={`Revoke key ${keyName(pending.key)}?`}
          confirmLabel="Revoke key"
          onConfirm={confirm}
          onCancel={() => setPending(null)}
        >
          <p>It stops working at once: every integration that uses it is refused. This cannot be undone.</p>
        </ConfirmDialog>
      )}
      {keys && (
        <div class="table-wrap">
          <table class="cards">
            <caption>{keys.length === 1 ? '1 key' : `${keys.length} keys`}</caption>
            <thead>
              <tr>
                <th scope="col">Prefix</th>
                <th scope="col">Name</th>
                <th scope="col">Created</th>
                <th scope="col">Stops</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key.id}>
                  <th scope="row">
                    <code>{key.prefix}</code>
                  </th>
                  <td data-label="Name">
                    {key.name ?? '—'}
                    {key.rotatedFrom && <small class="hint"> rotated {formatDate(key.createdAt)}</small>}
                  </td>
                  <td data-label="Created">{formatDate(key.createdAt)}</td>
                  <td data-label="Stops">
                    {key.revokedAt ? `revoked ${formatDate(key.revokedAt)}` : formatDate(key.expiresAt)}
                  </td>
                  <td class="actions" data-label="Actions">
                    {!key.revokedAt && (
                      <>
                        <button type="button" class="secondary" onClick={() => setPending({ action: 'rotate', key })}>
                          Rotate<span class="visually-hidden"> {key.prefix}</span>
                        </button>
                        <button type="button" class="danger" onClick={() => setPending({ action: 'revoke', key })}>
                          Revoke<span class="visually-hidden"> {key.prefix}</span>
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
