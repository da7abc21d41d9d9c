import { addDays, isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import { AppError, errors } from '../../core/errors.js';
import { hashRecipientEmail, sha256Hex } from '../../core/hashing.js';
import type { Job } from '../../core/job.js';
import { negotiateLanguage, textLanguages } from '../../core/locale.js';
import { publicUrls } from '../../core/urls.js';
import type { Executor } from '../../db/database.js';
import type { AuditService } from '../audit/audit.service.js';
import type { DefinitionService } from '../definitions/definitions.service.js';
import type { IssuerService } from '../issuers/issuers.service.js';
import type { Mailer, MailMessage } from './notifications.mailer.js';
import { LANGUAGES, type NotificationLanguage } from './notifications.messages.js';
import { createReminderSender } from './notifications.reminders.js';
import { type NotificationKind, type RenderedMessage, renderNotification } from './notifications.render.js';
import {
  type CredentialNotificationRow,
  type CredentialReminderRow,
  type CredentialResendRow,
  createNotificationRepository,
  type NotificationSettingsRow,
  type ResendTarget,
} from './notifications.repository.js';
import { createNotificationSender } from './notifications.sender.js';

export interface NotificationSettings {
  /** Whether this service can send at all (SMTP_URL is configured). */
  enabled: boolean;
  notifyByDefault: boolean;
  senderName: string | null;
  replyTo: string | null;
  language: NotificationLanguage;
  languages: NotificationLanguage[];
  expiryReminders: boolean;
  expiryReminderDays: number;
  /** The issuer's own words in every expiry reminder, as written (plain text). */
  reminderNote: string | null;
  /** The renewal or re-enrolment page the reminder links to (https). */
  reminderLink: string | null;
}

export interface SettingsChange {
  notifyByDefault?: boolean;
  senderName?: string | null;
  replyTo?: string | null;
  language?: NotificationLanguage;
  expiryReminders?: boolean;
  expiryReminderDays?: number;
  reminderNote?: string | null;
  reminderLink?: string | null;
}

/** A newly issued credential whose earner may be told; `email` is the address as given. */
export interface NotifyRequest {
  issuerId: string;
  credentialId: string;
  definitionId: string;
  issuedOn: string;
  recipientHash: string;
  email: string;
  /** A new award when absent; renewals, reissues and name corrections say so (issue 46). */
  kind?: NotificationKind;
  /** The credential's language (BCP 47) when it has one: the message is written in it (issue 45 §2). */
  language?: string | null;
}

/**
 * What an issuing call reports: `queued` (will be sent behind the response), `suppressed` (the
 * earner unsubscribed from this issuer: nothing is sent) or `off` (no SMTP).
 */
export type NotificationOutcome = 'queued' | 'suppressed' | 'off';

/** What a call supplying addresses for expiry reminders reports. */
export interface ReminderReport {
  /** True when this service has no SMTP server: nothing was claimed or sent (the counts are 0). */
  emailOff: boolean;
  /** Addresses given (after removing repeats). */
  recipients: number;
  /** Reminders claimed and queued, one per credential due. */
  queued: number;
  /** Reminders claimed but not sent: the earner unsubscribed. */
  suppressed: number;
  /** Addresses with no credential due a reminder (none expiring in the window, or reminded already). */
  nothingDue: number;
}

const REASONS: Record<string, string> = {
  unsubscribed: "The earner unsubscribed from this issuer's emails; nothing was sent.",
  queue_full: 'Too many messages were waiting to be sent; this one was dropped.',
  not_sent_before_shutdown:
    'The service stopped before sending it, and it cannot be sent later: the address is not kept.',
  credential_unavailable: 'The credential or its definition could not be read when the message was composed.',
  internal_error: 'An internal error stopped the send; the service log has the details.',
};

/**
 * A sentence for a failed or suppressed notification, from its stored code: an SMTP reply code
 * (`smtp 550`), a transport error code (`econnrefused`) or one of the service's own codes.
 */
export function notificationReason(status: string, detail: string | null): string | null {
  if (status !== 'failed' && status !== 'suppressed') return null;
  if (detail === null) return status === 'suppressed' ? (REASONS.unsubscribed as string) : 'The message was not sent.';
  const known = REASONS[detail];
  if (known) return known;
  const smtp = /^smtp (\d{3})$/.exec(detail);
  if (smtp) {
    return (smtp[1] as string).startsWith('4')
      ? `The mail server kept deferring the message (SMTP ${smtp[1]}) after every retry.`
      : `The earner's mail server refused the message (SMTP ${smtp[1]}); check the address.`;
  }
  return `The mail server could not be reached (${detail}).`;
}

/**
 * The revocation reason of a credential a reissue replaced (credentials.service.ts `REISSUED_REASON`;
 * imported from there it would close an import circle: credentials uses this module).
 */
const REISSUED_REASON = 'reissued';

/** What a resend repeats: the wording of one of the credential's messages. */
export type ResentKind = NotificationKind | 'reminder';

/**
 * The message "Resend the email" sends again (issue 46): the credential's newest one. That is its
 * expiry reminder once one was sent, while the credential has not expired; else the message of its
 * arrival: a renewal, reissue or name correction when it replaced a credential (told apart as
 * credentials.service.ts chose them: a correction changes the name, a renewal replaced a live
 * credential that expires), else the award.
 */
export function resentKind(target: ResendTarget, now: string): ResentKind {
  if (target.reminder_status === 'sent' && target.expires_on !== null && target.expires_on > now) return 'reminder';
  if (target.reissued_from === null) return 'award';
  if (target.original_name !== null && target.original_name !== target.display_name) return 'correction';
  return target.original_revoked_reason === REISSUED_REASON && target.original_expires_on !== null
    ? 'renewal'
    : 'reissue';
}

const DEFAULT_REMINDER_DAYS = 30;
/** "Resend the email" at most this many times per credential per 24 hours. */
export const RESENDS_PER_DAY = 3;
const DAY_MS = 86_400_000;

/**
 * The badge a preview shows before the issuer has one (issue 46): its image is inline, so the
 * preview loads nothing.
 */
const SAMPLE_BADGE = {
  name: 'Sample badge',
  slug: 'sample-badge',
  image_url: `data:image/svg+xml,${encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="120" viewBox="0 0 120 120"><circle cx="60" cy="60" r="56" fill="#1f4e79"/><path d="M60 22l11 23 25 3-18 17 5 25-23-12-23 12 5-25-18-17 25-3z" fill="#fff"/></svg>',
  )}`,
};
const UNSUBSCRIBE_TOKEN_LENGTH = 32;
/** The credential id a preview renders its message for. */
const EXAMPLE_CREDENTIAL = 'example';

const CACHE_MS = 5_000;

const blankToNull = (text: string | null) => (text?.trim() ? text.trim() : null);

/**
 * Issuer, definition and settings reads while a queue drains: one read per few seconds, not per
 * message. With `keepMisses` false an undefined answer is not kept: the next read asks again.
 */
function ttlCache<T>({ keepMisses }: { keepMisses: boolean }) {
  const entries = new Map<string, { value: T; at: number }>();
  function set(key: string, value: T) {
    if (entries.size > 1_000) entries.clear();
    entries.set(key, { value, at: Date.now() });
  }
  return {
    set,
    async get(key: string, load: () => Promise<T>): Promise<T> {
      const hit = entries.get(key);
      if (hit && Date.now() - hit.at < CACHE_MS) return hit.value;
      const value = await load();
      if (value !== undefined || keepMisses) set(key, value);
      return value;
    },
  };
}

/**
 * Earner notifications. The address given at issuance is kept in memory only until the message is
 * handed to the SMTP server; what is stored is the outcome per credential and the suppression
 * list of salted hashes (docs/decisions.md: "Earner notifications").
 */
export function createNotificationService(
  core: Pick<Core, 'db' | 'dialect' | 'clock' | 'ids' | 'config' | 'log'>,
  deps: {
    issuers: Pick<IssuerService, 'getIssuer'>;
    definitions: Pick<DefinitionService, 'findRow' | 'listRows' | 'textFor'>;
    audit: Pick<AuditService, 'append'>;
    mailer: Mailer | null;
    /**
     * The earner's own certificate link (modules/certificates, given by src/services.ts); null when
     * certificates are off for the badge or the credential cannot have one.
     */
    certificateLink?: (issuerId: string, credentialId: string) => Promise<string | null>;
    /** The earner's wallet offer for the email (modules/wallet); null when none can be made. */
    walletOffer?: (
      issuerId: string,
      credentialId: string,
    ) => Promise<{ offer: string; qr: string; lcw: string; page: string } | null>;
  },
) {
  const repo = createNotificationRepository(core.db);
  const urls = publicUrls(core.config.publicBaseUrl);
  const mail = core.config.mail;
  // An issuer without a settings row has the defaults: that answer is kept like any other.
  const settingsCache = ttlCache<NotificationSettingsRow | undefined>({ keepMisses: true });
  const issuerCache = ttlCache<Awaited<ReturnType<IssuerService['getIssuer']>>>({ keepMisses: true });
  // Keyed by issuer and definition, as the read is: another issuer's id never shares an entry. A
  // miss is not kept, so no caller can make a definition look missing to the queue that sends it.
  const definitionCache = ttlCache<Awaited<ReturnType<DefinitionService['findRow']>>>({ keepMisses: false });
  // The badge's text by definition, languages and version: an import's messages share one read.
  const textCache = ttlCache<Awaited<ReturnType<DefinitionService['textFor']>>>({ keepMisses: false });

  const unsubscribeUrl = (token: string) => `${core.config.publicBaseUrl}/notifications/unsubscribe/${token}`;

  function toSettings(row: NotificationSettingsRow | undefined): NotificationSettings {
    return {
      enabled: sender !== null,
      notifyByDefault: row?.notify_by_default === 1,
      senderName: row?.sender_name ?? null,
      replyTo: row?.reply_to ?? null,
      language: (LANGUAGES as string[]).includes(row?.language ?? '') ? (row?.language as NotificationLanguage) : 'en',
      languages: LANGUAGES,
      expiryReminders: row?.expiry_reminders === 1,
      expiryReminderDays: row?.expiry_reminder_days ?? DEFAULT_REMINDER_DAYS,
      reminderNote: row?.reminder_note ?? null,
      reminderLink: row?.reminder_link ?? null,
    };
  }

  /** The window of the issuer's reminder lead time from now: credentials expiring in it are due. */
  function reminderWindow(withinDays: number): { from: string; until: string } {
    const from = isoNow(core.clock);
    return { from, until: addDays(from, withinDays) };
  }

  const settingsRow = (issuerId: string) => settingsCache.get(issuerId, () => repo.settings(issuerId));

  /**
   * The message for a credential of the issuer: the award, or with `expiresOn` the expiry reminder.
   * The badge image is the definition's, as on the verification page (never a per-credential URL).
   */
  async function render(
    subject: {
      issuerId: string;
      credentialId: string;
      definitionId: string | null;
      issuedOn: string;
      expiresOn?: string;
      kind?: NotificationKind;
      language?: string | null;
      /** When the credential was made: its badge text is that version's (absent: the current one). */
      createdAt?: string | null;
    },
    token: string,
  ) {
    const { definitionId } = subject;
    const [issuer, found, row] = await Promise.all([
      issuerCache.get(subject.issuerId, () => deps.issuers.getIssuer(subject.issuerId)),
      definitionId === null
        ? SAMPLE_BADGE
        : definitionCache.get(JSON.stringify([subject.issuerId, definitionId]), () =>
            deps.definitions.findRow(subject.issuerId, definitionId),
          ),
      settingsRow(subject.issuerId),
    ]);
    if (!found) return null;
    const definition: { name: string; slug: string; image_url: string | null } = found;
    const settings = toSettings(row);
    // The credential's language, else the issuer's for its emails, else its default (issue 45 §2):
    // a background job has no Accept-Language to ask.
    const sources = { credential: subject.language, issuer: row?.language ?? issuer.language };
    const language = negotiateLanguage(sources);
    const tags = textLanguages(sources, language);
    const asOf = subject.createdAt ?? null;
    const badgeName =
      definitionId === null
        ? definition.name
        : (
            await textCache.get(JSON.stringify([subject.issuerId, definitionId, tags, asOf]), () =>
              deps.definitions.textFor(subject.issuerId, definitionId, tags, { asOf }),
            )
          ).name;
    const verify = urls.verifyPage(issuer.slug, subject.credentialId);
    const unsubscribe = unsubscribeUrl(token);
    const rendered = renderNotification({
      language,
      kind: subject.kind ?? 'award',
      reminderNote: settings.reminderNote,
      renewUrl: settings.reminderLink,
      issuer: {
        name: issuer.name,
        logoUrl: issuer.brand_logo_url ?? issuer.image_url,
        brandColor: issuer.brand_primary_color,
      },
      badgeName,
      issuedOn: subject.issuedOn,
      expiresOn: subject.expiresOn ?? null,
      badgeImage: definition.image_url ?? `${urls.badgeClass(issuer.slug, definition.slug)}/image.svg`,
      links: {
        verify,
        linkedIn: `${verify}/share/linkedin`,
        image: definition.image_url ?? `${urls.assertion(issuer.slug, subject.credentialId)}/image.svg`,
        openBadges3: urls.openBadgeCredential(issuer.slug, subject.credentialId),
        unsubscribe,
        // A preview's example credential has no certificate.
        certificate:
          deps.certificateLink && definitionId !== null && subject.credentialId !== EXAMPLE_CREDENTIAL
            ? await deps.certificateLink(subject.issuerId, subject.credentialId)
            : null,
      },
      // A wallet offer works once: the award carries it, a reminder does not.
      wallet:
        deps.walletOffer && !subject.expiresOn ? await deps.walletOffer(subject.issuerId, subject.credentialId) : null,
    });
    return { issuer, settings, rendered, unsubscribe };
  }

  async function compose(
    request: {
      issuerId: string;
      credentialId: string;
      definitionId: string;
      issuedOn: string;
      email: string;
      kind?: NotificationKind;
      language?: string | null;
      createdAt?: string | null;
    },
    token: string,
    expiresOn?: string,
  ): Promise<MailMessage | null> {
    if (!mail) return null;
    const message = await render({ ...request, ...(expiresOn ? { expiresOn } : {}) }, token);
    if (!message) return null;
    const { issuer, settings, rendered, unsubscribe } = message;
    return {
      from: { name: settings.senderName ?? issuer.name, address: mail.from },
      to: request.email,
      replyTo: settings.replyTo ?? issuer.email,
      subject: rendered.subject,
      html: rendered.html,
      text: rendered.text,
      headers: {
        'List-Unsubscribe': `<${unsubscribe}>`,
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
        'Auto-Submitted': 'auto-generated',
      },
    };
  }

  const sender =
    deps.mailer && mail
      ? createNotificationSender(
          core,
          deps.mailer,
          { ratePerMinute: mail.ratePerMinute, maxQueued: mail.maxQueued },
          (request, token) => compose(request, token),
        )
      : null;
  const reminders =
    deps.mailer && mail
      ? createReminderSender(core, {
          mailer: deps.mailer,
          audit: deps.audit,
          compose: (reminder) => compose(reminder, reminder.unsubscribeToken, reminder.expiresOn),
        })
      : null;

  /**
   * Resends under way: each one message, sent once behind the call that asked for it (a few a day
   * per credential, so no queue); its outcome is written to its row.
   */
  const resends = ((): Job & {
    on: boolean;
    send(id: string, make: () => Promise<MailMessage | null>): void;
    drain(): Promise<void>;
  } => {
    const inFlight = new Set<Promise<void>>();
    const settle = async () => {
      while (inFlight.size > 0) await Promise.all(inFlight);
    };
    return {
      name: 'notification-resends',
      on: Boolean(deps.mailer && mail),
      send(id: string, make: () => Promise<MailMessage | null>) {
        const mailer = deps.mailer;
        if (!mailer) return;
        const task = (async () => {
          const message = await make();
          const result = message ? await mailer.send(message) : null;
          const status = result?.ok ? 'sent' : 'failed';
          const detail = result === null ? 'credential_unavailable' : result.ok ? null : result.detail;
          await repo.saveResend(id, status, detail, isoNow(core.clock));
        })()
          .catch((error: unknown) => {
            // Database or template trouble; the address is only ever handed to the mailer.
            core.log.error({ err: error, resendId: id }, 'notification resend failed');
            return repo.saveResend(id, 'failed', 'internal_error', isoNow(core.clock)).catch(() => undefined);
          })
          .finally(() => inFlight.delete(task));
        inFlight.add(task);
      },
      drain: settle,
      start() {},
      stop: settle,
    };
  })();

  /** Queues each request whose earner is not suppressed; one suppression read per call. */
  async function notifyAll(requests: readonly NotifyRequest[]): Promise<NotificationOutcome[]> {
    if (!sender) return requests.map(() => 'off');
    const suppressed = new Map<string, Set<string>>();
    for (const issuerId of new Set(requests.map((r) => r.issuerId))) {
      const hashes = requests.filter((r) => r.issuerId === issuerId).map((r) => r.recipientHash);
      suppressed.set(issuerId, await repo.suppressedAmong(issuerId, hashes));
    }
    return requests.map((request) => {
      if (suppressed.get(request.issuerId)?.has(request.recipientHash)) {
        sender.suppressed(request);
        return 'suppressed';
      }
      sender.enqueue(request);
      return 'queued';
    });
  }

  return {
    enabled: sender !== null,
    // Reminders and resends stop first: the award sender's stop closes the shared mailer.
    jobs: sender && reminders ? [reminders, resends, sender] : [],

    /** Whether a newly issued credential should notify: the call's choice, else the issuer's default. */
    async wanted(issuerId: string, requested: boolean | undefined): Promise<boolean> {
      if (requested !== undefined) return requested;
      return (await settingsRow(issuerId))?.notify_by_default === 1;
    },

    /**
     * Queues the message, a push to memory (its token and `queued` row come with the sender's next
     * pass); `suppressed` at once when the earner unsubscribed from this issuer (the row says so
     * with the next pass); `off` when this service has no SMTP server.
     */
    async notify(request: NotifyRequest): Promise<NotificationOutcome> {
      return (await notifyAll([request]))[0] as NotificationOutcome;
    },

    /** `notify` for an import's new credentials: one suppression lookup for all of them. */
    notifyAll,

    /** Sends what is queued now and waits for it (tests; the jobs do this on their own). */
    async drain(): Promise<void> {
      await sender?.drain();
      await reminders?.drain();
      await resends.drain();
    },

    /**
     * "Resend the email" (issue 46): the credential's newest message again (`resentKind`), in its
     * language with its badge text, to the address given, which must be
     * the credential's recipient (checked by hash: the service keeps no address). Refused for a
     * revoked credential (an erased one is revoked) and beyond RESENDS_PER_DAY for one credential.
     * The resend is audited (`credential.notification_resent`, with its outcome) and recorded with
     * its own unsubscribe token; it is sent behind the answer, once.
     */
    async resend(issuerId: string, actor: string, credentialId: string, email: string): Promise<NotificationOutcome> {
      const target = await repo.resendTarget(issuerId, credentialId);
      if (!target) throw errors.notFound('Credential');
      if (target.revoked_at !== null) {
        throw new AppError('credential_revoked', 'The credential is revoked: its earner is not emailed about it.', {
          credentialId,
        });
      }
      const issuer = await deps.issuers.getIssuer(issuerId);
      if (hashRecipientEmail(email, issuer.recipient_salt) !== target.recipient_hash) {
        const message = "recipientEmail is not this credential's recipient.";
        throw errors.validation(message, [{ path: '/recipientEmail', message, code: 'recipient' }]);
      }
      const at = isoNow(core.clock);
      const kind = resentKind(target, at);
      const dayAgo = new Date(core.clock.now().getTime() - DAY_MS).toISOString();
      if ((await repo.resendsSince(issuerId, credentialId, dayAgo)) >= RESENDS_PER_DAY) {
        throw new AppError(
          'rate_limited',
          `This credential's email was sent again ${RESENDS_PER_DAY} times in the last 24 hours; try again tomorrow.`,
        );
      }
      const outcome: NotificationOutcome = !resends.on
        ? 'off'
        : (await repo.isSuppressed(issuerId, target.recipient_hash))
          ? 'suppressed'
          : 'queued';
      const token = core.ids.token(UNSUBSCRIBE_TOKEN_LENGTH);
      const id = core.ids.uuid();
      await core.db.transaction().execute(async (trx) => {
        if (outcome !== 'off') {
          await createNotificationRepository(trx).insertResend({
            id,
            issuer_id: issuerId,
            credential_id: credentialId,
            recipient_hash: target.recipient_hash,
            status: outcome,
            detail: outcome === 'suppressed' ? 'unsubscribed' : null,
            kind,
            unsubscribe_token_hash: sha256Hex(token),
            created_at: at,
            updated_at: at,
          });
        }
        await deps.audit.append(trx, {
          issuerId,
          actor,
          action: 'credential.notification_resent',
          targetType: 'credential',
          targetId: credentialId,
          details: { outcome, kind },
        });
      });
      if (outcome === 'queued') {
        resends.send(id, () =>
          compose(
            {
              issuerId,
              credentialId,
              definitionId: target.definition_id,
              issuedOn: target.issued_on,
              email: email.trim(),
              kind: kind === 'reminder' ? 'award' : kind,
              language: target.language,
              createdAt: target.created_at,
            },
            token,
            kind === 'reminder' ? (target.expires_on ?? undefined) : undefined,
          ),
        );
      }
      return outcome;
    },

    /**
     * The issuer's message as an earner would get it, for an example credential of the definition
     * given (else the issuer's newest): the award, or the expiry reminder due today. Nothing is
     * stored or sent.
     */
    async preview(issuerId: string, kind: 'award' | 'reminder', definitionId?: string): Promise<RenderedMessage> {
      // The issuer's newest definition (the list is in creation order), else the sample badge.
      const chosen = definitionId ?? (await deps.definitions.listRows(issuerId)).at(-1)?.id ?? null;
      const { from, until } = reminderWindow((await this.settings(issuerId)).expiryReminderDays);
      const found = await render(
        {
          issuerId,
          credentialId: EXAMPLE_CREDENTIAL,
          definitionId: chosen,
          issuedOn: from,
          ...(kind === 'reminder' ? { expiresOn: until } : {}),
        },
        'example',
      );
      if (!found) throw errors.notFound('Definition');
      return found.rendered;
    },

    /**
     * Expiry reminders for the addresses given (the service keeps none: docs/decisions.md, "Expiry
     * reminders"). Each address is hashed with the issuer's salt; each of its credentials that is
     * live, expires within the issuer's lead time and was never reminded is claimed (one row per
     * credential, inserted once whichever replica gets there first) and its reminder queued, or
     * recorded `suppressed` when the earner unsubscribed. The call is audited with its counts.
     */
    async sendReminders(issuerId: string, actor: string, emails: readonly string[]): Promise<ReminderReport> {
      const settings = await this.settings(issuerId);
      if (!settings.expiryReminders) {
        const message = 'Expiry reminders are off: turn them on in the notification settings first.';
        throw errors.validation(message, [{ path: '/recipientEmails', message, code: 'reminders_off' }]);
      }
      const issuer = await deps.issuers.getIssuer(issuerId);
      const byHash = new Map<string, string>();
      for (const email of emails) {
        const hash = hashRecipientEmail(email, issuer.recipient_salt);
        if (!byHash.has(hash)) byHash.set(hash, email.trim());
      }
      const { from, until } = reminderWindow(settings.expiryReminderDays);
      const due = await repo.dueReminders(issuerId, [...byHash.keys()], from, until);
      const suppressed = await repo.suppressedAmong(issuerId, [...byHash.keys()]);
      const at = isoNow(core.clock);
      const tokens = new Map(due.map((row) => [row.id, core.ids.token(UNSUBSCRIBE_TOKEN_LENGTH)]));
      // Without an SMTP server nothing is claimed: the credentials stay due for a later call.
      const rows = (reminders ? due : []).map((row) => ({
        credential_id: row.id,
        recipient_hash: row.recipient_hash,
        status: suppressed.has(row.recipient_hash) ? 'suppressed' : 'queued',
        detail: suppressed.has(row.recipient_hash) ? 'unsubscribed' : null,
        unsubscribe_token_hash: sha256Hex(tokens.get(row.id) as string),
        created_at: at,
        updated_at: at,
      }));
      // The claims commit with the call's audit record: a claim is never without its record.
      const { report, toSend } = await core.db.transaction().execute(async (trx) => {
        const claimed = await createNotificationRepository(trx).claimReminders(issuerId, core.dialect, rows);
        const mine = due.filter((row) => claimed.has(row.id));
        const sendable = mine.filter((row) => !suppressed.has(row.recipient_hash));
        const counts: ReminderReport = {
          emailOff: reminders === null,
          recipients: byHash.size,
          queued: sendable.length,
          suppressed: mine.length - sendable.length,
          nothingDue: byHash.size - new Set(mine.map((row) => row.recipient_hash)).size,
        };
        await deps.audit.append(trx, {
          issuerId,
          actor,
          action: 'notifications.reminders_requested',
          targetType: 'issuer',
          targetId: issuerId,
          details: { ...counts },
        });
        return { report: counts, toSend: sendable };
      });
      reminders?.enqueue(
        toSend.map((row) => ({
          issuerId,
          credentialId: row.id,
          definitionId: row.definition_id,
          issuedOn: row.issued_on,
          expiresOn: row.expires_on,
          recipientHash: row.recipient_hash,
          email: byHash.get(row.recipient_hash) as string,
          unsubscribeToken: tokens.get(row.id) as string,
          language: row.language,
          createdAt: row.created_at,
        })),
      );
      return report;
    },

    /** How many of the issuer's credentials are due a reminder now, with the lead time used. */
    async remindersDue(issuerId: string): Promise<{ due: number; withinDays: number; on: boolean }> {
      const settings = await this.settings(issuerId);
      const { from, until } = reminderWindow(settings.expiryReminderDays);
      return {
        due: await repo.dueReminderCount(issuerId, from, until),
        withinDays: settings.expiryReminderDays,
        on: settings.expiryReminders,
      };
    },

    async settings(issuerId: string): Promise<NotificationSettings> {
      return toSettings(await repo.settings(issuerId));
    },

    async updateSettings(issuerId: string, actor: string, change: SettingsChange): Promise<NotificationSettings> {
      if (change.reminderLink && !change.reminderLink.startsWith('https://')) {
        const message = 'reminderLink must be an https:// address: earners open it from an email.';
        throw errors.validation(message, [{ path: '/reminderLink', message, code: 'https' }]);
      }
      const current = toSettings(await repo.settings(issuerId));
      const row: NotificationSettingsRow = {
        issuer_id: issuerId,
        notify_by_default: (change.notifyByDefault ?? current.notifyByDefault) ? 1 : 0,
        sender_name: change.senderName === undefined ? current.senderName : change.senderName,
        reply_to: change.replyTo === undefined ? current.replyTo : change.replyTo,
        language: change.language ?? current.language,
        updated_at: isoNow(core.clock),
        expiry_reminders: (change.expiryReminders ?? current.expiryReminders) ? 1 : 0,
        expiry_reminder_days: change.expiryReminderDays ?? current.expiryReminderDays,
        reminder_note: change.reminderNote === undefined ? current.reminderNote : blankToNull(change.reminderNote),
        reminder_link: change.reminderLink === undefined ? current.reminderLink : change.reminderLink,
      };
      await core.db.transaction().execute(async (trx) => {
        await createNotificationRepository(trx).saveSettings(row);
        await deps.audit.append(trx, {
          issuerId,
          actor,
          action: 'notifications.settings_updated',
          targetType: 'issuer',
          targetId: issuerId,
          details: { changed: Object.keys(change).sort() },
        });
      });
      settingsCache.set(issuerId, row);
      return toSettings(row);
    },

    /** The credential's notification outcome, without the address (the credential detail shows it). */
    async statusOf(issuerId: string, credentialId: string) {
      const [award, resend] = await Promise.all([
        repo.status(issuerId, credentialId),
        repo.latestResend(issuerId, credentialId),
      ]);
      // The newest message about the credential: a resend once one was asked for.
      const row = resend && (!award || resend.created_at >= award.created_at) ? resend : award;
      return row
        ? {
            status: row.status,
            detail: row.detail,
            reason: notificationReason(row.status, row.detail),
            updatedAt: row.updated_at,
          }
        : null;
    },

    /**
     * Every message about the recipient's credentials, oldest first, with what became of it, and
     * whether they asked for no more (subject access requests). No address: none is stored.
     */
    async historyOf(issuerId: string, recipientHash: string, credentialIds: readonly string[]) {
      const { awards, reminders, resends, suppression } = await repo.historyOf(issuerId, recipientHash, credentialIds);
      const message =
        (kind: 'award' | 'reminder') =>
        (row: CredentialNotificationRow | CredentialReminderRow | CredentialResendRow) => ({
          credentialId: row.credential_id,
          kind,
          status: row.status,
          reason: notificationReason(row.status, row.detail),
          createdAt: row.created_at,
          updatedAt: row.updated_at,
        });
      return {
        // A resend is the message it repeated sent again: a reminder, else the credential's own.
        messages: [
          ...awards.map(message('award')),
          ...resends.map((row) => message(row.kind === 'reminder' ? 'reminder' : 'award')(row)),
          ...reminders.map(message('reminder')),
        ].sort((a, b) => a.createdAt.localeCompare(b.createdAt)),
        suppressed: suppression ? { reason: suppression.reason, since: suppression.created_at } : null,
      };
    },

    /**
     * The issuer named by a live unsubscribe token, for the confirmation page, with the languages
     * the page falls back to after the request's (issue 45 §2): the credential's, then the issuer's
     * for its emails (else its default). Null when unknown.
     */
    async unsubscribeTarget(
      token: string,
    ): Promise<{ issuerName: string; credentialLanguage: string | null; issuerLanguage: string } | null> {
      const row = await repo.byUnsubscribeToken(sha256Hex(token));
      if (!row) return null;
      const [issuer, settings] = await Promise.all([
        deps.issuers.getIssuer(row.issuer_id),
        repo.settings(row.issuer_id),
      ]);
      return {
        issuerName: issuer.name,
        credentialLanguage: row.language,
        issuerLanguage: settings?.language ?? issuer.language,
      };
    },

    /**
     * Adds the token's recipient hash to its issuer's suppression list; false for an unknown token.
     * A new suppression is audited in the issuer's log with the issuer and the action only (actor
     * `anonymous`, target the issuer): nothing in the record leads back to the recipient.
     */
    async unsubscribe(token: string): Promise<boolean> {
      const row = await repo.byUnsubscribeToken(sha256Hex(token));
      if (!row) return false;
      await core.db.transaction().execute(async (trx) => {
        const notifications = createNotificationRepository(trx);
        if (await notifications.isSuppressed(row.issuer_id, row.recipient_hash)) return;
        await notifications.suppress(row.issuer_id, row.recipient_hash, 'unsubscribed', isoNow(core.clock));
        await deps.audit.append(trx, {
          issuerId: row.issuer_id,
          actor: 'anonymous',
          action: 'notifications.unsubscribed',
          targetType: 'issuer',
          targetId: row.issuer_id,
        });
      });
      return true;
    },

    /** Suppresses a recipient hash outright, inside the caller's transaction (GDPR erase). */
    async suppress(trx: Executor, issuerId: string, recipientHash: string, reason: string): Promise<void> {
      await createNotificationRepository(trx).suppress(issuerId, recipientHash, reason, isoNow(core.clock));
    },
  };
}

export type NotificationService = ReturnType<typeof createNotificationService>;
