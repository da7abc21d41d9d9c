/** The public URLs of an issuer's documents and pages; every id published is one of these. */
export function publicUrls(baseUrl: string) {
  const issuer = (slug: string) => `${baseUrl}/v1/issuers/${encodeURIComponent(slug)}`;
  return {
    issuerProfile: issuer,
    badgeClass: (issuerSlug: string, definitionSlug: string) =>
      `${issuer(issuerSlug)}/badges/${encodeURIComponent(definitionSlug)}`,
    assertion: (issuerSlug: string, credentialId: string) =>
      `${issuer(issuerSlug)}/assertions/${encodeURIComponent(credentialId)}`,
    /** The issuer's did:web DID document (src/modules/vc): the HTTPS form of its DID. */
    issuerDidDocument: (issuerSlug: string) => `${issuer(issuerSlug)}/did.json`,
    /** The Open Badges 3.0 signed credential of the same record (src/modules/vc). */
    openBadgeCredential: (issuerSlug: string, credentialId: string) =>
      `${issuer(issuerSlug)}/credentials/${encodeURIComponent(credentialId)}`,
    endorsement: (issuerSlug: string, endorsementId: string) =>
      `${issuer(issuerSlug)}/endorsements/${encodeURIComponent(endorsementId)}`,
    verifyPage: (issuerSlug: string, credentialId: string) =>
      `${baseUrl}/verify/${encodeURIComponent(issuerSlug)}/${encodeURIComponent(credentialId)}`,
    profile: (profileId: string) => `${baseUrl}/v1/profiles/${encodeURIComponent(profileId)}`,
  };
}

export type PublicUrls = ReturnType<typeof publicUrls>;
