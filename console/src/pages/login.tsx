import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, problem, signIn } from '../api';
import { Alert, Field, inputValue } from '../ui';

/** GET /api/v1/sso/issuers/{slug}: the issuer's provider on its login page. */
interface LoginOptions {
  providerName: string;
  passwordSignIn: boolean;
  startUrl: string;
}

/** What the callback's `sso` parameter means, in words for the person who tried. */
const REFUSALS: Record<string, string> = {
  not_allowed:
    "Your organisation's login worked, but that address has no access to this console. Ask an owner of the console to invite you.",
  unverified: "Your organisation's login did not confirm your email address, so it cannot be used to sign in here.",
  failed: "Signing in with your organisation's login did not complete. Try again.",
  expired: 'The sign-in took too long, or was started in another browser or tab. Try again.',
  unavailable: "Signing in with your organisation's login is not available right now. Try again later.",
};

/** This browser's last organisation (its slug), remembered at sign-in so the plain login page offers its login. */
export const LAST_ISSUER = 'accolade.issuer';

export function rememberIssuer(slug: string): void {
  try {
    localStorage.setItem(LAST_ISSUER, slug);
  } catch {
    // Storage off (a private window): the plain login page then offers the organisation form only.
  }
}

function rememberedIssuer(): string {
  try {
    return localStorage.getItem(LAST_ISSUER) ?? '';
  } catch {
    return '';
  }
}

/**
 * The sign-in page. `?issuer=<slug>` (the link an owner shares from Sign-in settings) adds the
 * issuer's own login, "Sign in with <provider>", and hides the password form when the issuer has
 * turned passwords off. The plain page offers the login of the organisation this browser last
 * signed in to, and a field to name another: it says nothing about which organisation uses which
 * login to anyone who does not name it.
 */
export function LoginPage() {
  const { query, route } = useLocation();
  const [remembered, setRemembered] = useState(rememberedIssuer);
  const slug = query.issuer ?? remembered;
  const [organisation, setOrganisation] = useState('');
  const [options, setOptions] = useState<LoginOptions | null>(null);
  /** The slug looked up and found to have no login (an unknown organisation answers the same). */
  const [missing, setMissing] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const refusal = query.sso ? (REFUSALS[query.sso] ?? REFUSALS.failed) : null;

  useEffect(() => {
    setOptions(null);
    setMissing('');
    if (!slug) return;
    api.GET('/api/v1/sso/issuers/{slug}', { params: { path: { slug } } }).then(({ data }) => {
      setOptions(data ?? null);
      if (!data) setMissing(slug);
    });
  }, [slug]);

  /** The organisation form: its web address (slug), or the whole address it was copied from. */
  function chooseOrganisation(event: Event) {
    event.preventDefault();
    const typed = organisation.trim().toLowerCase();
    const chosen = /\/issuers\/([a-z0-9-]+)/.exec(typed)?.[1] ?? /[?&]issuer=([a-z0-9-]+)/.exec(typed)?.[1] ?? typed;
    route(`/console/login?issuer=${encodeURIComponent(chosen)}`);
  }

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const result = await signIn(email, password);
    setBusy(false);
    if (result.data) {
      rememberIssuer(result.data.user.issuer.slug);
      route('/console/dashboard');
    } else setError(problem(result.error));
  }

  const passwords = !options || options.passwordSignIn;
  return (
    <main id="main" class="narrow">
      <h1>Sign in to Accolade</h1>
      {query.expired && !error && <Alert kind="info">Your session has ended. Sign in again to continue.</Alert>}
      {refusal && !error && <Alert>{refusal}</Alert>}
      {error && <Alert>{error}</Alert>}
      {options && (
        <section aria-labelledby="sso-title">
          <h2 id="sso-title">Your organisation's login</h2>
          {/* A full navigation (the provider is another site), not a route inside the console. */}
          <button type="button" onClick={() => location.assign(options.startUrl)}>
            Sign in with {options.providerName}
          </button>
          {!passwords && <p>This organisation signs in with its own login only.</p>}
          {!query.issuer && remembered && (
            <p>
              <button
                type="button"
                class="secondary"
                onClick={() => {
                  localStorage.removeItem(LAST_ISSUER);
                  setRemembered('');
                }}
              >
                Not your organisation? Forget it on this browser
              </button>
            </p>
          )}
        </section>
      )}
      {!options && (
        <details class="panel" open={Boolean(missing)}>
          <summary>Sign in with your organisation's login</summary>
          <form onSubmit={chooseOrganisation} aria-label="Find your organisation's login">
            <Field
              label="Your organisation's web address"
              id="organisation"
              hint="The part of your badges' address after /issuers/, for example riverside-college."
            >
              <input
                id="organisation"
                required
                maxLength={300}
                aria-describedby="organisation-hint"
                value={organisation}
                onInput={(e) => setOrganisation(inputValue(e))}
              />
            </Field>
            {missing && query.issuer === missing && (
              <p role="status">No organisation login is set up for “{missing}”. Sign in with your password below.</p>
            )}
            <button type="submit" class="secondary">
              Find its login
            </button>
          </form>
        </details>
      )}
      {passwords && (
        <form onSubmit={submit} aria-label={options ? 'Sign in with a password' : undefined}>
          {options && <h2>Or with a password</h2>}
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
      )}
    </main>
  );
}
