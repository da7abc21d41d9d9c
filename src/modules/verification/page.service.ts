import type { Core } from '../../core/context.js';
import { type Language, type LanguageSources, negotiateLanguage, textLanguages } from '../../core/locale.js';
import { publicUrls } from '../../core/urls.js';
import { coalescedReads } from '../../db/coalesced-reads.js';
import type { ReadCaches } from '../../db/read-cache.js';
import { effectiveStatus } from '../credentials/credentials.views.js';
import { chooseText, type TranslationRow } from '../definitions/definition-translations.js';
import type { DefinitionSnapshot } from '../definitions/definition-versions.js';
import type { ImageService } from '../images/images.service.js';
import type { EventRecorder, Verifier } from './events.js';
import { REPLACED_BY_NEWER } from './revocation-reason.js';
import { isShareAction, pageShareButtons, shareTarget } from './share.js';
import { CONCURRENT_READS, createVerificationRepository, type PageRow } from './verification.repository.js';
import { type AuthenticResult, toResult } from './verification.views.js';
import { rowScope } from './verify.service.js';

/** Everything the human verification page shows: the API result plus the BadgeClass details. */
export interface PageView {
  result: AuthenticResult;
  /** The language the page is written in (core/locale.ts negotiation). */
  language: Language;
  /**
   * The badge's name in that language (its translation, else its own), as of the version the
   * credential was issued under; `result.credential.name` stays the API's (the definition's own).
   */
  badgeName: string;
  /** The language of `badgeName`, `description` and `criteriaNarrative` (a BCP 47 tag). */
  textLanguage: string;
  /** The credits the badge is worth, as issued; null when it names none. */
  credits: number | null;
  /** The issuer's brand logo, else its Open Badges image. */
  issuerLogoUrl: string | null;
  credentialId: string;
  /** When the issuer revoked it; null while it stands. */
  revokedAt: string | null;
  /** The page of the credential that replaced this one (a reissue), when there is one. */
  replacementUrl: string | null;
  assertionUrl: string;
  /** The same credential as a signed Open Badges 3.0 Verifiable Credential (src/modules/vc). */
  openBadgeCredentialUrl: string;
  /** The badge's PNG with that credential baked in; null unless the image is a PNG hosted here. */
  bakedPngUrl: string | null;
  /** The issuer's own website, where the issuer's name links to. */
  issuerUrl: string;
  description: string;
  criteriaNarrative: string | null;
  criteriaUrl: string | null;
  skills: string[];
  tags: string[];
  evidenceUrl: string | null;
  /** The share buttons this service offers (wallets only when configured). */
  shareButtons: ReturnType<typeof pageShareButtons>;
  alignments: PageAlignment[];
  /** The badge's endorsements, then this credential's. */
  endorsements: PageEndorsement[];
}

export interface PageAlignment {
  name: string;
  url: string;
  framework: string | null;
  code: string | null;
  description: string | null;
}

export interface PageEndorsement {
  endorser: string;
  endorserUrl: string | null;
  claim: string;
  on: string;
  of: 'badge' | 'credential';
}

