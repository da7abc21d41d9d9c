import { useEffect, useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { api, problem } from '../api';
import { setSession } from '../session';
import { Alert, Field, formatDate, inputValue } from '../ui';

type Invite = NonNullable<Awaited<ReturnType<typeof fetchInvite>>['data']>;

const fetchInvite = (token: string) => api.GET('/api/v1/invites/{token}', { params: { path: { token } } });

const MIN_PASSWORD = 12;

export function InvitePage() {
  const { params } = useRoute();
  const { route } = useLocation();
  const token = params.token ?? '';
  const [invite, setInvite] = useState<Invite | null | undefined>(undefined);
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    fetchInvite(token).then((result) => setInvite(result.data ?? null));
  }, [token]);

  async function submit(event: Event) {
    event.preventDefault();
    setError(null);
    const result = await api.POST('/api/v1/invites/{token}/accept', {
      params: { path: { token } },
      body: { password },
    });
    if (result.data) {
      setSession(result.data);
      route('/console/dashboard');
    } else setError(problem(result.error));
  }

  return (
    <main id="main" class="narrow">
      <h1>Accept your invitation</h1>
      {invite === undefined && <p>Checking the invitation…</p>}
      {invite === null && (
        <Alert>This invitation link is unknown, already used or expired. Ask an owner for a new one.</Alert>
      )}
      {invite && (
        <>
          <p>
            You are invited to <strong>{invite.issuerName}</strong> as <strong>{invite.role}</strong> with the email{' '}
            <strong>{invite.email}</strong>. The link works until {formatDate(invite.expiresAt)} (UTC).
          </p>
          {error && <Alert>{error}</Alert>}
          <form onSubmit={submit}>
            <Field label="Password" id="password" hint={`At least ${MIN_PASSWORD} characters.`}>
              <input
                id="password"
                type="password"
                autoComplete="new-password"
                minLength={MIN_PASSWORD}
                maxLength={256}
                required
                aria-describedby="password-hint"
                value={password}
                onInput={(e) => setPassword(inputValue(e))}
              />
            </Field>
            <button type="submit">Set password</button>
          </form>
        </>
      )}
    </main>
  );
}
