import { createHmac } from 'node:crypto';
import { isoNow } from '../../core/clock.js';
import type { AuthContext, Core, Role } from '../../core/context.js';
import { AppError, errors } from '../../core/errors.js';
import { sha256Hex } from '../../core/hashing.js';
import type { AuditService } from '../audit/audit.service.js';
import type { IssuerService } from '../issuers/issuers.service.js';
import type { Mailer } from '../notifications/notifications.mailer.js';
import { createAccountRepository, type UserRow } from './accounts.repository.js';
import { inviteMail } from './invite.mail.js';
import { hashPassword, PASSWORD_MAX, PASSWORD_MIN, verifyPassword } from './passwords.js';
import type { SessionUser, SignedIn } from './session.types.js';
import { createSsoRepository } from './sso.repository.js';
import { createSsoService } from './sso.service.js';
import { staffEmail } from './staff-email.js';

export const ROLES = ['owner', 'issuer', 'viewer'] as const;
const INVITE_HOURS = 72;
const TOKEN_LENGTH = 43;
/**
 * Accounts one email may sign in to (one per issuer that invited it), the most recently used first;
 * their passwords are checked in parallel, so this also bounds one sign-in's KDF work.
 */
export const ACCOUNTS_PER_EMAIL_MAX = 5;
/** A session's last-seen time is written at most this often (the idle timeout's precision). */
const TOUCH_EVERY_MS = 60_000;

/** How a session was opened: turning password sign-in off ends the `password` ones. */
export type SessionMethod = 'password' | 'sso';

/**
 * The session's CSRF token: an HMAC of the session token, so it is never stored (the session keeps
 * its hash) and a page can ask for it again with its cookie. Unguessable without the session token,
 * which the cookie alone holds (OWASP CSRF Prevention Cheat Sheet, "Signed Double-Submit Cookie").
 */
function csrfTokenOf(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('accolade console CSRF token').digest('base64url');
}

/** A user who can get in: a password set, or signed in once through the issuer's provider. */
function isActive(row: UserRow): boolean {
  return row.password_hash !== null || row.last_sign_in_at !== null;
}

function teamMember(row: UserRow) {
  return {
    id: row.id,
    email: row.email,
    role: row.role as Role,
    status: isActive(row) ? ('active' as const) : ('invited' as const),
    createdAt: row.created_at,
    lastSignInAt: row.last_sign_in_at,
  };
}

export type TeamMember = ReturnType<typeof teamMember>;

/** The only owner who can sign in: demoting or removing them would leave the issuer unmanaged. */
function isLastOwner(row: UserRow, activeOwners: number): boolean {
  return row.role === 'owner' && isActive(row) && activeOwners <= 1;
}

/**
 * A sign-in record: the user is both actor and target; nothing else (no email, no address), but
 * how, when it was through the issuer's provider.
 */
function signInRecord(row: UserRow, action: string, details?: Record<string, unknown>) {
  return {
    issuerId: row.issuer_id,
    actor: `user:${row.id}`,
    action,
    targetType: 'console_user',
    targetId: row.id,
    ...(details ? { details } : {}),
  };
}

/** Password sign-in refused because the issuer signs in through its own provider only. */
export const USE_PROVIDER = 'use_provider';

function checkPassword(password: string): void {
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) {
    throw errors.validation(`The password must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters long.`, [
      {
        path: '/password',
        message: `body/password must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`,
        code: 'length',
      },
    ]);
  }
}

/**
 * Console accounts: an issuer's staff (users with a role), their one-time invites and their
 * server-side sessions. Staff emails live in the users table only; audit records name user ids.
 */
