import type { Core } from '../../core/context.js';
import { publicUrls } from '../../core/urls.js';
import { coalescedReads } from '../../db/coalesced-reads.js';
import type { UsageService } from '../usage/usage.service.js';
import type { EventRecorder, Verifier } from './events.js';
import { CONCURRENT_READS, createVerificationRepository, type VerifiableRow } from './verification.repository.js';
import type { VerificationResult } from './verification.schemas.js';
import { type AssertionRef, assertionRefParser, rowMatches, toResult, unknownResult } from './verification.views.js';

/**
 * Public verification of assertion ids, singly, in bulk and (keyed, metered) premium. A bulk call's
 * ids are looked up in one set-based read, and so are concurrent single verifies; each authentic
 * credential is recorded once per call (and once per client and window, by the recorder).
 */
export function createVerifyService(
  core: Pick<Core, 'db' | 'dialect' | 'clock' | 'config'>,
  deps: {
    events: Pick<EventRecorder, 'recordVerifications'>;
    usage: Pick<UsageService, 'meterPremiumVerification'>;
    /** An Open Badges 3.0 VC-JWT whose signature checks with this service's keys (src/modules/vc). */
    readPresented: (input: string) => Promise<AssertionRef | null>;
  },
) {
  const urls = publicUrls(core.config.publicBaseUrl);
  const parseUrl = assertionRefParser(core.config.publicBaseUrl);
  const parse = async (id: string) => parseUrl(id) ?? (await deps.readPresented(id));
  const repo = createVerificationRepository(core.db, core.dialect);
  const findOne = coalescedReads(repo.findByIds, CONCURRENT_READS);

  /** One id, read together with the single verifies running beside it. */
  async function verify(id: string, verifier: Verifier): Promise<VerificationResult> {
    const ref = await parse(id);
    const row = ref ? await findOne(ref.credentialId) : undefined;
    if (!ref || !rowMatches(ref, row)) return unknownResult(id);
    const result = toResult(urls, id, row, core.clock.now());
    await deps.events.recordVerifications([row], 'api', verifier);
    return result;
  }

  return {
    verify,

    /**
     * Up to 1,000 ids in one set-based read; one result per id, in request order. A credential named
     * several times (the same id repeated, or its URL and its bare id) is verified and recorded once.
     */
    async verifyBulk(ids: readonly string[], verifier: Verifier) {
      const refs = await Promise.all(ids.map(parse));
      const rows = await repo.findByIds(refs.flatMap((ref) => (ref ? [ref.credentialId] : [])));
      const now = core.clock.now();
      const authentic = new Map<string, VerifiableRow>();
      const results = ids.map((id, i): VerificationResult => {
        const ref = refs[i];
        const row = ref ? rows.get(ref.credentialId) : undefined;
        if (!ref || !rowMatches(ref, row)) return unknownResult(id);
        authentic.set(row.id, row);
        return toResult(urls, id, row, now);
      });
      await deps.events.recordVerifications([...authentic.values()], 'bulk', verifier);
      return { count: results.length, results };
    },

    /** Refused (402) on plans without premium verification; metered, then answered like `verify`. */
    async verifyPremium(issuerId: string, id: string, verifier: Verifier): Promise<VerificationResult> {
      await deps.usage.meterPremiumVerification(issuerId);
      return verify(id, verifier);
    },
  };
}

export type VerifyService = ReturnType<typeof createVerifyService>;
