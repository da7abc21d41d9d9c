import { isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import { sha256Hex } from '../../core/hashing.js';
import { publicUrls } from '../../core/urls.js';
import type { Executor } from '../../db/database.js';
import type { AuditService } from '../audit/audit.service.js';
import type { DefinitionService } from '../definitions/definitions.service.js';
import type { IssuerService } from '../issuers/issuers.service.js';
import type { Mailer, MailMessage } from './notifications.mailer.js';
import { LANGUAGES, type NotificationLanguage } from './notifications.messages.js';
import { renderNotification } from './notifications.render.js';
import { createNotificationRepository, type NotificationSettingsRow } from './notifications.repository.js';
import { createNotificationSender } from './notifications.sender.js';

export interface NotificationSettings {
  /** Whether this service can send at all (SMTP_URL is configured). */
  enabled: boolean;
  notifyByDefault: boolean;
  senderName: string | null;
  replyTo: string | null;
  language: NotificationLanguage;
  languages: NotificationLanguage[];
}

export interface SettingsChange {
  notifyByDefault?: boolean;
  senderName?: string | null;
  replyTo?: string | null;
  language?: NotificationLanguage;
}

/** A newly issued credential whose earner may be told; `email` is the address as given. */
export interface NotifyRequest {
  issuerId: string;
  credentialId: string;
  definitionId: string;
  issuedOn: string;
  recipientHash: string;
  email: string;
}

/** What an issuing call reports: `queued` (will be sent behind the response) or `off` (no SMTP). */
export type NotificationOutcome = 'queued' | 'off';

const CACHE_MS = 5_000;

/** Issuer, definition and settings reads while a queue drains: one read per few seconds, not per message. */
function ttlCache<T>() {
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
      set(key, value);
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
    definitions: Pick<DefinitionService, 'findRow'>;
    audit: Pick<AuditService, 'append'>;
    mailer: Mailer | null;
    /** The earner's wallet offer for the email (modules/wallet); null when none can be made. */
    walletOffer?: (
      issuerId: string,
      credentialId: string,
    ) => Promise<{ offer: string; qr: string; lcw: string } | null>;
  },
) {
  const repo = createNotificationRepository(core.db);
  const urls = publicUrls(core.config.publicBaseUrl);
  const mail = core.config.mail;
  const settingsCache = ttlCache<NotificationSettingsRow | undefined>();
  const issuerCache = ttlCache<Awaited<ReturnType<IssuerService['getIssuer']>>>();
  const definitionCache = ttlCache<Awaited<ReturnType<DefinitionService['findRow']>>>();

  const unsubscribeUrl = (token: string) => `${core.config.publicBaseUrl}/notifications/unsubscribe/${token}`;

  function toSettings(row: NotificationSettingsRow | undefined): NotificationSettings {
    return {
      enabled: sender !== null,
      notifyByDefault: row?.notify_by_default === 1,
      senderName: row?.sender_name ?? null,
      replyTo: row?.reply_to ?? null,
      language: (LANGUAGES as string[]).includes(row?.language ?? '') ? (row?.language as NotificationLanguage) : 'en',
      languages: LANGUAGES,
    };
  }

  const settingsRow = (issuerId: string) => settingsCache.get(issuerId, () => repo.settings(issuerId));

  async function compose(request: NotifyRequest, token: string): Promise<MailMessage | null> {
    if (!mail) return null;
    const [issuer, definition, settings] = await Promise.all([
      issuerCache.get(request.issuerId, () => deps.issuers.getIssuer(request.issuerId)),
      definitionCache.get(request.definitionId, () => deps.definitions.findRow(request.issuerId, request.definitionId)),
      settingsRow(request.issuerId).then(toSettings),
    ]);
    if (!definition) return null;
    const verify = urls.verifyPage(issuer.slug, request.credentialId);
    const assertion = urls.assertion(issuer.slug, request.credentialId);
    const unsubscribe = unsubscribeUrl(token);
    const rendered = renderNotification({
      language: settings.language,
      issuer: {
        name: issuer.name,
        logoUrl: issuer.brand_logo_url ?? issuer.image_url,
        brandColor: issuer.brand_primary_color,
      },
      badgeName: definition.name,
      issuedOn: request.issuedOn,
      links: {
        verify,
        linkedIn: `${verify}/share/linkedin`,
        image: definition.image_url ?? `${assertion}/image.svg`,
        openBadges3: urls.openBadgeCredential(issuer.slug, request.credentialId),
        unsubscribe,
      },
      wallet: deps.walletOffer ? await deps.walletOffer(request.issuerId, request.credentialId) : null,
    });
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
          compose,
        )
      : null;

  return {
    enabled: sender !== null,
    jobs: sender ? [sender] : [],

    /** Whether a newly issued credential should notify: the call's choice, else the issuer's default. */
    async wanted(issuerId: string, requested: boolean | undefined): Promise<boolean> {
      if (requested !== undefined) return requested;
      return (await settingsRow(issuerId))?.notify_by_default === 1;
    },

    /**
     * Queues the message, a push to memory (its token and `queued` row come with the sender's next
     * pass); `off` when this service has no SMTP server.
     */
    notify(request: NotifyRequest): NotificationOutcome {
      if (!sender) return 'off';
      sender.enqueue(request);
      return 'queued';
    },

    /** Sends what is queued now and waits for it (tests; the job does this on its own timer). */
    async drain(): Promise<void> {
      await sender?.drain();
    },

    async settings(issuerId: string): Promise<NotificationSettings> {
      return toSettings(await repo.settings(issuerId));
    },

    async updateSettings(issuerId: string, actor: string, change: SettingsChange): Promise<NotificationSettings> {
      const current = toSettings(await repo.settings(issuerId));
      const row: NotificationSettingsRow = {
        issuer_id: issuerId,
        notify_by_default: (change.notifyByDefault ?? current.notifyByDefault) ? 1 : 0,
        sender_name: change.senderName === undefined ? current.senderName : change.senderName,
        reply_to: change.replyTo === undefined ? current.replyTo : change.replyTo,
        language: change.language ?? current.language,
        updated_at: isoNow(core.clock),
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
      const row = await repo.status(issuerId, credentialId);
      return row ? { status: row.status, detail: row.detail, updatedAt: row.updated_at } : null;
    },

    /** The issuer named by a live unsubscribe token, for the confirmation page; null when unknown. */
    async unsubscribeTarget(token: string): Promise<{ issuerName: string; language: string } | null> {
      const row = await repo.byUnsubscribeToken(sha256Hex(token));
      if (!row) return null;
      const [issuer, settings] = await Promise.all([
        deps.issuers.getIssuer(row.issuer_id),
        repo.settings(row.issuer_id).then(toSettings),
      ]);
      return { issuerName: issuer.name, language: settings.language };
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
