import type { PublicUrls } from '../../core/urls.js';
import type { AlignmentRow } from '../alignments/alignments.repository.js';
import type { CredentialWithSlugs } from '../credentials/credentials.repository.js';
import type { DefinitionRow } from '../definitions/definitions.repository.js';
import { criteriaOf, imageUrlOf, keywords, versionLabel } from '../documents/documents.builders.js';
import type { IssuerRow } from '../issuers/issuers.repository.js';
import { OB_V3_CONTEXT, OB_V3_CREDENTIAL_SCHEMA, OB_V3_EXTENSIONS_CONTEXT, VC_V2_CONTEXT } from './contexts.js';

/** Entries per status list: 2^17, the minimum the Bitstring Status List specification sets for privacy. */
export const STATUS_LIST_LENGTH = 131_072;

export interface VcUrls {
  credential(issuerSlug: string, credentialId: string): string;
  statusList(issuerSlug: string, list: number): string;
}

export function vcUrls(urls: PublicUrls): VcUrls {
  return {
    credential: urls.openBadgeCredential,
    statusList: (slug, list) => `${urls.issuerProfile(slug)}/status/${list}`,
  };
}

const image = (id: string) => ({ id, type: 'Image' });

/**
 * The OB 3.0 Profile of an issuer, identified by its DID. Only the issuer's own public contact data,
 * and the URL of its Open Badges 2.0 Issuer Profile as an `otherIdentifier`.
 */
export function issuerProfile(did: string, issuer: IssuerRow, ob2ProfileUrl: string) {
  const logo = issuer.image_url ?? issuer.brand_logo_url;
  return {
    id: did,
    type: ['Profile'],
    name: issuer.name,
    url: issuer.url,
    email: issuer.email,
    otherIdentifier: [
      { type: 'IdentifierEntry', identifier: ob2ProfileUrl, identifierType: 'identifier' },
      // OB 3.0 IdentifierTypeEnum is extensible ("ext:" terms, §B.1): LinkedIn's organization id,
      // which the add-to-profile link names too, so the certification shows the issuer's page.
      ...(issuer.linkedin_organization_id
        ? [
            {
              type: 'IdentifierEntry',
              identifier: issuer.linkedin_organization_id,
              identifierType: LINKEDIN_IDENTIFIER_TYPE,
            },
          ]
        : []),
    ],
    ...(issuer.description ? { description: issuer.description } : {}),
    ...(logo ? { image: image(logo) } : {}),
  };
}

/** The IdentifierEntry type of an issuer's LinkedIn organization id, an extension term of IdentifierTypeEnum. */
export const LINKEDIN_IDENTIFIER_TYPE = 'ext:LinkedInOrganizationId';

function alignment(row: AlignmentRow) {
  return {
    type: ['Alignment'],
    targetName: row.target_name,
    targetUrl: row.target_url,
    ...(row.target_description ? { targetDescription: row.target_description } : {}),
    ...(row.target_framework ? { targetFramework: row.target_framework } : {}),
    ...(row.target_code ? { targetCode: row.target_code } : {}),
    ...(row.target_type ? { targetType: row.target_type } : {}),
  };
}

/**
 * The other editions an Achievement lists in `related` at most: with the rest of a credential
 * they keep it well inside the JSON-LD budget (core/jsonld-budget.ts) that verification applies
 * to a credential given back to this service. 24 is the number of the EU's official languages.
 */
export const MAX_RELATED_EDITIONS = 24;

/** Which edition of which version a credential shows (documents.builders.ts `Edition`), and its relatives. */
export interface AchievementEdition {
  /** The edition's BadgeClass URL, the Achievement's id. */
  id: string;
  /** The language of the edition's text. */
  language: string;
  /** The version's other editions: their URLs and languages. */
  others: { id: string; language: string }[];
}

export interface CredentialParts {
  urls: PublicUrls;
  did: string;
  issuer: IssuerRow;
  credential: CredentialWithSlugs;
  definition: DefinitionRow;
  alignments: AlignmentRow[];
  /** The definition's EndorsementCredentials, each signed by its endorser, in the order they were given. */
  endorsements: Record<string, unknown>[];
  statusPosition: number;
  /** The subject's id: a holder's DID for a copy bound to its holder; none for the hosted credential. */
  subjectId?: string;
  /**
   * The edition the credential was issued in (its version and language). `definition` then carries
   * that version's fields and that edition's text. Absent: the definition's current BadgeClass.
   */
  edition?: AchievementEdition;
}

