import { isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import { AppError, errors } from '../../core/errors.js';
import type { AuditService } from '../audit/audit.service.js';
import type { CredentialService } from '../credentials/credentials.service.js';
import { createLinkRepository, createLinkTokens } from './certificates.links.js';

const revokedMessage = (erased: boolean) =>
  erased
    ? "This credential was erased at the earner's request; it has no certificate."
    : 'This credential was revoked; it has no certificate any more. A reissued or renewed credential has its own.';

/**
 * The earner's certificate links (issue 44): the link for a credential, its revocation by staff,
 * and the certificate behind a link. A credential revoked, erased or replaced (a reissue or renewal
 * revokes the old one) answers 410 through its link too; the new credential has a link of its own.
 */
export function createEarnerLinks(
  core: Pick<Core, 'config' | 'db' | 'clock'>,
  deps: {
    audit: Pick<AuditService, 'append'>;
    credentials: Pick<CredentialService, 'findRow'>;
    enabledFor: (issuerId: string, definitionId: string) => Promise<boolean>;
    pdf: (issuerId: string, credentialId: string) => Promise<Buffer>;
  },
) {
  const tokens = createLinkTokens(core.config);
  const repo = createLinkRepository(core.db);

  async function live(issuerId: string, credentialId: string) {
    const credential = await deps.credentials.findRow(issuerId, credentialId);
    if (!credential) throw errors.notFound('Credential');
    if (credential.revoked_at !== null) {
      throw new AppError('gone', revokedMessage(credential.revoked_reason === 'gdpr_erasure'));
    }
    return credential;
  }

  /** The live link, or null when certificates are off for the badge or no name is stored to print. */
  async function linkOf(credential: Awaited<ReturnType<typeof live>>, issuerId: string): Promise<string | null> {
    if (!credential.display_name) return null;
    if (!(await deps.enabledFor(issuerId, credential.definition_id))) return null;
    const generation = await repo.generation(issuerId, credential.id);
    return tokens.url({ issuerId, credentialId: credential.id, generation });
  }

  return {
    /**
     * The earner's own certificate link for a credential (for the award email and the wallet
     * offer page): null when certificates are off for its badge, when no name is stored to print,
     * or when the credential is unknown, revoked or erased. The same link each time until staff
     * revoke it (POST /api/v1/credentials/{id}/certificate-link/revoke).
     */
    async earnerLink(issuerId: string, credentialId: string): Promise<string | null> {
      const credential = await deps.credentials.findRow(issuerId, credentialId);
      if (!credential || credential.revoked_at !== null) return null;
      return linkOf(credential, issuerId);
    },

    /** The same for staff: 404 for an unknown or another issuer's credential, 410 once revoked or erased. */
    async staffLink(issuerId: string, credentialId: string): Promise<{ url: string | null }> {
      return { url: await linkOf(await live(issuerId, credentialId), issuerId) };
    },

    /** Revokes the live link (it then answers 410) and answers the new one; audited with the actor. */
    async revokeLink(issuerId: string, actor: string, credentialId: string): Promise<{ url: string | null }> {
      const credential = await live(issuerId, credentialId);
      await core.db.transaction().execute(async (trx) => {
        const generation = await createLinkRepository(trx).advance(issuerId, credentialId, isoNow(core.clock), actor);
        await deps.audit.append(trx, {
          issuerId,
          actor,
          action: 'certificate_link.revoked',
          targetType: 'credential',
          targetId: credentialId,
          details: { generation },
        });
      });
      return { url: await linkOf(credential, issuerId) };
    },

    /**
     * The certificate behind a link. A token that is not ours is 404 before any lookup; a revoked
     * link, or the link of a revoked or erased credential, is 410; certificates turned off is 404.
     */
    async pdfByLink(token: string): Promise<Buffer> {
      const target = tokens.read(token);
      if (!target) throw new AppError('not_found', 'No certificate is at this link.');
      const generation = await repo.generation(target.issuerId, target.credentialId);
      if (target.generation > generation) throw new AppError('not_found', 'No certificate is at this link.');
      if (target.generation < generation) {
        throw new AppError('gone', 'This certificate link was withdrawn by its issuer. Ask them for the current one.');
      }
      return deps.pdf(target.issuerId, target.credentialId);
    },
  };
}
