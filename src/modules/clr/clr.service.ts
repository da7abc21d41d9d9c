import { isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import { errors } from '../../core/errors.js';
import { publicUrls } from '../../core/urls.js';
import type { AuditService } from '../audit/audit.service.js';
import type { IssuerService } from '../issuers/issuers.service.js';
import type { PathwayService } from '../pathways/pathways.service.js';
import { wholeSeconds } from '../vc/credential.builder.js';
import type { VcService } from '../vc/vc.service.js';
import { clrCredential, type StageCredential } from './clr.builder.js';
import { type ClrRow, createClrRepository } from './clr.repository.js';

/** A ClrCredential as the API answers it: where it is hosted, and the signed credential itself. */
export interface IssuedClr {
  id: string;
  pathwayId: string;
  credentialUrl: string;
  validFrom: string;
  validUntil: string | null;
  credential: Record<string, unknown>;
}

/** A CLR of an earner account, as the backpack lists it. */
export interface EarnerClr {
  id: string;
  issuerId: string;
  issuerName: string;
  pathwayName: string;
  credentialUrl: string;
  validFrom: string;
  validUntil: string | null;
}

/** The public URL of a CLR: under its issuer, beside the issuer's OB 3.0 credentials. */
export const clrPath = (issuerPath: string, id: string) => `${issuerPath}/clr/${encodeURIComponent(id)}`;

/**
 * CLR 2.0 (issue 47 §3): a ClrCredential for a recipient who completed a pathway, holding the
 * signed AchievementCredentials of its stages, signed by the issuer's did:web key (Data Integrity
 * eddsa-rdfc-2022), stored, served at its URL, and found by the earner's backpack and the Open
 * Badges API through the account's linked credentials.
 */
export function createClrService(
  core: Pick<Core, 'db' | 'clock' | 'ids' | 'config'>,
  deps: {
    audit: Pick<AuditService, 'append'>;
    issuers: Pick<IssuerService, 'getIssuer'>;
    pathways: Pick<PathwayService, 'completion'>;
    vc: Pick<VcService, 'credential' | 'signDataIntegrityOnly'>;
  },
) {
  const repo = createClrRepository(core.db);
  const urls = publicUrls(core.config.publicBaseUrl);
  const urlOf = (issuerSlug: string, id: string) => clrPath(urls.issuerProfile(issuerSlug), id);

  function issued(row: ClrRow, issuerSlug: string): IssuedClr {
    return {
      id: row.id,
      pathwayId: row.pathway_id,
      credentialUrl: urlOf(issuerSlug, row.id),
      validFrom: row.valid_from,
      validUntil: row.valid_until,
      credential: JSON.parse(row.credential) as Record<string, unknown>,
    };
  }

  return {
    /**
     * Issues the recipient's CLR of the pathway, once they hold a currently valid credential of
     * every required stage; the earned optional stages are in it too. The address is hashed with
     * the issuer's salt at once and goes no further. Asked again while the same credentials earn
     * it, it answers the CLR already issued (`created` false) rather than sign another. Audited.
     */
    async issue(
      issuerId: string,
      actor: string,
      pathwayId: string,
      recipientEmail: string,
    ): Promise<{ created: boolean; clr: IssuedClr }> {
      const { pathway, recipientHash, progress, earnedBy } = await deps.pathways.completion(
        issuerId,
        pathwayId,
        recipientEmail,
      );
      if (progress.totalStages === 0) throw errors.pathwayEmpty();
      if (!progress.complete) {
        throw errors.pathwayIncomplete(
          progress.stages
            .filter((s) => s.required && !s.earned)
            .map((s) => ({ stageId: s.stageId, definitionId: s.definitionId, stepOrder: s.stepOrder })),
        );
      }
      const members = earnedBy.flatMap((e) => (e.credentialId ? [{ ...e, credentialId: e.credentialId }] : []));
      // A pathway of optional stages only is "complete" with nothing earned, but a ClrSubject holds at
      // least one credential (CLR 2.0 ClrSubject: verifiableCredential is [1..*]): until one is earned, the
      // stages not yet earned are what is missing.
      if (members.length === 0) {
        throw errors.pathwayIncomplete(
          progress.stages.map((s) => ({ stageId: s.stageId, definitionId: s.definitionId, stepOrder: s.stepOrder })),
        );
      }
      const credentialIds = members
        .map((m) => m.credentialId)
        .sort()
        .join(',');
      const issuer = await deps.issuers.getIssuer(issuerId);
      const latest = await repo.latestFor(issuerId, pathwayId, recipientHash);
      if (latest?.credential_ids === credentialIds) return { created: false, clr: issued(latest, issuer.slug) };

      const stages: StageCredential[] = [];
      for (const member of members) {
        const { dataIntegrity } = await deps.vc.credential(issuer.slug, member.credentialId);
        stages.push({ stepOrder: member.stepOrder, credential: JSON.parse(dataIntegrity) });
      }
      const id = core.ids.uuid();
      const now = isoNow(core.clock);
      const first = stages[0]?.credential.issuer as { id: string } & Record<string, unknown>;
      const unsigned = clrCredential({
        id: urlOf(issuer.slug, id),
        issuer: first,
        pathway,
        validFrom: wholeSeconds(now),
        stages,
      });
      const { signed, keyVersion } = await deps.vc.signDataIntegrityOnly(issuer.slug, unsigned);
      const row: ClrRow = {
        id,
        issuer_id: issuerId,
        pathway_id: pathwayId,
        recipient_hash: recipientHash,
        credential_ids: credentialIds,
        key_version: keyVersion,
        credential: JSON.stringify(signed),
        valid_from: unsigned.validFrom,
        valid_until: unsigned.validUntil ?? null,
        created_at: now,
      };
      await core.db.transaction().execute(async (trx) => {
        await createClrRepository(trx).insert(row);
        await deps.audit.append(trx, {
          issuerId,
          actor,
          action: 'pathway.clr_issued',
          targetType: 'pathway',
          targetId: pathwayId,
          details: { clrId: id, credentials: members.length, keyVersion },
        });
      });
      return { created: true, clr: issued(row, issuer.slug) };
    },

    /** The signed ClrCredential's stored text (the bytes signed) at its public URL; another issuer's slug: not found. */
    async hosted(issuerSlug: string, id: string): Promise<string> {
      const row = await repo.bySlug(issuerSlug, id);
      if (!row) throw errors.notFound('CLR');
      return row.credential;
    },

    /** The account's CLRs, oldest first, as the backpack lists them. */
    async forAccount(accountId: string): Promise<EarnerClr[]> {
      return (await repo.forAccount(accountId)).map((row) => ({
        id: row.id,
        issuerId: row.issuer_id,
        issuerName: row.issuer_name,
        pathwayName: row.pathway_name,
        credentialUrl: urlOf(row.issuer_slug, row.id),
        validFrom: row.valid_from,
        validUntil: row.valid_until,
      }));
    },

    /** The account's signed CLRs issued after `since`, oldest first, for the Open Badges API's list. */
    async signedForAccount(
      accountId: string,
      since: string | null,
    ): Promise<{ id: string; issuedAt: string; credential: Record<string, unknown> }[]> {
      return (await repo.forAccount(accountId, since)).map((row) => ({
        id: row.id,
        issuedAt: row.valid_from,
        credential: JSON.parse(row.credential) as Record<string, unknown>,
      }));
    },
  };
}

export type ClrService = ReturnType<typeof createClrService>;