/** A BitstringStatusListEntry (revocation) at `position` of the issuer's status lists. */
export function statusEntry(vc: VcUrls, issuerSlug: string, position: number) {
  const listUrl = vc.statusList(issuerSlug, Math.floor(position / STATUS_LIST_LENGTH));
  const index = position % STATUS_LIST_LENGTH;
  return {
    id: `${listUrl}#${index}`,
    type: 'BitstringStatusListEntry',
    statusPurpose: 'revocation',
    statusListIndex: String(index),
    statusListCredential: listUrl,
  };
}

/**
 * The unsigned OB 3.0 EndorsementCredential an issuer of this service gives another issuer's
 * definition: issued by the endorser (its Profile, its did:web) and signed with the endorser's key,
 * with an entry in the endorser's status list so the endorser can revoke it. The subject is the
 * endorsed Achievement (the BadgeClass URL), the comment the endorser's claim.
 */
export function endorsementCredential(parts: {
  urls: PublicUrls;
  endorserDid: string;
  endorser: IssuerRow;
  badgeClassUrl: string;
  endorsedName: string;
  id: string;
  claim: string;
  createdAt: string;
  statusPosition: number;
}) {
  const { urls, endorser } = parts;
  return {
    '@context': [VC_V2_CONTEXT, OB_V3_CONTEXT, OB_V3_EXTENSIONS_CONTEXT],
    id: `urn:uuid:${parts.id}`,
    type: ['VerifiableCredential', 'EndorsementCredential'],
    name: `Endorsement by ${endorser.name}`,
    description: `${endorser.name} endorses ${parts.endorsedName}.`,
    issuer: issuerProfile(parts.endorserDid, endorser, urls.issuerProfile(endorser.slug)),
    validFrom: wholeSeconds(parts.createdAt),
    credentialSubject: {
      id: parts.badgeClassUrl,
      type: ['EndorsementSubject'],
      endorsementComment: parts.claim,
    },
    credentialStatus: statusEntry(vcUrls(urls), endorser.slug, parts.statusPosition),
  };
}

/**
 * The unsigned OpenBadgeCredential (VC Data Model 2.0, OB 3.0 context) of a credential. The
 * Achievement's id is the OB 2.0 BadgeClass URL and the recipient is the same salted email hash as
 * the OB 2.0 assertion's: nothing personal beyond what that assertion already publishes.
 */
export function openBadgeCredential(parts: CredentialParts) {
  const { urls, did, issuer, credential, definition } = parts;
  const vc = vcUrls(urls);
  const badgeClassUrl = parts.edition?.id ?? urls.badgeClass(issuer.slug, definition.slug);
  const related = (parts.edition?.others ?? []).slice(0, MAX_RELATED_EDITIONS);
  const profile = issuerProfile(did, issuer, urls.issuerProfile(issuer.slug));
  const tagList = keywords(definition);
  const criteria = criteriaOf(definition);
  return {
    '@context': [VC_V2_CONTEXT, OB_V3_CONTEXT, OB_V3_EXTENSIONS_CONTEXT],
    id: vc.credential(issuer.slug, credential.id),
    type: ['VerifiableCredential', 'OpenBadgeCredential'],
    name: definition.name,
    issuer: profile,
    validFrom: wholeSeconds(credential.issued_on),
    ...(credential.expires_on ? { validUntil: wholeSeconds(credential.expires_on) } : {}),
    credentialSubject: {
      ...(parts.subjectId ? { id: parts.subjectId } : {}),
      type: ['AchievementSubject'],
      identifier: [
        {
          type: 'IdentityObject',
          identityHash: `sha256$${credential.recipient_hash}`,
          identityType: 'emailAddress',
          hashed: true,
          salt: issuer.recipient_salt,
        },
      ],
      achievement: {
        id: badgeClassUrl,
        type: ['Achievement'],
        name: definition.name,
        description: definition.description,
        criteria,
        image: image(definition.image_url ?? imageUrlOf(badgeClassUrl)),
        creator: profile,
        // OB 3.0 §B.2 Achievement: the language of its text, its version, the other editions and
        // the definition's §3 properties (issue 45), each only when set.
        ...(parts.edition ? { inLanguage: parts.edition.language } : {}),
        version: versionLabel(definition),
        ...(related.length > 0
          ? { related: related.map((r) => ({ id: r.id, type: ['Related'], inLanguage: r.language })) }
          : {}),
        ...(definition.achievement_type ? { achievementType: definition.achievement_type } : {}),
        ...(definition.credits_available !== null ? { creditsAvailable: definition.credits_available } : {}),
        ...(definition.field_of_study ? { fieldOfStudy: definition.field_of_study } : {}),
        ...(definition.specialization ? { specialization: definition.specialization } : {}),
        ...(definition.human_code ? { humanCode: definition.human_code } : {}),
        ...(tagList.length > 0 ? { tag: tagList } : {}),
        ...(parts.alignments.length > 0 ? { alignment: parts.alignments.map(alignment) } : {}),
        ...(parts.endorsements.length > 0 ? { endorsement: parts.endorsements } : {}),
      },
    },
    ...(credential.evidence_url ? { evidence: [{ id: credential.evidence_url, type: ['Evidence'] }] } : {}),
    credentialSchema: [{ id: OB_V3_CREDENTIAL_SCHEMA, type: '1EdTechJsonSchemaValidator2019' }],
    credentialStatus: statusEntry(vc, issuer.slug, parts.statusPosition),
  };
}