export function createAccountService(
  core: Pick<Core, 'db' | 'dialect' | 'clock' | 'ids' | 'config' | 'log'>,
  deps: {
    audit: Pick<AuditService, 'append'>;
    issuers: Pick<IssuerService, 'getIssuer' | 'getIssuerBySlug'>;
    /** Sends team invitations when SMTP_URL is set (issue 46); null: the link is only handed back. */
    mailer?: Mailer | null;
  },
) {
  const repo = createAccountRepository(core.db, core.dialect);
  const { idleMinutes, maxHours } = core.config.consoleSession;

  async function sessionUser(row: UserRow): Promise<SessionUser> {
    const issuer = await deps.issuers.getIssuer(row.issuer_id);
    return {
      id: row.id,
      email: row.email,
      role: row.role as Role,
      issuer: { id: issuer.id, slug: issuer.slug, name: issuer.name },
    };
  }

  /**
   * Opens a session for `row`; `audited` says whether this is a sign-in of its own to record, and
   * `details` how it was made (through the provider).
   */
  async function startSession(
    row: UserRow,
    method: SessionMethod,
    audited: boolean,
    details?: Record<string, unknown>,
  ): Promise<SignedIn> {
    const token = core.ids.token(TOKEN_LENGTH);
    const csrfToken = csrfTokenOf(token);
    const now = core.clock.now();
    await core.db.transaction().execute(async (trx) => {
      const accounts = createAccountRepository(trx, core.dialect);
      await accounts.insertSession({
        token_hash: sha256Hex(token),
        user_id: row.id,
        csrf_token: sha256Hex(csrfToken),
        method,
        created_at: now.toISOString(),
        last_seen_at: now.toISOString(),
        expires_at: new Date(now.getTime() + maxHours * 3_600_000).toISOString(),
      });
      await accounts.recordSignIn(row.id, now.toISOString());
      if (audited) await deps.audit.append(trx, signInRecord(row, 'console_user.signed_in', details));
    });
    return { token, csrfToken, user: await sessionUser(row) };
  }

  async function requireMember(issuerId: string, userId: string): Promise<UserRow> {
    const row = await repo.getUser(issuerId, userId);
    if (!row) throw errors.notFound('User');
    return row;
  }

  /** Emails the invite link when this service sends email; whether the mail server took it. */
  async function emailInvite(row: UserRow, url: string, expiresAt: string): Promise<boolean> {
    if (!deps.mailer || !core.config.mail) return false;
    const issuer = await deps.issuers.getIssuer(row.issuer_id);
    const result = await deps.mailer.send(
      inviteMail(core.config, {
        to: row.email,
        issuerName: issuer.name,
        role: row.role,
        url,
        expiresAt,
      }),
    );
    // The reply code only: a server's reply text may quote the address.
    if (!result.ok) core.log.warn({ detail: result.detail, userId: row.id }, 'invitation email not sent');
    return result.ok;
  }

  async function invite(issuerId: string, email: string, role: Role, actor: string) {
    const address = staffEmail(email);
    if (address === null) throw errors.validation('The email address is invalid.');
    if (await repo.findUserByEmail(issuerId, address)) {
      throw new AppError('email_taken', 'A console user with this email already exists.');
    }
    const now = core.clock.now();
    const token = core.ids.token(TOKEN_LENGTH);
    const expiresAt = new Date(now.getTime() + INVITE_HOURS * 3_600_000).toISOString();
    const row: UserRow = {
      id: core.ids.uuid(),
      issuer_id: issuerId,
      email: address,
      role,
      password_hash: null,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
      last_sign_in_at: null,
    };
    await core.db.transaction().execute(async (trx) => {
      const accounts = createAccountRepository(trx, core.dialect);
      await accounts.insertUser(row);
      await accounts.insertInvite({
        token_hash: sha256Hex(token),
        user_id: row.id,
        created_at: now.toISOString(),
        expires_at: expiresAt,
        used_at: null,
      });
      await deps.audit.append(trx, {
        issuerId,
        actor,
        action: 'console_user.invited',
        targetType: 'console_user',
        targetId: row.id,
        details: { role },
      });
    });
    const inviteUrl = `${core.config.publicBaseUrl}/console/invite/${token}`;
    return {
      user: teamMember(row),
      inviteUrl,
      inviteExpiresAt: expiresAt,
      emailed: await emailInvite(row, inviteUrl, expiresAt),
    };
  }

  /**
   * Sign-in through the issuer's provider with an email it verified: the issuer's account of that
   * email keeps its role (invited or active); otherwise an address of the owner's allowed domain
   * joins as a viewer (audited `console_user.joined`); anyone else, and any address an invite would
   * refuse (staff-email.ts), is refused (null).
   */
  async function signInWithSso(issuerId: string, email: string, allowedDomain: string | null) {
    const address = staffEmail(email);
    if (address === null) return null;
    let row = await repo.findUserByEmail(issuerId, address);
    if (!row) {
      if (allowedDomain === null || address.slice(address.lastIndexOf('@') + 1) !== allowedDomain) return null;
      const now = isoNow(core.clock);
      const joined: UserRow = {
        id: core.ids.uuid(),
        issuer_id: issuerId,
        email: address,
        role: 'viewer',
        password_hash: null,
        created_at: now,
        updated_at: now,
        last_sign_in_at: null,
      };
      try {
        await core.db.transaction().execute(async (trx) => {
          await createAccountRepository(trx, core.dialect).insertUser(joined);
          await deps.audit.append(trx, {
            issuerId,
            actor: `user:${joined.id}`,
            action: 'console_user.joined',
            targetType: 'console_user',
            targetId: joined.id,
            details: { role: 'viewer', via: 'sso_domain' },
          });
        });
        row = joined;
      } catch (err) {
        // A first sign-in of the same address in another tab or replica won the insert: use its row.
        row = await repo.findUserByEmail(issuerId, address);
        if (!row) throw err;
      }
    }
    return startSession(row, 'sso', true, { method: 'sso' });
  }

  const sso = createSsoService(core, { audit: deps.audit, issuers: deps.issuers, signIn: signInWithSso });

  return {
    /** Sign-in through the issuers' own OpenID Connect providers, and their settings. */
    sso,

    /** Invites a staff member by email: the user (status invited) and the one-time link. */
    invite,

    /** The operator's invite (CLI): the issuer named by its slug. */
    async inviteToIssuer(slug: string, email: string, role: Role, actor: string) {
      const issuer = await deps.issuers.getIssuerBySlug(slug);
      return invite(issuer.id, email, role, actor);
    },

    /** An open invite's details; unknown, used and expired invites are all the same 404. */
    async describeInvite(token: string) {
      const now = isoNow(core.clock);
      const found = await repo.findOpenInvite(sha256Hex(token), now);
      if (!found) throw errors.notFound('Invite');
      const user = await repo.getUserById(found.userId);
      if (!user) throw errors.notFound('Invite');
      return { email: user.email, role: user.role as Role, issuerName: found.issuerName, expiresAt: found.expiresAt };
    },

    /** Sets the invited user's password (once: the invite is used up) and signs them in. */
    async acceptInvite(token: string, password: string): Promise<SignedIn> {
      checkPassword(password);
      const tokenHash = sha256Hex(token);
      const found = await repo.findOpenInvite(tokenHash, isoNow(core.clock));
      if (!found) throw errors.notFound('Invite');
      const invited = await repo.getUserById(found.userId);
      if (invited && (await createSsoRepository(core.db).passwordSignInOff([invited.issuer_id])).size > 0) {
        throw errors.forbidden(
          "This organisation signs in with its own login: use the console's sign-in page instead of a password.",
        );
      }
      const passwordHash = await hashPassword(password);
      const user = await core.db.transaction().execute(async (trx) => {
        const accounts = createAccountRepository(trx, core.dialect);
        const now = isoNow(core.clock);
        if (!(await accounts.useInvite(tokenHash, now))) throw errors.notFound('Invite');
        await accounts.setPassword(found.userId, passwordHash, now);
        const row = await accounts.getUserById(found.userId);
        if (!row) throw errors.notFound('Invite');
        await deps.audit.append(trx, {
          issuerId: row.issuer_id,
          actor: `user:${row.id}`,
          action: 'console_user.activated',
          targetType: 'console_user',
          targetId: row.id,
        });
        return row;
      });
      return startSession(user, 'password', false);
    },

    /**
     * Checks the password against each account of the email (the KDF runs once even when there is
     * none) and signs in to the first that matches and whose issuer allows passwords; null when
     * refused, USE_PROVIDER when the password matched only accounts of issuers that turned password
     * sign-in off (said only to someone who knows the password, so it tells nobody else anything).
     * Every outcome is audited in the issuer of each account tried, with the user as actor; an
     * unknown email has no issuer to record it in, so only a log line without the email says it
     * happened.
     */
    async signIn(email: string, password: string): Promise<SignedIn | typeof USE_PROVIDER | null> {
      const address = staffEmail(email);
      const rows = address === null ? [] : await repo.listActiveUsersByEmail(address, ACCOUNTS_PER_EMAIL_MAX);
      const given = password.slice(0, PASSWORD_MAX);
      const matches = await Promise.all(
        rows.length === 0 ? [verifyPassword(given, null)] : rows.map((row) => verifyPassword(given, row.password_hash)),
      );
      const matched = rows.filter((_, i) => matches[i]);
      const off = await createSsoRepository(core.db).passwordSignInOff(matched.map((r) => r.issuer_id));
      const row = matched.find((r) => !off.has(r.issuer_id));
      if (row) return startSession(row, 'password', true);
      if (matched.length > 0) {
        await core.db.transaction().execute(async (trx) => {
          for (const tried of matched) {
            await deps.audit.append(
              trx,
              signInRecord(tried, 'console_user.sign_in_refused', { reason: 'use_provider' }),
            );
          }
        });
        return USE_PROVIDER;
      }
      if (rows.length === 0) core.log.info({ action: 'console_user.sign_in_failed' }, 'console sign-in for no account');
      await core.db.transaction().execute(async (trx) => {
        for (const tried of rows) await deps.audit.append(trx, signInRecord(tried, 'console_user.sign_in_failed'));
      });
      return null;
    },

    /**
     * The request context of a session token, or null when it is unknown, idle past the idle timeout
     * or past its absolute end (an ended session's row is deleted).
     */
    async authenticate(token: string): Promise<AuthContext | null> {
      if (token.length !== TOKEN_LENGTH) return null;
      const tokenHash = sha256Hex(token);
      const found = await repo.findSession(tokenHash);
      if (!found) return null;
      const now = core.clock.now();
      const idleEnd = Date.parse(found.lastSeenAt) + idleMinutes * 60_000;
      if (now.getTime() >= idleEnd || now.toISOString() >= found.expiresAt) {
        await repo.deleteSession(tokenHash);
        return null;
      }
      if (now.getTime() - Date.parse(found.lastSeenAt) >= TOUCH_EVERY_MS) {
        await repo.touchSession(tokenHash, now.toISOString());
      }
      return {
        issuerId: found.issuerId,
        issuerSlug: found.issuerSlug,
        apiKeyId: null,
        session: {
          userId: found.userId,
          role: found.role as Role,
          csrfToken: csrfTokenOf(token),
          csrfHash: found.csrfHash,
          tokenHash,
        },
        planCode: found.planCode,
        requestsPerMinute: found.requestsPerMinute,
      };
    },

    /** The signed-in user as the console shows it. */
    async currentUser(issuerId: string, userId: string): Promise<SessionUser> {
      return sessionUser(await requireMember(issuerId, userId));
    },

    async signOut(issuerId: string, userId: string, tokenHash: string): Promise<void> {
      await core.db.transaction().execute(async (trx) => {
        await createAccountRepository(trx, core.dialect).deleteSession(tokenHash);
        await deps.audit.append(trx, {
          issuerId,
          actor: `user:${userId}`,
          action: 'console_user.signed_out',
          targetType: 'console_user',
          targetId: userId,
        });
      });
    },

    async listUsers(issuerId: string): Promise<TeamMember[]> {
      return (await repo.listUsers(issuerId)).map(teamMember);
    },

    /** Changes a user's role and ends their sessions; the last owner cannot be demoted. */
    async changeRole(issuerId: string, userId: string, role: Role, actor: string): Promise<TeamMember> {
      return core.db.transaction().execute(async (trx) => {
        const accounts = createAccountRepository(trx, core.dialect);
        await accounts.lockOwners(issuerId);
        const row = await accounts.getUser(issuerId, userId);
        if (!row) throw errors.notFound('User');
        if (row.role === role) return teamMember(row);
        if (isLastOwner(row, await accounts.countActiveOwners(issuerId))) {
          throw new AppError('last_owner', 'The issuer must keep at least one owner.');
        }
        const now = isoNow(core.clock);
        await accounts.setRole(issuerId, userId, role, now);
        await accounts.deleteSessionsOf(userId);
        await deps.audit.append(trx, {
          issuerId,
          actor,
          action: 'console_user.role_changed',
          targetType: 'console_user',
          targetId: userId,
          details: { from: row.role, to: role },
        });
        return teamMember({ ...row, role, updated_at: now });
      });
    },

    /** Removes a user with their invites and sessions; the last owner cannot be removed. */
    async removeUser(issuerId: string, userId: string, actor: string): Promise<void> {
      await core.db.transaction().execute(async (trx) => {
        const accounts = createAccountRepository(trx, core.dialect);
        await accounts.lockOwners(issuerId);
        const row = await accounts.getUser(issuerId, userId);
        if (!row) throw errors.notFound('User');
        if (isLastOwner(row, await accounts.countActiveOwners(issuerId))) {
          throw new AppError('last_owner', 'The issuer must keep at least one owner.');
        }
        await accounts.deleteUser(issuerId, userId);
        await deps.audit.append(trx, {
          issuerId,
          actor,
          action: 'console_user.removed',
          targetType: 'console_user',
          targetId: userId,
          details: { role: row.role },
        });
      });
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
