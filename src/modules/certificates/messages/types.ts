/**
 * One language's fixed words of a certificate (issue 44 §3, issue 45 §2): everything the PDF prints
 * or announces that is not the issuer's own text. `{issuer}`, `{badge}`, `{date}`, `{id}`, `{url}`
 * and `{name}` are replaced by the credential's values. Add a language by adding a file that
 * satisfies this interface and listing it in ./index.ts: a missing key fails the typecheck, and
 * test/locale-catalogues.test.ts checks each text's placeholders against the English ones.
 */
export interface CertificateMessages {
  /** The built-in design's title and wording, used while a design keeps them unchanged. */
  defaultTitle: string;
  /** Placeholders as the design's wording takes them (certificates.schemas.ts PLACEHOLDERS). */
  defaultWording: string;
  /** Above the earner's name. */
  awardedTo: string;
  issuedByOn: string;
  expires: string;
  credentialId: string;
  verifyAt: string;
  /** What `{expiresOn}` in a wording prints for a credential without an expiry. */
  noExpiry: string;
  /** The document's subject (its metadata). */
  subject: string;
  /** Alternative texts of the images, for screen readers (PDF/UA Figure /Alt). */
  logoAlt: string;
  signatureAlt: string;
  qrAlt: string;
}
