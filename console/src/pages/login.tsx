import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { problem, signIn } from '../api';
import { Alert, Field, inputValue } from '../ui';

export function LoginPage() {
  const { query, route } = useLocation();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const result = await signIn(email, password);
    setBusy(false);
    if (result.data) route('/console/dashboard');
    else setError(problem(result.error));
  }

  return (
    <main id="main" class="narrow">
      <h1>Sign in to Accolade</h1>
      {query.expired && !error && <Alert kind="info">Your session has ended. Sign in again to continue.</Alert>}
      {error && <Alert>{error}</Alert>}
      <form onSubmit={submit}>
        <Field label="Email" id="email">
          <input
            id="email"
            type="email"
            autoComplete="username"
            required
            value={email}
            onInput={(e) => setEmail(inputValue(e))}
          />
        </Field>
        <Field label="Password" id="password">
          <input
            id="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(inputValue(e))}
          />
        </Field>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
