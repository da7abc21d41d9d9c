import type { Core } from '../../core/context.js';
import { publicUrls } from '../../core/urls.js';
import type { UsageService } from '../usage/usage.service.js';
import type { EventRecorder, VerificationChannel } from './events.js';
import { createVerificationRepository, type VerifiableRow } from './verification.repository.js';
import type { VerificationResult } from './verification.schemas.js';
import { assertionRefParser, rowMatches, toResult, unknownResult } from './verification.views.js';

/**
 * Public verification of assertion ids, singly, in bulk and (keyed, metered) premium. Every id is
 * looked up in one set-based read; each authentic one is recorded as a verification event.
 */
export function createVerifyService(
  core: Pick<Core, 'db' | 'clock' | 'config'>,
  deps: { events: Pick<EventRecorder, 'recordVerifications'>; usage: Pick<UsageService, 'meterPremiumVerification'> },
) {
  const urls = publicUrls(core.config.publicBaseUrl);
  const parse = assertionRefParser(core.config.publicBaseUrl);
  const repo = createVerificationRepository(core.db);

  async function verifyMany(ids: readonly string[], channel: VerificationChannel, country: string) {
    const refs = ids.map(parse);
    const rows = await repo.findByIds(refs.flatMap((ref) => (ref ? [ref.credentialId] : [])));
    const now = core.clock.now();
    const authentic: VerifiableRow[] = [];
    const results = ids.map((id, i): VerificationResult => {
      const ref = refs[i];
      const row = ref ? rows.get(ref.credentialId) : undefined;
      if (!ref || !rowMatches(ref, row)) return unknownResult(id);
      authentic.push(row);
      return toResult(urls, id, row, now);
    });
    await deps.events.recordVerifications(authentic, channel, country);
    return results;
  }

  async function verify(id: string, country: string): Promise<VerificationResult> {
    const [result] = await verifyMany([id], 'api', country);
    return result ?? unknownResult(id);
  }

  return {
    verify,

    async verifyBulk(ids: readonly string[], country: string) {
      const results = await verifyMany(ids, 'bulk', country);
      return { count: results.length, results };
    },

    /** Refused (402) on plans without premium verification; metered, then answered like `verify`. */
    async verifyPremium(issuerId: string, id: string, country: string): Promise<VerificationResult> {
      await deps.usage.meterPremiumVerification(issuerId);
      return verify(id, country);
    },
  };
}

export type VerifyService = ReturnType<typeof createVerifyService>;
