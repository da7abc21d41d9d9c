import type { Core } from '../../core/context.js';
import { errors } from '../../core/errors.js';
import { publicUrls } from '../../core/urls.js';
import { coalescedReads } from '../../db/coalesced-reads.js';
import type { ReadCaches } from '../../db/read-cache.js';
import type { UsageService } from '../usage/usage.service.js';
import type { EventRecorder, Verifier } from './events.js';
import { CONCURRENT_READS, createVerificationRepository, type VerifiableRow } from './verification.repository.js';
import { presentedCredentialIssue, type VerificationResult, type VerifyRequest } from './verification.schemas.js';
import { type AssertionRef, assertionRefParser, rowMatches, toResult, unknownResult } from './verification.views.js';

/** What a verify or page row shows of its issuer and definition (a cached row is dropped when either changes). */
export const rowScope = (row: VerifiableRow) => ({ issuerId: row.issuer_id, definitionId: row.definition_id });

/** Open Badges 3.0 credentials given to verification, checked by their signatures (src/modules/vc). */
export interface PresentedReader {
  /** A VC-JWT. */
  jwt(input: string): Promise<AssertionRef | null>;
  /** True when `input` has a VC-JWT's shape: `jwt` checks its signature. */
  isJwt(input: string): boolean;
  /** A credential as JSON with its Data Integrity proof. */
  json(credential: Record<string, unknown>): Promise<AssertionRef | null>;
}

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
    presented: PresentedReader;
    readCaches: ReadCaches;
  },
) {
  const urls = publicUrls(core.config.publicBaseUrl);
  const parseUrl = assertionRefParser(core.config.publicBaseUrl);
  const parse = async (id: string) => parseUrl(id) ?? (await deps.presented.jwt(id));
  /** True when verifying `id` checks a signature: no assertion URL or bare id, but a VC-JWT's shape. */
  const checksSignature = (id: string) => parseUrl(id) === null && deps.presented.isJwt(id);
  const repo = createVerificationRepository(core.db, core.dialect);
  const findOne = deps.readCaches.cached('verify', coalescedReads(repo.findByIds, CONCURRENT_READS), rowScope);

  /** The answer for `id` given as `ref`, read together with the single verifies running beside it. */
  async function answer(id: string, ref: AssertionRef | null, verifier: Verifier): Promise<VerificationResult> {
    const row = ref ? await findOne(ref.credentialId) : undefined;
    if (!ref || !rowMatches(ref, row)) return unknownResult(id);
    const result = toResult(urls, id, row, core.clock.now());
    await deps.events.recordVerifications([row], 'api', verifier);
    return result;
  }

  const verify = async (id: string, verifier: Verifier) => answer(id, await parse(id), verifier);

  /** An Open Badges 3.0 credential given as JSON, bounded first (400, core/jsonld-budget.ts), then checked by its proof. */
  async function verifyCredential(credential: Record<string, unknown>, verifier: Verifier) {
    const issue = presentedCredentialIssue(credential);
    if (issue)
      throw errors.validation(`${issue.path === '' ? 'The credential' : issue.path} ${issue.message}.`, [issue]);
    const id = typeof credential.id === 'string' ? credential.id : '';
    return answer(id, await deps.presented.json(credential), verifier);
  }

  /** The verify body: an id, or a credential as JSON. */
  const verifyAny = (body: VerifyRequest, verifier: Verifier) =>
    'credential' in body ? verifyCredential(body.credential, verifier) : verify(body.id, verifier);

  return {
    verify,
    verifyAny,
    checksSignature,

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
    async verifyPremium(issuerId: string, body: VerifyRequest, verifier: Verifier): Promise<VerificationResult> {
      await deps.usage.meterPremiumVerification(issuerId);
      return verifyAny(body, verifier);
    },
  };
}

export type VerifyService = ReturnType<typeof createVerifyService>;
