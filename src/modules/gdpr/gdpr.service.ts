import { isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import { containsEmail } from '../../core/personal-data.js';
import type { AuditService } from '../audit/audit.service.js';
import type { CredentialWithSlugs } from '../credentials/credentials.repository.js';
import { credentialUrls, effectiveStatus } from '../credentials/credentials.views.js';
import type { IssuanceService } from '../credentials/issuance.service.js';
import type { IssuerService } from '../issuers/issuers.service.js';
import type { NotificationService } from '../notifications/notifications.service.js';
import type { ProfileService } from '../verification/profiles.service.js';
import { GDPR_ERASURE_REASON } from '../verification/revocation-reason.js';
import type { OutboxService } from '../webhooks/outbox.service.js';
import { credentialEventData } from '../webhooks/webhooks.events.js';
import { renderSubjectAccessDocument } from './gdpr.document.js';
import { createGdprRepository } from './gdpr.repository.js';

/** The completion key an erasure gives a credential whose key held an email address. */
export const erasedCompletionKey = (credentialId: string) => `erased:${credentialId}`;

/** The most recently stored name among the recipient's credentials, or null. */
function latestDisplayName(rows: CredentialWithSlugs[]): string | null {
  for (let i = rows.length - 1; i >= 0; i--) {
    const name = rows[i]?.display_name;
    if (name) return name;
  }
  return null;
}

/**
 * Data-subject requests of one recipient at one issuer. The email is only ever hashed with the
 * issuer's salt; the audit records carry counts and credential ids, never the email or its hash.
 */
export function createGdprService(
  core: Pick<Core, 'db' | 'database' | 'clock' | 'ids'>,
  deps: {
    issuance: Pick<IssuanceService, 'recipientHash' | 'urls'>;
    audit: Pick<AuditService, 'append' | 'aboutTargets'>;
    outbox: Pick<OutboxService, 'enqueueMany'>;
    profiles: Pick<ProfileService, 'deleteForRecipient'>;
    notifications: Pick<NotificationService, 'suppress' | 'historyOf'>;
    issuers: Pick<IssuerService, 'getIssuer'>;
  },
) {
  const urls = deps.issuance.urls;

  /**
   * Everything held about the recipient, for a subject access request (GDPR Art. 15: the data,
   * and where it came from and went): every credential with its badge, dates, status, the name as
   * stored and its links; what became of each email about it; the audit records about them. The
   * access itself is audited, as it discloses personal data, with the form it took.
   */
  async function exportData(issuerId: string, actor: string, recipientEmail: string, format: 'json' | 'html' = 'json') {
    const recipientHash = await deps.issuance.recipientHash(issuerId, recipientEmail);
    const { rows, profiles } = await core.db.transaction().execute(async (trx) => {
      const repo = createGdprRepository(trx);
      const held = await repo.exportRowsOf(issuerId, recipientHash);
      const profileCount = await repo.profileCount(issuerId, recipientHash);
      await deps.audit.append(trx, {
        issuerId,
        actor,
        action: 'gdpr.export',
        targetType: 'gdpr_request',
        targetId: core.ids.uuid(),
        details: { credentials: held.length, profiles: profileCount, format },
      });
      return { rows: held, profiles: profileCount };
    });
    const credentialIds = rows.map((r) => r.id);
    const [issuer, history, audit] = await Promise.all([
      deps.issuers.getIssuer(issuerId),
      deps.notifications.historyOf(issuerId, recipientHash, credentialIds),
      deps.audit.aboutTargets(issuerId, credentialIds),
    ]);
    const replacedBy = new Map(rows.flatMap((r) => (r.reissued_from ? [[r.reissued_from, r.id] as const] : [])));
    const now = core.clock.now();
    return {
      found: rows.length > 0 || profiles > 0,
      recipientHash,
      displayName: latestDisplayName(rows),
      exportedAt: now.toISOString(),
      issuer: { name: issuer.name, url: issuer.url, email: issuer.email },
      profiles,
      notificationsSuppressed: history.suppressed,
      credentials: rows.map((row) => {
        const links = credentialUrls(urls, row);
        return {
          id: row.id,
          status: effectiveStatus(row, now),
          definitionId: row.definition_id,
          assertionUrl: links.assertionUrl,
          issuedOn: row.issued_on,
          expiresOn: row.expires_on,
          revokedAt: row.revoked_at,
          completionKey: row.completion_key,
          badge: { name: row.definition_name, description: row.definition_description },
          recipientName: row.display_name,
          verifyUrl: links.verifyUrl,
          openBadgeCredentialUrl: urls.openBadgeCredential(row.issuer_slug, row.id),
          revokedReason: row.revoked_reason,
          evidenceUrl: row.evidence_url,
          reissuedFrom: row.reissued_from,
          replacedBy: replacedBy.get(row.id) ?? null,
          source: row.source,
          recordedAt: row.created_at,
          notifications: history.messages.filter((m) => m.credentialId === row.id),
        };
      }),
      audit,
    };
  }

  return {
    export: exportData,

    /** The same export as a printable HTML document to send the person (audited as its own access). */
    async exportDocument(issuerId: string, actor: string, recipientEmail: string) {
      const exported = await exportData(issuerId, actor, recipientEmail, 'html');
      return {
        body: renderSubjectAccessDocument(exported),
        disposition: `attachment; filename="subject-access-${exported.exportedAt.slice(0, 10)}.html"`,
      };
    },

    /**
     * In one transaction: revoke what is not yet revoked, forget every stored name, replace every
     * completion key holding an email address (refused since issue 22, but possibly stored before),
     * delete earner profiles, audit once and announce each revocation. The salted hash stays, so the issuer can
     * still answer for the credentials it issued; a repeat finds the recipient and revokes nothing.
     */
    async erase(issuerId: string, actor: string, recipientEmail: string) {
      const recipientHash = await deps.issuance.recipientHash(issuerId, recipientEmail);
      const result = await core.db.transaction().execute(async (trx) => {
        const repo = createGdprRepository(trx);
        const revoked = new Set(
          await repo.revokeActive(issuerId, recipientHash, isoNow(core.clock), GDPR_ERASURE_REASON),
        );
        await repo.clearDisplayNames(issuerId, recipientHash);
        const profilesDeleted = await deps.profiles.deleteForRecipient(trx, issuerId, recipientHash);
        await deps.notifications.suppress(trx, issuerId, recipientHash, GDPR_ERASURE_REASON);
        const rows = await repo.credentialsOf(issuerId, recipientHash);
        const keyed = rows.filter((r) => containsEmail(r.completion_key));
        for (const row of keyed) await repo.replaceCompletionKey(issuerId, row.id, erasedCompletionKey(row.id));
        const credentialIds = rows.map((r) => r.id);
        // In the credentials' order: PostgreSQL's UPDATE … RETURNING follows no defined order.
        const revokedIds = credentialIds.filter((id) => revoked.has(id));
        await deps.audit.append(trx, {
          issuerId,
          actor,
          action: 'gdpr.erase',
          targetType: 'gdpr_request',
          targetId: core.ids.uuid(),
          details: {
            credentialsRevoked: revokedIds.length,
            credentialIds,
            revokedCredentialIds: revokedIds,
            profilesDeleted,
            completionKeysReplaced: keyed.length,
          },
        });
        const now = core.clock.now();
        await deps.outbox.enqueueMany(
          trx,
          issuerId,
          rows
            .filter((r) => revoked.has(r.id))
            .map((r) => ({ event: 'credential.revoked' as const, data: credentialEventData(urls, r, now) })),
        );
        return { found: rows.length > 0 || profilesDeleted > 0, revoked: revokedIds.length, credentialIds };
      });
      // The erased names must not linger in freed pages or old page images on disk either.
      await core.database.reclaimErased();
      return result;
    },
  };
}

export type GdprService = ReturnType<typeof createGdprService>;
