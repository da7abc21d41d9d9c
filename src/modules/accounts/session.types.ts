import type { Role } from '../../core/context.js';

/**
 * The session shapes accounts and SSO share: a file of its own so that neither service imports the
 * other's types back (accounts.service.ts builds the SSO service).
 */

/** What the console shows of the signed-in user. */
export interface SessionUser {
  id: string;
  email: string;
  role: Role;
  issuer: { id: string; slug: string; name: string };
}

/** A new session: the cookie's token (never stored, only its hash) and the CSRF token. */
export interface SignedIn {
  token: string;
  csrfToken: string;
  user: SessionUser;
}