/** The verification page (`/verify/{slug}/{id}`) and its share redirects. */
export function createPageService(
  core: Pick<Core, 'db' | 'dialect' | 'clock' | 'config'>,
  deps: {
    events: Pick<EventRecorder, 'recordVerifications' | 'recordEngagement'>;
    images: Pick<ImageService, 'isHostedPng'>;
    readCaches: ReadCaches;
  },
) {
  const urls = publicUrls(core.config.publicBaseUrl);
  const repo = createVerificationRepository(core.db, core.dialect);
  const findOne = deps.readCaches.cached('page', coalescedReads(repo.findForPageByIds, CONCURRENT_READS), rowScope);
  const wallets = core.config.walletPassUrls;
  const shareButtons = pageShareButtons(wallets);

  /**
   * What the page shows of the badge: the version the credential was issued under (issue 45 §3),
   * in the language chosen for the page, else the definition's own (issue 45 §1's fallback).
   */
  function badgeText(row: PageRow, sources: LanguageSources, language: Language) {
    const version = row.version_snapshot === null ? null : (JSON.parse(row.version_snapshot) as DefinitionSnapshot);
    const shown = version ?? {
      language: row.definition_language,
      name: row.definition_name,
      description: row.description,
      criteria_narrative: row.criteria_narrative,
      criteria_url: row.criteria_url,
      tags: row.tags,
      skills: row.skills,
      credits_available: row.credits_available,
    };
    const translations = version ? version.translations : (JSON.parse(row.translations) as TranslationRow[]);
    return { shown, text: chooseText(shown, translations, textLanguages(sources, language)) };
  }

  /** The credential, only when it is the named issuer's: any other combination is not found. */
  async function find(issuerSlug: string, id: string): Promise<PageRow | undefined> {
    const row = await findOne(id);
    return row?.issuer_slug === issuerSlug ? row : undefined;
  }

  return {
    /**
     * The page's content, recording a `page` verification when `record` (a GET, not a HEAD from a
     * link checker); null when there is nothing to show.
     */
    async view(
      issuerSlug: string,
      id: string,
      verifier: Verifier,
      record: boolean,
      languages: Pick<LanguageSources, 'query' | 'acceptLanguage'>,
    ): Promise<PageView | null> {
      const row = await find(issuerSlug, id);
      if (!row) return null;
      if (record) await deps.events.recordVerifications([row], 'page', verifier);
      const assertionUrl = urls.assertion(row.issuer_slug, row.id);
      const result = toResult(urls, assertionUrl, row, core.clock.now());
      const replacement = result.revokedReason === REPLACED_BY_NEWER ? row.replacement_id : null;
      const sources = { ...languages, credential: row.credential_language, issuer: row.issuer_language };
      const language = negotiateLanguage(sources);
      const { shown, text } = badgeText(row, sources, language);
      return {
        result,
        language,
        badgeName: text.name,
        textLanguage: text.language,
        issuerLogoUrl: row.brand_logo_url ?? row.issuer_image_url,
        credentialId: row.id,
        revokedAt: row.revoked_at,
        replacementUrl: replacement === null ? null : urls.verifyPage(row.issuer_slug, replacement),
        assertionUrl,
        openBadgeCredentialUrl: urls.openBadgeCredential(row.issuer_slug, row.id),
        bakedPngUrl: (await deps.images.isHostedPng(result.credential?.imageUrl))
          ? `${urls.openBadgeCredential(row.issuer_slug, row.id)}/baked.png`
          : null,
        issuerUrl: row.issuer_url,
        description: text.description,
        criteriaNarrative: text.criteriaNarrative,
        criteriaUrl: shown.criteria_url,
        credits: shown.credits_available,
        skills: JSON.parse(shown.skills) as string[],
        tags: JSON.parse(shown.tags) as string[],
        evidenceUrl: row.evidence_url,
        shareButtons,
        alignments: JSON.parse(row.alignments) as PageAlignment[],
        endorsements: JSON.parse(row.endorsements) as PageEndorsement[],
      };
    },

    /**
     * Where a share action redirects, recording the engagement; null for an unknown action or
     * credential. A revoked credential is not shareable, nor is an expired one to a profile or wallet:
     * it goes back to its page, unrecorded. Only a
     * GET (`record`) counts: a HEAD from a link checker does not.
     */
    async share(
      issuerSlug: string,
      id: string,
      action: string,
      country: string,
      record: boolean,
    ): Promise<string | null> {
      if (!isShareAction(action, wallets)) return null;
      const row = await find(issuerSlug, id);
      if (!row) return null;
      const verifyPageUrl = urls.verifyPage(row.issuer_slug, row.id);
      // Only a standing credential goes onto a profile or into a wallet; an expired one may still be linked.
      const status = effectiveStatus(row, core.clock.now());
      if (status === 'revoked' || (status === 'expired' && action !== 'share_link')) return verifyPageUrl;
      if (record)
        await deps.events.recordEngagement({ issuerId: row.issuer_id, credentialId: row.id, action, country });
      return shareTarget(
        action,
        {
          credentialId: row.id,
          badgeName: row.definition_name,
          issuerName: row.issuer_name,
          issuedOn: row.issued_on,
          expiresOn: row.expires_on,
          verifyPageUrl,
          assertionUrl: urls.assertion(row.issuer_slug, row.id),
          linkedInOrganizationId: row.issuer_linkedin_organization_id,
        },
        wallets,
      );
    },
  };
}

export type PageService = ReturnType<typeof createPageService>;
