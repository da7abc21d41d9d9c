import type { Static } from '@sinclair/typebox';
import { isoNow } from '../../core/clock.js';
import type { Core } from '../../core/context.js';
import { errors } from '../../core/errors.js';
import { publicUrls } from '../../core/urls.js';
import type { Executor } from '../../db/database.js';
import type { AuditService } from '../audit/audit.service.js';
import type { IssuanceService } from '../credentials/issuance.service.js';
import { partialName } from './partial-name.js';
import { createProfileRepository } from './profiles.repository.js';
import { type EarnerProfileSchema, MAX_BULK_IDS } from './verification.schemas.js';

/** Length of a profile id: 192 random bits, so a profile is found only through its link. */
const PROFILE_ID_LENGTH = 32;

function profileRecord(issuerId: string, actor: string, action: string, id: string) {
  return { issuerId, actor, action, targetType: 'profile', targetId: id };
}

/**
 * Earner profiles: a shareable link listing one recipient's live credentials at one issuer (the
 * embed renders it as a wallet). GDPR erasure deletes them through `deleteForRecipient`. Creating
 * and deleting one is audited with its actor; the record names the profile id, never the recipient.
 */
export function createProfileService(
  core: Pick<Core, 'db' | 'clock' | 'ids' | 'config'>,
  deps: { issuance: Pick<IssuanceService, 'recipientHash'>; audit: Pick<AuditService, 'append'> },
) {
  const repo = createProfileRepository(core.db);
  const urls = publicUrls(core.config.publicBaseUrl);

  return {
    /**
     * The recipient's profile, created on first request: asking again answers the same link
     * (`created: false`), so an integration can call it whenever it needs the URL.
     */
    async create(issuerId: string, actor: string, recipientEmail: string) {
      const recipientHash = await deps.issuance.recipientHash(issuerId, recipientEmail);
      const existing = await repo.findForRecipient(issuerId, recipientHash);
      const id = existing?.id ?? core.ids.token(PROFILE_ID_LENGTH);
      if (!existing) {
        await core.db.transaction().execute(async (trx) => {
          const row = { id, issuer_id: issuerId, recipient_hash: recipientHash, created_at: isoNow(core.clock) };
          await createProfileRepository(trx).insert(row);
          await deps.audit.append(trx, profileRecord(issuerId, actor, 'profile.created', id));
        });
      }
      return { created: !existing, profile: { id, profileUrl: urls.profile(id) } };
    },

    async delete(issuerId: string, actor: string, id: string): Promise<void> {
      await core.db.transaction().execute(async (trx) => {
        if ((await createProfileRepository(trx).delete(issuerId, id)) === 0) throw errors.notFound('Profile');
        await deps.audit.append(trx, profileRecord(issuerId, actor, 'profile.deleted', id));
      });
    },

    /** Deletes every profile of the recipient inside the caller's transaction (GDPR erase). */
    async deleteForRecipient(trx: Executor, issuerId: string, recipientHash: string): Promise<number> {
      return createProfileRepository(trx).deleteForRecipient(issuerId, recipientHash);
    },

    /** The public view: partial name and the assertion URLs of the non-revoked credentials. */
    async getPublic(id: string): Promise<Static<typeof EarnerProfileSchema>> {
      const profile = await repo.findPublic(id);
      if (!profile) throw errors.notFound('Profile');
      const rows = await repo.listedCredentials(profile.issuer_id, profile.recipient_hash, MAX_BULK_IDS);
      const name = partialName(rows.find((row) => row.display_name !== null)?.display_name);
      return {
        id: profile.id,
        ...(name === undefined ? {} : { name }),
        credentials: rows.map((row) => urls.assertion(row.issuer_slug, row.id)),
      };
    },
  };
}

export type ProfileService = ReturnType<typeof createProfileService>;
