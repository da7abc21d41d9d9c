import { createHmac } from 'node:crypto';
import { isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import { errors } from '../../core/errors.js';
import { hashRecipientEmail, normaliseEmail, sha256Hex } from '../../core/hashing.js';
import { publicUrls } from '../../core/urls.js';
import type { Executor } from '../../db/database.js';
import type { AuditService } from '../audit/audit.service.js';
import { chooseText, type TranslationRow } from '../definitions/definition-translations.js';
import type { Mailer } from '../notifications/notifications.mailer.js';
import type { NotificationLanguage } from '../notifications/notifications.messages.js';
import type { WalletService } from '../wallet/wallet.service.js';
import { createImportsRepository } from './backpack.imports.repository.js';
import { signInMail } from './backpack.mail.js';
import { type BadgeRow, createBackpackRepository, LOOKUP_CHUNK } from './backpack.repository.js';
import type { BackpackSecrets } from './backpack.secrets.js';

/** The audit log's chain for earner accounts: no issuer owns an account, so it has a chain of its own. */
export const EARNER_AUDIT_CHAIN = 'earners';
/** A sign-in link works once, for this long. */
export const LINK_MINUTES = 15;
/** Links one address may be sent in LINK_MINUTES; more requests answer the same and send nothing. */
export const LINKS_PER_WINDOW = 5;
export const SESSION_HOURS = 8;
const TOKEN_LENGTH = 43;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export type BadgeStatus = 'valid' | 'expired' | 'revoked';

export interface EarnerSession {
  accountId: string;
  csrfToken: string;
  tokenHash: string;
}

/** A badge as the backpack shows it, with every place the earner can take it. */
export interface BackpackBadge {
  credentialId: string;
  issuerId: string;
  issuerName: string;
  /** The badge's name and description in the page's language when translated, else the definition's own. */
  name: string;
  description: string;
  /** The language of `name` and `description` (BCP 47). */
  textLanguage: string;
  imageUrl: string | null;
  issuedOn: string;
  expiresOn: string | null;
  status: BadgeStatus;
  verifyUrl: string;
  assertionUrl: string;
  credentialUrl: string;
  bakedSvgUrl: string;
  linkedInUrl: string;
}

export function badgeStatus(row: Pick<BadgeRow, 'revoked_at' | 'expires_on'>, now: string): BadgeStatus {
  if (row.revoked_at !== null) return 'revoked';
  if (row.expires_on !== null && row.expires_on <= now) return 'expired';
  return 'valid';
}

/** The address as the sign-in form takes it, or a 400 that names the field (never echoing it). */
function checkedAddress(email: string): string {
  const address = normaliseEmail(email);
  if (address.length > 254 || !EMAIL_PATTERN.test(address)) {
    throw errors.validation('Enter an email address, such as name@example.com.', [
      { path: '/email', message: 'not an email address', code: 'format' },
    ]);
  }
  return address;
}

/**
 * Earner accounts and their backpack (issue 47 §1, design.md "Added 2026-12-01"): sign-in by a
 * one-time emailed link, the account's credentials found across every issuer at sign-in by each
 * issuer's salted hash of the signed-in address, and linked at issuance for an address that has
 * an account. No raw address is stored: the account keeps a keyed hash, the link carries the
 * address sealed to itself, and the lookup's per-issuer hashes live only for the request.
 */
/** How long issuance trusts "no earner has an account yet" before asking the database again. */
const ACCOUNTS_RECHECK_MS = 60_000;
/** Addresses looked up per statement when a batch links (well under both engines' parameter limits). */
const LINK_CHUNK = 500;

export function createBackpackService(
  core: Pick<Core, 'db' | 'dialect' | 'clock' | 'ids' | 'config' | 'log'>,
  deps: {
    audit: Pick<AuditService, 'append' | 'appendMany'>;
    secrets: BackpackSecrets;
    mailer: Mailer | null;
    wallet: Pick<WalletService, 'createOffer'>;
  },
) {
  const repo = createBackpackRepository(core.db);
  /**
   * Whether any earner has an account on this service. Until one has, issuance looks nothing up
   * (PostgreSQL issues in one statement). Once true it stays true; a "no" is asked again after
   * ACCOUNTS_RECHECK_MS, so another replica's first account is seen within that time, and a credential
   * issued meanwhile is linked at the earner's next sign-in.
   */
  let accountsExist = false;
  let accountsCheckedAt = Number.NEGATIVE_INFINITY;
  async function anyAccounts(): Promise<boolean> {
    if (accountsExist) return true;
    const now = core.clock.now().getTime();
    if (now - accountsCheckedAt < ACCOUNTS_RECHECK_MS) return false;
    accountsCheckedAt = now;
    accountsExist = await repo.anyAccount();
    return accountsExist;
  }
  const urls = publicUrls(core.config.publicBaseUrl);
  const secure = core.config.publicBaseUrl.startsWith('https://');
  /** What other modules keep of an account (the OB 3.0 API's grants, upserts and profile), erased with it. */
  const erasers: ((executor: Executor, accountId: string) => Promise<void>)[] = [];
  /** What other modules end with a sign-out (the authorization server's login sessions of the account). */
  const signOuts: ((executor: Executor, accountId: string) => Promise<void>)[] = [];

  /** Every credential on the service whose issuer's salted hash of `address` it carries, issuers a page at a time. */
  async function credentialsOfAddress(address: string) {
    const found: { id: string; issuer_id: string }[] = [];
    let after = '';
    for (;;) {
      const issuers = await repo.issuerSalts(after, LOOKUP_CHUNK[core.dialect]);
      const pairs = issuers.map((i) => ({ issuerId: i.id, hash: hashRecipientEmail(address, i.recipient_salt) }));
      found.push(...(await repo.credentialsOf(core.dialect, pairs)));
      const last = issuers.at(-1);
      if (!last || issuers.length < LOOKUP_CHUNK[core.dialect]) return found;
      after = last.id;
    }
  }

  async function audit(
    executor: Parameters<AuditService['append']>[0],
    accountId: string,
    actor: string,
    action: string,
    details?: Record<string, unknown>,
  ) {
    await deps.audit.append(executor, {
      issuerId: EARNER_AUDIT_CHAIN,
      actor,
      action,
      targetType: 'earner_account',
      targetId: accountId,
      ...(details ? { details } : {}),
    });
  }

  return {
    secureCookies: secure,

    /** Adds what erasing an account also erases, in the same transaction. */
    onAccountDeleted(eraser: (executor: Executor, accountId: string) => Promise<void>) {
      erasers.push(eraser);
    },

    /** Adds what signing out also ends, in the same transaction. */
    onSignedOut(end: (executor: Executor, accountId: string) => Promise<void>) {
      signOuts.push(end);
    },

    /**
     * The value a sign-in form carries for its pre-session cookie: an HMAC of it under a service key,
     * so only a browser this service gave the cookie (and the page) can post the link (login CSRF).
     */
    signInBinding: (preSession: string) =>
      createHmac('sha256', deps.secrets.derive('accolade/backpack/sign-in-binding/v1'))
        .update(preSession)
        .digest('base64url'),

    /** Whether sign-in links can be sent at all (SMTP_URL set). */
    canSendLinks: deps.mailer !== null,

    /**
     * Sends a one-time sign-in link to the address, whether or not anything is known of it; the
     * caller answers the same either way. At most LINKS_PER_WINDOW per address per window: further
     * requests send nothing (and answer the same). `next` is a path of this service to go on to.
     */
    async requestLink(email: string, next: string | null, language: NotificationLanguage = 'en'): Promise<void> {
      const address = checkedAddress(email);
      if (!deps.mailer) throw errors.unavailable('Sign-in by email is not set up on this service.');
      const now = core.clock.now();
      const emailHash = deps.secrets.emailHash(address);
      const since = new Date(now.getTime() - LINK_MINUTES * 60_000).toISOString();
      if ((await repo.linksSince(emailHash, since)) >= LINKS_PER_WINDOW) return;
      const token = core.ids.token(TOKEN_LENGTH);
      await repo.deleteLinksBefore(since);
      await repo.insertLink({
        token_hash: sha256Hex(token),
        email_hash: emailHash,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + LINK_MINUTES * 60_000).toISOString(),
      });
      const link = new URL(
        `${core.config.publicBaseUrl}/backpack/sign-in/${token}.${deps.secrets.sealEmail(address, token)}`,
      );
      if (next) link.searchParams.set('next', next);
      const result = await deps.mailer.send(signInMail(core.config, address, link.toString(), LINK_MINUTES, language));
      if (!result.ok) core.log.warn({ detail: result.detail }, 'backpack sign-in link not sent');
    },

    /**
     * Follows a sign-in link (once, before it expires): opens or creates the account, links every
     * credential of the address across the issuers, and starts a session. Null for a used, expired
     * or altered link.
     */
    async signIn(
      link: string,
    ): Promise<{ token: string; csrfToken: string; sealedAddress: string; linked: number } | null> {
      const dot = link.indexOf('.');
      if (dot <= 0) return null;
      const token = link.slice(0, dot);
      const address = deps.secrets.openEmail(link.slice(dot + 1), token);
      if (address === null) return null;
      const now = isoNow(core.clock);
      const consumed = await repo.consumeLink(sha256Hex(token), now);
      const emailHash = deps.secrets.emailHash(address);
      if (!consumed || consumed.email_hash !== emailHash) return null;
      const found = await credentialsOfAddress(address);
      const sessionToken = core.ids.token(TOKEN_LENGTH);
      const csrfToken = core.ids.token(TOKEN_LENGTH);
      const expiresAt = new Date(core.clock.now().getTime() + SESSION_HOURS * 3_600_000).toISOString();
      const linked = await core.db.transaction().execute(async (trx) => {
        const tx = createBackpackRepository(trx);
        let account = await tx.findAccountByEmailHash(emailHash);
        if (!account) {
          const id = core.ids.uuid();
          await tx.insertAccountIfNew({ id, email_hash: emailHash, created_at: now, last_sign_in_at: now });
          account = await tx.findAccountByEmailHash(emailHash);
          if (!account) throw new Error('earner account missing after insert');
          if (account.id === id) await audit(trx, id, `earner:${id}`, 'earner.account_created');
          accountsExist = true;
        }
        await tx.touchSignIn(account.id, now);
        const count = await tx.linkCredentials(
          found.map((c) => ({ credential_id: c.id, account_id: account.id, issuer_id: c.issuer_id, linked_at: now })),
        );
        await tx.insertSession({
          token_hash: sha256Hex(sessionToken),
          account_id: account.id,
          csrf_token: csrfToken,
          created_at: now,
          expires_at: expiresAt,
        });
        await audit(trx, account.id, `earner:${account.id}`, 'earner.signed_in', { linked: count });
        return count;
      });
      // The address, sealed to the session token, goes to the earner's browser only (a cookie): an
      // import checks its recipient against it, and the service keeps nothing of it.
      return { token: sessionToken, csrfToken, sealedAddress: deps.secrets.sealEmail(address, sessionToken), linked };
    },

    /** The signed-in address a session's sealed-address cookie carries, or null (missing, altered, another session's). */
    addressOf(sessionToken: string, sealed: string | null): string | null {
      if (!sealed || sealed.length > 700) return null;
      return deps.secrets.openEmail(sealed, sessionToken);
    },

    /** The session a backpack cookie names, while it lasts. */
    async authenticate(token: string | null): Promise<EarnerSession | null> {
      if (!token || token.length > 100) return null;
      const row = await repo.findSession(sha256Hex(token), isoNow(core.clock));
      return row ? { accountId: row.account_id, csrfToken: row.csrf_token, tokenHash: row.token_hash } : null;
    },

    async signOut(session: EarnerSession): Promise<void> {
      await core.db.transaction().execute(async (trx) => {
        await createBackpackRepository(trx).deleteSession(session.tokenHash);
        for (const end of signOuts) await end(trx, session.accountId);
        await audit(trx, session.accountId, `earner:${session.accountId}`, 'earner.signed_out');
      });
    },

    /** Deletes what has expired (sessions, links, import checks past their hour); every replica may run it. */
    async pruneExpired(): Promise<void> {
      const now = core.clock.now();
      await repo.pruneExpired(now.toISOString(), new Date(now.getTime() - 3_600_000).toISOString());
    },

    /**
     * Every badge of the account, from every issuer, with its status now. With `textLanguages` (the
     * page's, most wanted first: core/locale.ts `textLanguages`), each badge's text is its
     * definition's translation into them when there is one, read in one more statement for all.
     */
    async badges(accountId: string, textLanguages: readonly string[] = []): Promise<BackpackBadge[]> {
      const now = isoNow(core.clock);
      const [rows, translations] = await Promise.all([
        repo.badges(accountId),
        textLanguages.length > 0 ? repo.translations(accountId) : Promise.resolve([]),
      ]);
      const byDefinition = new Map<string, TranslationRow[]>();
      for (const row of translations)
        byDefinition.set(row.definition_id, [...(byDefinition.get(row.definition_id) ?? []), row]);
      return rows.map((row) => {
        const verifyUrl = urls.verifyPage(row.issuer_slug, row.credential_id);
        const credentialUrl = urls.openBadgeCredential(row.issuer_slug, row.credential_id);
        const text = chooseText(
          {
            language: row.definition_language,
            name: row.definition_name,
            description: row.definition_description,
            criteria_narrative: null,
          },
          byDefinition.get(row.definition_id) ?? [],
          textLanguages,
        );
        return {
          credentialId: row.credential_id,
          issuerId: row.issuer_id,
          issuerName: row.issuer_name,
          name: text.name,
          description: text.description,
          textLanguage: text.language,
          imageUrl: row.image_url,
          issuedOn: row.issued_on,
          expiresOn: row.expires_on,
          status: badgeStatus(row, now),
          verifyUrl,
          assertionUrl: urls.assertion(row.issuer_slug, row.credential_id),
          credentialUrl,
          bakedSvgUrl: `${credentialUrl}/baked.svg`,
          linkedInUrl: `${verifyUrl}/share/linkedin`,
        };
      });
    },

    /** A wallet offer (OpenID4VCI) for one of the account's own valid badges; another's is not found. */
    async walletOffer(accountId: string, credentialId: string) {
      const badge = (await repo.badges(accountId)).find((b) => b.credential_id === credentialId);
      if (!badge || badgeStatus(badge, isoNow(core.clock)) === 'revoked') throw errors.notFound('Credential');
      return deps.wallet.createOffer(badge.issuer_id, `earner:${accountId}`, credentialId, {
        txCode: false,
        channel: 'backpack',
      });
    },

    /**
     * Erases the account: its links to the issuers' credentials, its imported credentials, its
     * sessions and sign-in links, and the account. The issuers' records stay as they are (design.md "Added 2026-12-01").
     */
    async deleteAccount(accountId: string): Promise<void> {
      const account = await repo.findAccount(accountId);
      if (!account) return;
      const linked = (await repo.badges(accountId)).length;
      await core.db.transaction().execute(async (trx) => {
        await createBackpackRepository(trx).deleteAccount(accountId, account.email_hash);
        await createImportsRepository(trx).deleteAccount(accountId);
        for (const erase of erasers) await erase(trx, accountId);
        await audit(trx, accountId, `earner:${accountId}`, 'earner.account_deleted', { unlinked: linked });
      });
    },

    /**
     * Links a credential just issued to the account of its address, if that address has one: the
     * address is at hand only now. Issuance does not wait on it failing; the next sign-in links
     * whatever this missed.
     */
    async linkAtIssuance(issuerId: string, credentialId: string, email: string): Promise<void> {
      try {
        if (!(await anyAccounts())) return;
        const account = await repo.findAccountByEmailHash(deps.secrets.emailHash(email));
        if (!account) return;
        await core.db.transaction().execute(async (trx) => {
          const now = isoNow(core.clock);
          const count = await createBackpackRepository(trx).linkCredentials([
            { credential_id: credentialId, account_id: account.id, issuer_id: issuerId, linked_at: now },
          ]);
          if (count > 0) await audit(trx, account.id, 'system', 'earner.credential_linked', { issuerId, credentialId });
        });
      } catch (error) {
        core.log.warn({ err: error, credentialId }, 'backpack link at issuance failed; the next sign-in links it');
      }
    },

    /**
     * Links a batch's new credentials (CSV import, connectors) to the accounts of their addresses:
     * one indexed lookup per LINK_CHUNK addresses, and nothing at all while no account exists.
     */
    async linkManyAtIssuance(issuerId: string, links: { credentialId: string; email: string }[]): Promise<void> {
      try {
        if (links.length === 0 || !(await anyAccounts())) return;
        for (let start = 0; start < links.length; start += LINK_CHUNK) {
          const chunk = links.slice(start, start + LINK_CHUNK).map((link) => ({
            credentialId: link.credentialId,
            emailHash: deps.secrets.emailHash(link.email),
          }));
          const accounts = await repo.accountsByEmailHashes([...new Set(chunk.map((link) => link.emailHash))]);
          if (accounts.length === 0) continue;
          const accountOf = new Map(accounts.map((account) => [account.email_hash, account.id]));
          const now = isoNow(core.clock);
          const rows = chunk.flatMap(({ credentialId, emailHash }) => {
            const accountId = accountOf.get(emailHash);
            return accountId === undefined
              ? []
              : [{ credential_id: credentialId, account_id: accountId, issuer_id: issuerId, linked_at: now }];
          });
          await core.db.transaction().execute(async (trx) => {
            await createBackpackRepository(trx).linkCredentials(rows);
            await deps.audit.appendMany(
              trx,
              EARNER_AUDIT_CHAIN,
              rows.map((row) => ({
                issuerId: EARNER_AUDIT_CHAIN,
                actor: 'system',
                action: 'earner.credential_linked',
                targetType: 'earner_account',
                targetId: row.account_id,
                details: { issuerId, credentialId: row.credential_id },
              })),
            );
          });
        }
      } catch (error) {
        core.log.warn({ err: error, issuerId }, 'backpack links of a batch failed; the next sign-in links them');
      }
    },
  };
}

export type BackpackService = ReturnType<typeof createBackpackService>;
