import type { PublicUrls } from '../../core/urls.js';
import type { AlignmentRow } from '../alignments/alignments.repository.js';
import type { CredentialWithSlugs } from '../credentials/credentials.repository.js';
import type { DefinitionRow } from '../definitions/definitions.repository.js';
import { criteriaOf, imageUrlOf, keywords } from '../documents/documents.builders.js';
import type { EndorsementRow } from '../endorsements/endorsements.repository.js';
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
    otherIdentifier: [{ type: 'IdentifierEntry', identifier: ob2ProfileUrl, identifierType: 'identifier' }],
    ...(issuer.description ? { description: issuer.description } : {}),
    ...(logo ? { image: image(logo) } : {}),
  };
}

function alignment(row: AlignmentRow) {
  return {
    type: ['Alignment'],
    targetName: row.target_name,
    targetUrl: row.target_url,
    ...(row.target_description ? { targetDescription: row.target_description } : {}),
    ...(row.target_framework ? { targetFramework: row.target_framework } : {}),
    ...(row.target_code ? { targetCode: row.target_code } : {}),
  };
}

export interface CredentialParts {
  urls: PublicUrls;
  did: string;
  issuer: IssuerRow;
  credential: CredentialWithSlugs;
  definition: DefinitionRow;
  alignments: AlignmentRow[];
  /** The signed EndorsementCredentials of the definition, in recording order. */
  endorsements: Record<string, unknown>[];
  statusPosition: number;
}

/**
 * The unsigned OB 3.0 EndorsementCredential of an endorsement of a definition. Its issuer is the
 * issuer that recorded the endorser's claim and signs it (the endorser has no key here); the
 * endorser is named in the credential's name and description, as the OB 2.0 Endorsement's hosted
 * endorser Profile names it. The subject is the Achievement, the comment the recorded claim.
 */
export function endorsementCredential(parts: {
  urls: PublicUrls;
  did: string;
  issuer: IssuerRow;
  definition: DefinitionRow;
  endorsement: EndorsementRow;
}) {
  const { urls, did, issuer, definition, endorsement } = parts;
  const endorser = endorsement.endorser_url
    ? `${endorsement.endorser_name} (${endorsement.endorser_url})`
    : endorsement.endorser_name;
  return {
    '@context': [VC_V2_CONTEXT, OB_V3_CONTEXT, OB_V3_EXTENSIONS_CONTEXT],
    id: `urn:uuid:${endorsement.id}`,
    type: ['VerifiableCredential', 'EndorsementCredential'],
    name: `Endorsement by ${endorsement.endorser_name}`,
    description: `${endorser} endorses this achievement; ${issuer.name} recorded the claim and signs it.`,
    issuer: issuerProfile(did, issuer, urls.issuerProfile(issuer.slug)),
    validFrom: endorsement.created_at,
    credentialSubject: {
      id: urls.badgeClass(issuer.slug, definition.slug),
      type: ['EndorsementSubject'],
      endorsementComment: endorsement.claim,
    },
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
  const badgeClassUrl = urls.badgeClass(issuer.slug, definition.slug);
  const profile = issuerProfile(did, issuer, urls.issuerProfile(issuer.slug));
  const list = Math.floor(parts.statusPosition / STATUS_LIST_LENGTH);
  const index = parts.statusPosition % STATUS_LIST_LENGTH;
  const listUrl = vc.statusList(issuer.slug, list);
  const tagList = keywords(definition);
  const criteria = criteriaOf(definition);
  return {
    '@context': [VC_V2_CONTEXT, OB_V3_CONTEXT, OB_V3_EXTENSIONS_CONTEXT],
    id: vc.credential(issuer.slug, credential.id),
    type: ['VerifiableCredential', 'OpenBadgeCredential'],
    name: definition.name,
    issuer: profile,
    validFrom: credential.issued_on,
    ...(credential.expires_on ? { validUntil: credential.expires_on } : {}),
    credentialSubject: {
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
        ...(tagList.length > 0 ? { tag: tagList } : {}),
        ...(parts.alignments.length > 0 ? { alignment: parts.alignments.map(alignment) } : {}),
        ...(parts.endorsements.length > 0 ? { endorsement: parts.endorsements } : {}),
      },
    },
    ...(credential.evidence_url ? { evidence: [{ id: credential.evidence_url, type: ['Evidence'] }] } : {}),
    credentialSchema: [{ id: OB_V3_CREDENTIAL_SCHEMA, type: '1EdTechJsonSchemaValidator2019' }],
    credentialStatus: {
      id: `${listUrl}#${index}`,
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
      statusListIndex: String(index),
      statusListCredential: listUrl,
    },
  };
}

export type OpenBadgeCredential = ReturnType<typeof openBadgeCredential>;

/**
 * The VC-JWT claims of the OB 3.0 "JSON Web Token Proof Format" beside the credential itself. The
 * subject is identified by a hashed email, not a URI, so there is no `sub` to give.
 */
export function jwtClaims(credential: OpenBadgeCredential) {
  const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);
  return {
    ...credential,
    iss: credential.issuer.id,
    jti: credential.id,
    nbf: seconds(credential.validFrom),
    ...('validUntil' in credential && credential.validUntil ? { exp: seconds(credential.validUntil) } : {}),
  };
}