export type OpenBadgeCredential = ReturnType<typeof openBadgeCredential>;

/**
 * An issue time in whole seconds (`2026-03-02T09:00:00Z`): a VC-JWT's `nbf` and `exp` are whole
 * seconds and OB 3.0 §8.2 has them equal `validFrom` and `validUntil`, so the credential carries
 * no fraction either.
 */
export function wholeSeconds(iso: string): string {
  return `${new Date(Date.parse(iso)).toISOString().slice(0, 19)}Z`;
}

/**
 * The VC Data Model 2.0 context defines the JWT claims `iss`, `sub`, `nbf` and `exp` (IANA terms)
 * but not `jti`; this one-term context does, so the JWT payload, read as JSON-LD, passes safe mode.
 */
export const JWT_ID_CONTEXT = { jti: { '@id': 'https://www.iana.org/assignments/jwt#jti', '@type': '@id' } };

/** What §8.2 reads of a credential: any OB 3.0 credential (hosted, holder-bound, endorsement) has it. */
export type JwtSource = {
  '@context': unknown[];
  id: string;
  issuer: { id: string } | string;
  validFrom: string;
  validUntil?: string;
  credentialSubject: { id?: string; type?: unknown };
};

/** The §8.2 payload: the credential's members and the registered claims. */
export type JwtClaims = Record<string, unknown> & {
  '@context': unknown[];
  iss: string;
  sub: string;
  jti: string;
  nbf: number;
  exp?: number;
};

/**
 * The VC-JWT payload of OB 3.0 §8.2 ("JSON Web Token Proof Format"): the credential itself with
 * `iss` (the issuer's id), `sub` (`credentialSubject.id`), `jti` (the credential's id), `nbf` and
 * `exp` (`validFrom` and `validUntil`). §8.2 makes `sub` required, so a credential without a
 * subject id (the hosted one, whose recipient is a salted email hash) has no VC-JWT: this throws.
 * A validity time with a fraction of a second also throws, since `nbf` could not equal it.
 */
export function jwtClaims(credential: JwtSource): JwtClaims {
  const seconds = (iso: string) => {
    const ms = Date.parse(iso);
    if (!Number.isFinite(ms) || ms % 1000 !== 0) throw new Error(`VC-JWT: ${iso} is not a whole-second time`);
    return ms / 1000;
  };
  const sub = credential.credentialSubject.id;
  if (!sub) throw new Error('VC-JWT: OB 3.0 §8.2 requires credentialSubject.id (the `sub` claim)');
  const iss = typeof credential.issuer === 'string' ? credential.issuer : credential.issuer.id;
  return {
    ...credential,
    '@context': [...credential['@context'], JWT_ID_CONTEXT],
    iss,
    sub,
    jti: credential.id,
    nbf: seconds(credential.validFrom),
    ...(credential.validUntil ? { exp: seconds(credential.validUntil) } : {}),
  };
}
