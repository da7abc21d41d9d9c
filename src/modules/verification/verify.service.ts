import type { Core } from '../../core/context.js';
import { errors } from '../../core/errors.js';
import { publicUrls } from '../../core/urls.js';
import { coalescedReads } from '../../db/coalesced-reads.js';
import type { ReadCaches } from '../../db/read-cache.js';
import { chooseText, type TranslationRow } from '../definitions/definition-translations.js';
import type { UsageService } from '../usage/usage.service.js';
import type { EventRecorder, Verifier } from './events.js';
import {
  type BadgeNamesRow,
  CONCURRENT_READS,
  createVerificationRepository,
  type VerifiableRow,
} from './verification.repository.js';
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
  // By definition id, dropped with the definition (a translation's change touches it).
  const findNames = deps.readCaches.cached(
    'badge-names',
    coalescedReads(repo.badgeNamesByIds, CONCURRENT_READS),
    (row: BadgeNamesRow) => ({ issuerId: row.issuer_id, definitionId: row.id }),
  );

  /**
   * The badge's name in `lang` (issue 45 §2: the embed's card names the badge in its language), or
   * undefined when none was asked. Asked only with `lang`, so a verify without it costs what it did.
   */
  async function localized(row: VerifiableRow, lang: string | undefined) {
    if (lang === undefined) return undefined;
    const names = await findNames(row.definition_id);
    if (!names || names.issuer_id !== row.issuer_id) return undefined;
    const own = { language: names.language, name: names.name, description: '', criteria_narrative: null };
    const text = chooseText(own, JSON.parse(names.translations) as TranslationRow[], lang);
    return { language: text.language, name: text.name };
  }

  function withLocalized(result: VerificationResult, name: Awaited<ReturnType<typeof localized>>) {
    return name && result.credential ? { ...result, credential: { ...result.credential, localized: name } } : result;
  }

  /** The answer for `id` given as `ref`, read together with the single verifies running beside it. */
  async function answer(
    id: string,
    ref: AssertionRef | null,
    verifier: Verifier,
    lang?: string,
  ): Promise<VerificationResult> {
    const row = ref ? await findOne(ref.credentialId) : undefined;
    if (!ref || !rowMatches(ref, row)) return unknownResult(id);
    const result = withLocalized(toResult(urls, id, row, core.clock.now()), await localized(row, lang));
    await deps.events.recordVerifications([row], 'api', verifier);
    return result;
  }

  const verify = async (id: string, verifier: Verifier, lang?: string) => answer(id, await parse(id), verifier, lang);

  /** An Open Badges 3.0 credential given as JSON, bounded first (400, core/jsonld-budget.ts), then checked by its proof. */
  async function verifyCredential(credential: Record<string, unknown>, verifier: Verifier, lang?: string) {
    const issue = presentedCredentialIssue(credential);
    if (issue)
      throw errors.validation(`${issue.path === '' ? 'The credential' : issue.path} ${issue.message}.`, [issue]);
    const id = typeof credential.id === 'string' ? credential.id : '';
    return answer(id, await deps.presented.json(credential), verifier, lang);
  }

  /** The verify body: an id, or a credential as JSON. */
  const verifyAny = (body: VerifyRequest, verifier: Verifier) =>
    'credential' in body
      ? verifyCredential(body.credential, verifier, body.lang)
      : verify(body.id, verifier, body.lang);

  return {
    verify,
    verifyAny,
    checksSignature,

    /**
     * Up to 1,000 ids in one set-based read; one result per id, in request order. A credential named
     * several times (the same id repeated, or its URL and its bare id) is verified and recorded once.
     */
    async verifyBulk(ids: readonly string[], verifier: Verifier, lang?: string) {
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
      if (lang === undefined) return { count: results.length, results };
      // One name lookup per definition, however many of its credentials the call names.
      const names = new Map<string, Awaited<ReturnType<typeof localized>>>();
      for (const row of authentic.values()) {
        if (!names.has(row.definition_id)) names.set(row.definition_id, await localized(row, lang));
      }
      const named = results.map((result, i) => {
        const ref = refs[i];
        const row = ref ? rows.get(ref.credentialId) : undefined;
        return result.authentic && row ? withLocalized(result, names.get(row.definition_id)) : result;
      });
      return { count: named.length, results: named };
    },

    /** Refused (402) on plans without premium verification; metered, then answered like `verify`. */
    async verifyPremium(issuerId: string, body: VerifyRequest, verifier: Verifier): Promise<VerificationResult> {
      await deps.usage.meterPremiumVerification(issuerId);
      return verifyAny(body, verifier);
    },
  };
}

export type VerifyService = ReturnType<typeof createVerifyService>;
