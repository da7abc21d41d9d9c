import { canonicalLanguage } from '../../core/language.js';
import type { PublicUrls } from '../../core/urls.js';
import type { DefinitionRow } from '../definitions/definitions.repository.js';
import type { EndorsementRow } from '../endorsements/endorsements.repository.js';
import type { IssuerRow } from '../issuers/issuers.repository.js';
import { publicRevocationReason } from '../verification/revocation-reason.js';
import type { AlignmentFields, AssertionRow } from './documents.repository.js';
import {
  OB_CONTEXT,
  type ObAlignment,
  type ObAssertion,
  type ObBadgeClass,
  type ObEndorsement,
  type ObEndorserProfile,
  type ObIssuer,
  type ObRelated,
  type ObRevokedAssertion,
} from './documents.schemas.js';
import { achievementExtension, alignmentExtension } from './extension.js';

/*
 * Pure builders of the Open Badges 2.0 documents. Every id is the exact URL the document is served
 * from (publicUrls), and only terms of the OB v2 context are emitted, so validators neither refetch
 * nor drop anything.
 */

export const imageUrlOf = (documentUrl: string) => `${documentUrl}/image.svg`;

/**
 * Which BadgeClass of a definition: a stored version (null: the definition as it is now) and a
 * language edition (null: the definition's own language). OB 2.0 "related" names exactly these two
 * uses, "alternate language editions or previous versions of BadgeClasses" (docs/decisions.md,
 * "BadgeClass URLs of versions and language editions").
 */
export interface Edition {
  version: number | null;
  language: string | null;
}

/**
 * The URL of an edition: `/badges/{defSlug}` (current, own language), `…/in/{lang}`,
 * `…/versions/{n}` and `…/versions/{n}/in/{lang}`.
 */
export function badgeClassUrlOf(urls: PublicUrls, issuerSlug: string, definitionSlug: string, edition: Edition) {
  const version = edition.version === null ? '' : `/versions/${edition.version}`;
  const language = edition.language === null ? '' : `/in/${encodeURIComponent(edition.language)}`;
  return `${urls.badgeClass(issuerSlug, definitionSlug)}${version}${language}`;
}

/**
 * The label of a definition version, as OB 2.0 `version` and OB 3.0 `achievement.version` write it:
 * the issuer's own version string when it has one, else this service's version number
 * (docs/decisions.md, "Translations and versions of a definition").
 */
export const versionLabel = (definition: Pick<DefinitionRow, 'version' | 'version_number'>) =>
  definition.version ?? String(definition.version_number);

/**
 * The edition language a credential issued in `requested` shows: RFC 4647 §3.4 Lookup over the
 * version's translations (`fr-CH` finds `fr`), as `chooseText` chooses its text; null for the
 * definition's own language, which is the edition without `/in/`.
 */
export function editionLanguage(
  ownLanguage: string,
  translationLanguages: readonly string[],
  requested: string | null,
): string | null {
  const canonical = requested === null ? undefined : canonicalLanguage(requested);
  if (canonical === undefined) return null;
  const byLower = new Map(translationLanguages.map((lang) => [lang.toLowerCase(), lang]));
  const parts = canonical.split('-');
  for (let length = parts.length; length > 0; length--) {
    const candidate = parts.slice(0, length).join('-').toLowerCase();
    if (candidate === ownLanguage.toLowerCase()) return null;
    const found = byLower.get(candidate);
    if (found !== undefined) return found;
  }
  return null;
}
export const endorserProfileUrl = (urls: PublicUrls, issuerSlug: string, endorsementId: string) =>
  `${urls.endorsement(issuerSlug, endorsementId)}/issuer`;

export function issuerDocument(urls: PublicUrls, issuer: IssuerRow): ObIssuer {
  const image = issuer.image_url ?? issuer.brand_logo_url;
  return {
    '@context': OB_CONTEXT,
    type: 'Issuer',
    id: urls.issuerProfile(issuer.slug),
    name: issuer.name,
    url: issuer.url,
    email: issuer.email,
    ...(issuer.description ? { description: issuer.description } : {}),
    ...(image ? { image } : {}),
    related: [urls.issuerDidDocument(issuer.slug)],
  };
}

/** Tags then skills, trimmed, first spelling kept when two differ only in case. */
/**
 * A definition's criteria as both Open Badges versions write them: its URL and narrative. The OB 2.0
 * validator needs an id or a narrative, so the description is the honest fallback.
 */
export function criteriaOf(definition: DefinitionRow): { id?: string; narrative?: string } {
  if (!definition.criteria_url && !definition.criteria_narrative) return { narrative: definition.description };
  return {
    ...(definition.criteria_url ? { id: definition.criteria_url } : {}),
    ...(definition.criteria_narrative ? { narrative: definition.criteria_narrative } : {}),
  };
}

export function keywords(definition: DefinitionRow): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const word of [...(JSON.parse(definition.tags) as string[]), ...(JSON.parse(definition.skills) as string[])]) {
    const trimmed = word.trim();
    const key = trimmed.toLowerCase();
    if (trimmed === '' || seen.has(key)) continue;
    seen.add(key);
    out.push(trimmed);
  }
  return out;
}

function alignmentObject(baseUrl: string, row: AlignmentFields): ObAlignment {
  return {
    targetName: row.target_name,
    targetUrl: row.target_url,
    ...(row.target_description ? { targetDescription: row.target_description } : {}),
    ...(row.target_framework ? { targetFramework: row.target_framework } : {}),
    ...(row.target_code ? { targetCode: row.target_code } : {}),
    ...alignmentExtension(baseUrl, row),
  };
}

