import { createAccoladeClient } from '../../client/index';
import { getSession, type Session, setSession } from './session';

/** Set when a call answered 401: the session ended (idle, expired, signed out elsewhere). */
let expiredHandler: () => void = () => {};

export function onSessionExpired(handler: () => void): void {
  expiredHandler = handler;
}

const SESSION_PATH = '/api/v1/session';

/** The console's client: the same typed client partners use, with the session cookie and CSRF token. */
export const api = createAccoladeClient({
  baseUrl: location.origin,
  credentials: 'same-origin',
  csrfToken: () => getSession()?.csrfToken,
});

api.use({
  onResponse({ request, response }) {
    if (response.status === 401 && new URL(request.url).pathname !== SESSION_PATH && getSession()) {
      setSession(null);
      expiredHandler();
    }
    return response;
  },
});

const PROFILE_PATH = '/api/v1/issuer/me';

/** A saved profile renames the issuer in the session too, so the header shows the new name at once. */
api.use({
  async onResponse({ request, response }) {
    const session = getSession();
    if (session && request.method === 'PATCH' && response.ok && new URL(request.url).pathname === PROFILE_PATH) {
      const { name, slug } = (await response.clone().json()) as { name: string; slug: string };
      setSession({ ...session, user: { ...session.user, issuer: { ...session.user.issuer, name, slug } } });
    }
    return response;
  },
});

/** The message of an Error body (`{error, message, issues?}`), for an alert. */
export function problem(error: unknown, fallback = 'Something went wrong. Try again.'): string {
  if (error && typeof error === 'object') {
    const body = error as { message?: unknown; issues?: { message?: string; path?: string }[] };
    // Each issue once: the field (`/completionKey` → `completionKey`), then the message without
    // the request part and path the validator puts in front of it (`body/completionKey must …`).
    const issues = (body.issues ?? [])
      .map((issue) =>
        [
          issue.path?.replace(/^\//, '').replaceAll('/', '.'),
          issue.message?.replace(/^(body|querystring|params|headers)(\/\S*)?\s+/, ''),
        ]
          .filter(Boolean)
          .join(': '),
      )
      .filter(Boolean);
    if (typeof body.message === 'string') return [body.message, ...issues].join(' ');
  }
  return fallback;
}

export async function loadSession(): Promise<Session | null> {
  const { data } = await api.GET('/api/v1/session');
  setSession(data ?? null);
  return data ?? null;
}

export async function signIn(email: string, password: string) {
  const result = await api.POST('/api/v1/session', { body: { email, password } });
  if (result.data) setSession(result.data);
  return result;
}

export async function signOut(): Promise<void> {
  await api.DELETE('/api/v1/session');
  setSession(null);
}

/** POST /api/v1/images: an SVG or PNG as the raw body; the answer's url can be a definition's imageUrl, its id a certificate's image. */
export async function uploadImage(body: Blob, contentType: 'image/png' | 'image/svg+xml') {
  const token = getSession()?.csrfToken;
  const response = await fetch('/api/v1/images', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': contentType, ...(token ? { 'x-csrf-token': token } : {}) },
    body,
  });
  const parsed = (await response.json().catch(() => undefined)) as { url?: string; id?: string } | undefined;
  return response.ok && parsed?.url ? { url: parsed.url, id: parsed.id } : { error: parsed };
}