/** What a BadgeClass edition shows beyond its definition: where it is, its language and its relatives. */
export interface EditionParts {
  id: string;
  language: string;
  /** The other editions of the same version, then (for the current BadgeClass) the earlier versions. */
  related: ObRelated[];
  /** The service's public origin, where the badge-data extension's context is hosted (extension.ts). */
  baseUrl: string;
}

/**
 * One edition of a definition's BadgeClass. `definition` already carries that edition's text (its
 * name, description and criteria narrative in `parts.language`). `@language` is a top-level member,
 * beside `@context`, as the OB 2.0 examples ("Internationalization") write it: the 1EdTech
 * validator refuses a context that is not the OB v2 context URL alone.
 */
export function badgeClassDocument(
  urls: PublicUrls,
  issuerSlug: string,
  definition: DefinitionRow,
  alignments: AlignmentFields[],
  endorsementIds: string[],
  parts: EditionParts,
): ObBadgeClass {
  const tags = keywords(definition);
  const criteria = criteriaOf(definition);
  return {
    '@context': OB_CONTEXT,
    '@language': parts.language,
    type: 'BadgeClass',
    id: parts.id,
    name: definition.name,
    description: definition.description,
    image: definition.image_url ?? imageUrlOf(parts.id),
    criteria,
    issuer: urls.issuerProfile(issuerSlug),
    version: versionLabel(definition),
    ...(tags.length > 0 ? { tags } : {}),
    ...(alignments.length > 0 ? { alignment: alignments.map((a) => alignmentObject(parts.baseUrl, a)) } : {}),
    ...(parts.related.length > 0 ? { related: parts.related } : {}),
    // OB 2.0 carries `version` natively; the other §3 fields go in an extension (extension.ts).
    ...achievementExtension(parts.baseUrl, definition),
    ...(endorsementIds.length > 0 ? { endorsement: endorsementIds.map((e) => urls.endorsement(issuerSlug, e)) } : {}),
  };
}

/** The assertion's `badge`: the BadgeClass edition of the version and language it was issued in. */
export function assertionDocument(
  urls: PublicUrls,
  credential: AssertionRow,
  edition: Edition,
  endorsementIds: string[],
): ObAssertion {
  const id = urls.assertion(credential.issuer_slug, credential.id);
  return {
    '@context': OB_CONTEXT,
    type: 'Assertion',
    id,
    recipient: {
      type: 'email',
      hashed: true,
      salt: credential.recipient_salt,
      identity: `sha256$${credential.recipient_hash}`,
    },
    badge: badgeClassUrlOf(urls, credential.issuer_slug, credential.definition_slug, edition),
    verification: { type: 'hosted' },
    issuedOn: credential.issued_on,
    ...(credential.expires_on ? { expires: credential.expires_on } : {}),
    ...(credential.evidence_url ? { evidence: [{ id: credential.evidence_url }] } : {}),
    // Only the generated badge is baked per assertion. A definition's own image is the BadgeClass's,
    // unbaked: repeating it here would point at a file with no assertion in it (docs/decisions.md).
    ...(credential.image_url ? {} : { image: imageUrlOf(id) }),
    ...(credential.reissued_from
      ? { related: [{ id: urls.assertion(credential.issuer_slug, credential.reissued_from) }] }
      : {}),
    ...(endorsementIds.length > 0
      ? { endorsement: endorsementIds.map((e) => urls.endorsement(credential.issuer_slug, e)) }
      : {}),
  };
}

/** The 410 body of a revoked hosted assertion (OB 2.0 "Revoking Hosted Assertions"), its reason in public words. */
export function revokedAssertionDocument(
  urls: PublicUrls,
  credential: Pick<AssertionRow, 'id' | 'issuer_slug' | 'revoked_reason'>,
): ObRevokedAssertion {
  return {
    '@context': OB_CONTEXT,
    id: urls.assertion(credential.issuer_slug, credential.id),
    type: 'Assertion',
    revoked: true,
    revocationReason: publicRevocationReason(credential.revoked_reason),
  };
}

export function endorsementDocument(
  urls: PublicUrls,
  issuerSlug: string,
  endorsement: EndorsementRow,
  endorsedUrl: string,
): ObEndorsement {
  return {
    '@context': OB_CONTEXT,
    type: 'Endorsement',
    id: urls.endorsement(issuerSlug, endorsement.id),
    claim: { id: endorsedUrl, endorsementComment: endorsement.claim },
    issuer: endorserProfileUrl(urls, issuerSlug, endorsement.id),
    issuedOn: endorsement.created_at,
    verification: { type: 'hosted' },
  };
}

/**
 * The endorser as an OB 2.0 Profile on our origin. The validator requires a url and an email on every
 * Profile; no endorser email is collected (it would be personal data), so the issuer that recorded
 * and hosts the endorsement is the contact, and the description says so.
 */
export function endorserProfileDocument(
  urls: PublicUrls,
  issuer: IssuerRow,
  endorsement: EndorsementRow,
): ObEndorserProfile {
  return {
    '@context': OB_CONTEXT,
    type: 'Profile',
    id: endorserProfileUrl(urls, issuer.slug, endorsement.id),
    name: endorsement.endorser_name,
    url: endorsement.endorser_url ?? issuer.url,
    email: issuer.email,
    description: `Endorser whose endorsement is recorded and hosted by ${issuer.name}, the contact for it.`,
  };
}
